// A long message drawn from its end (src/long_message.js), against marked's whole render. Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { holdsRawHtml, markdownHtml, markdownToHtml, markdownTokens, needsWholeRender } from "../src/markdown.js";
import { BackwardText } from "../src/long_message.js";
import { longReply, TRICKY } from "./markdown_samples.js";

/** Lex the whole text, a window at a time, as the message list does over frames. @param {BackwardText} back */
function lexed(back) {
  let steps = 0;
  while (back.lexing) {
    if ((steps += 1) > 100_000) throw new Error("lexing never ends");
    back.lexStep();
  }
  return back;
}

/** The HTML drawn: each slice rendered from its tokens (as the message list does) and put above what is drawn. */
function drawnBackward(text, slice, window = undefined) {
  const back = lexed(new BackwardText(text, undefined, slice, window));
  if (!back.usable) return null;
  let html = "";
  let slices = 0;
  while (back.pending) {
    const next = back.next();
    assert.equal(next.tokens.map((token) => token.raw).join(""), next.text);
    html = markdownHtml(next.text, next.tokens) + html;
    slices += 1;
  }
  return { html, slices };
}

test("a long reply drawn from its end, slice by slice, equals one render of the whole text", () => {
  for (const size of [20_000, 80_000, 200_000]) {
    const text = longReply(size);
    for (const slice of [500, 4_000, 16_000]) {
      const drawn = drawnBackward(text, slice);
      assert.ok(drawn, `${size} characters could not be drawn in slices`);
      assert.equal(drawn.html, markdownToHtml(text), `${size} characters, ${slice} per slice`);
      assert.ok(drawn.slices >= Math.floor(size / Math.max(slice, 2_000)) / 2); // drawn in many slices, not at once
    }
  }
});

test("each tricky sample drawn from its end equals its whole render, or is left to the streaming renderer", () => {
  for (const [name, sample] of Object.entries(TRICKY)) {
    const text = String(sample).repeat(3);
    for (const slice of [1, 40, 4_000]) {
      const drawn = drawnBackward(text, slice);
      if (drawn) assert.equal(drawn.html, markdownToHtml(text), `${name}, ${slice} per slice`);
    }
  }
});

test("a text with a link reference definition or raw html is not drawn in slices", () => {
  assert.equal(lexed(new BackwardText("see [a]\n\n[a]: https://example.com\n")).usable, false);
  assert.equal(lexed(new BackwardText("<div>\n\nx\n\n</div>\n")).usable, false);
  assert.equal(lexed(new BackwardText("a<br>b\n\nc\n")).usable, true);
  assert.equal(lexed(new BackwardText(`${longReply(30_000)}\n\n- a list\n\n  [x]: https://example.com\n`, undefined,
    undefined, 100)).usable, false);  // a definition nested in a list, in the last window
});

test("the last slice is drawn first and every block exactly once", () => {
  const text = "# one\n\ntwo\n\nthree\n";
  const back = lexed(new BackwardText(text, undefined, 1, 3));
  const slices = [];
  while (back.pending) slices.push(back.next().text);
  assert.equal(slices[0], "three\n");
  assert.equal(slices.at(-1), "# one"); // the blank lines after a heading are a token of their own
  assert.equal([...slices].reverse().join(""), text);
});

test("a long reply lexed a small window at a time gives the blocks of one lexing, and draws like one render", () => {
  const text = longReply(60_000);
  for (const window of [50, 1_000, 8_000]) {
    const back = new BackwardText(text, undefined, 4_000, window);
    let steps = 0;
    while (back.lexing) {
      back.lexStep();
      steps += 1;
    }
    assert.ok(steps >= Math.floor(text.length / (2 * Math.max(window, 400))), `${steps} steps of ${window}`);
    assert.deepEqual(back.blocks.map((token) => token.raw), markdownTokens.lex(text).map((token) => token.raw));
    assert.equal(drawnBackward(text, 4_000, window)?.html, markdownToHtml(text), `window ${window}`);
  }
});

test("nothing is drawn before the whole text is lexed, and each step lexes about a window", () => {
  const text = longReply(40_000);
  const sizes = /** @type {number[]} */ ([]);
  const back = new BackwardText(text, { lex: (part) => { sizes.push(part.length); return markdownTokens.lex(part); } },
    4_000, 2_000);
  back.lexStep();
  assert.equal(back.lexing, true);
  assert.equal(back.end, 0); // no slice to draw yet
  while (back.lexing) back.lexStep();
  assert.ok(back.end > 0);
  assert.ok(Math.max(...sizes) <= 4_000, `lexed up to ${Math.max(...sizes)} characters at once`);
});

test("a reply that is one long block is lexed one window per step, each twice the last, and draws like one render", () => {
  const table = `| n | value |\n|---:|---|\n${Array.from({ length: 3_000 }, (_, n) => `| ${n} | **v${n}** |\n`).join("")}`;
  const code = `\`\`\`python\n${Array.from({ length: 2_000 }, (_, n) => `x_${n} = ${n}  # step\n`).join("")}\`\`\`\n`;
  for (const [text, block] of [[table, table], [code, code], [`${longReply(20_000)}\n${table}`, table]]) {
    const calls = /** @type {number[][]} */ ([]);
    const back = new BackwardText(text, { lex: (part) => { calls.at(-1)?.push(part.length); return markdownTokens.lex(part); } },
      4_000, 2_000);
    while (back.lexing) {
      calls.push([]);
      back.lexStep();
    }
    assert.ok(calls.every((lexes) => lexes.length === 1), "one lexing per step");
    const sizes = calls.map(([size]) => size);
    const largest = Math.max(...sizes);
    assert.ok(largest >= block.length && largest < 2 * block.length, `lexed up to ${largest} at once`);
    for (let i = 1; i < sizes.length; i += 1) {
      assert.ok(sizes[i] <= 2 * sizes[i - 1] || sizes[i] <= 2_000, `step ${i} lexed ${sizes[i]} after ${sizes[i - 1]}`);
    }
    assert.equal(drawnBackward(text, 4_000, 2_000)?.html, markdownToHtml(text));
  }
});

test("whether blocks can be rendered apart looks past the top level only where a tag or a definition could be", () => {
  assert.equal(needsWholeRender(markdownTokens.lex("> quote with <span>html</span>\n")), true);
  assert.equal(needsWholeRender(markdownTokens.lex("- item\n\n  [ref]: https://example.com\n")), true);
  assert.equal(needsWholeRender(markdownTokens.lex("| a |\n|---|\n| <b>x</b> |\n")), true);
  assert.equal(needsWholeRender(markdownTokens.lex("a<br>b and `<code>` and 1 < 2\n\n```\n<div>\n```\n")), false);
  const many = "para\n\n".repeat(20_000);
  const started = performance.now();
  assert.equal(needsWholeRender(markdownTokens.lex(many)), false);
  assert.ok(performance.now() - started < 2_000);
});

test("markdown holds raw HTML only where a tag is, void tags included; less-than signs, code and autolinks are not", () => {
  const raw = (/** @type {string} */ text) => holdsRawHtml(text, markdownTokens.lex(text));
  for (const text of ["a <kbd>b</kbd>\n", "<details>x</details>\n", "line<br>break\n", "> quote <!-- c -->\n",
    "| a |\n|---|\n| <b>x</b> |\n", "- item <span>s</span>\n", "<?php x ?>\n", "</p>\n"]) {
    assert.equal(raw(text), true, text);
  }
  for (const text of ["1 < 2 and 3 > 2\n", "`<div>` in code\n", "```html\n<div>\n```\n", "see <https://example.com>\n",
    "$x<y$ and $$a<b$$\n", "&lt;b&gt; escaped \\<b>\n", "no tag at all\n"]) {
    assert.equal(raw(text), false, text);
  }
  // without tokens, any tag-like `<` counts
  assert.equal(holdsRawHtml("`<div>`"), true);
  assert.equal(holdsRawHtml("1 < 2"), false);
});
