// The incremental renderer of a streaming message (src/streaming_markdown.js), against marked's whole render.
// Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { highlightPiece, markdownHtml, markdownToHtml, markdownTokens } from "../src/markdown.js";
import { BUDGET, CODE_PIECE, MarkdownStream, OPEN_CODE_MIN, OPEN_LIST_MIN, PARAGRAPH_PIECE } from "../src/streaming_markdown.js";
import { longReply, TRICKY } from "./markdown_samples.js";

/**
 * What the message list shows: kept finished HTML (and the runs of skipped blocks, in their place, rendered when the
 * HTML is read, as the list draws them later), then the open tail (mirrors message_list.js).
 */
class Shown {
  /**
   * @param {(text: string, tokens?: any[]) => string} render @param {number} budget
   * @param {number} ahead the stream's `ahead` (Infinity: it never skips)
   */
  constructor(render = markdownHtml, budget = BUDGET, highlight = highlightPiece, ahead = Infinity) {
    this.render = render;
    this.stream = new MarkdownStream(render, markdownTokens, budget, highlight);
    this.stream.ahead = ahead;
    this.finished = /** @type {(string | import("../src/streaming_markdown.js").Blocks)[]} */ ([]);
    this.tail = "";
    this.steps = /** @type {import("../src/streaming_markdown.js").StreamStep[]} */ ([]);
  }
  /** One update, then more while the stream says text is pending (the next frames). @param {string} text */
  update(text) {
    let step;
    let updates = 0;
    do {
      if ((updates += 1) > 10_000) throw new Error("the stream never finishes drawing this text");
      step = this.stream.update(text);
      if (step.reset) this.finished = [];
      if (step.closed) this.finished.push(listHtml(step.closed));
      if (step.skipped) this.finished.push(step.skipped);
      this.finished.push(...step.finished);
      this.tail = step.list ? listHtml(step.list) : step.tail ?? "";
      this.steps.push(step);
    } while (step.pending);
    return this;
  }
  html() {
    const drawn = this.finished.map((part) => (typeof part === "string" ? part : this.render(part.text, part.tokens)));
    return drawn.join("") + this.tail;
  }
}

/** The HTML of a list (table) drawn item by item: its shell with the pieces and the open item inside. @param {any} list */
function listHtml(list) {
  const inside = list.shell.lastIndexOf(`</${list.inside}>`);
  return list.shell.slice(0, inside) + list.pieces.join("") + list.open + list.shell.slice(inside);
}

/**
 * @param {string} text @param {number[]} cuts increasing lengths, the last one text.length
 * @param {number} [ahead] the stream's `ahead`
 */
function streamed(text, cuts, ahead = Infinity) {
  const shown = new Shown(markdownHtml, BUDGET, highlightPiece, ahead);
  for (const cut of cuts) shown.update(text.slice(0, cut));
  return shown;
}

/** Deterministic pseudo-random chunk boundaries, `count` chunks. @param {number} length @param {number} count */
function randomCuts(length, count, seed = 7) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const cuts = new Set([length]);
  while (cuts.size < count) cuts.add(1 + Math.floor(next() * (length - 1)));
  return [...cuts].sort((a, b) => a - b);
}

test("every prefix of each tricky sample streamed a character at a time renders like the whole prefix", () => {
  for (const [name, text] of Object.entries(TRICKY)) {
    const shown = new Shown();
    for (let cut = 1; cut <= text.length; cut += 1) {
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `${name}, first ${cut} characters`);
    }
  }
});

test("each tricky sample arriving at once and drawn a few characters at a time renders like the whole text", () => {
  let updates = 0;
  for (const [name, text] of Object.entries(TRICKY)) {
    const shown = new Shown(markdownHtml, 4).update(text);
    updates += shown.steps.length;
    assert.equal(shown.html(), markdownToHtml(text), name);
  }
  assert.ok(updates > 2 * Object.keys(TRICKY).length, `${updates} updates`);
});

test("an 80 KB reply streamed in 2,000 chunks ends with the HTML of one whole render", () => {
  const text = longReply(80_000);
  const cuts = Array.from({ length: 2_000 }, (_, i) => Math.round(((i + 1) * text.length) / 2_000));
  assert.equal(streamed(text, cuts).html(), markdownToHtml(text));
});

test("an 80 KB reply streamed in 300 uneven deltas ends with the HTML of one whole render", () => {
  const text = longReply(80_000);
  assert.equal(streamed(text, randomCuts(text.length, 300)).html(), markdownToHtml(text));
});

/** Characters of markdown rendered in each update while `text` streams in at `cuts`. */
function renderedPerUpdate(/** @type {string} */ text, /** @type {number[]} */ cuts) {
  const rendered = /** @type {number[]} */ ([]);
  const shown = new Shown((markdown) => {
    rendered[rendered.length - 1] += markdown.length;
    return markdownToHtml(markdown);
  });
  const update = shown.stream.update.bind(shown.stream);
  shown.stream.update = (/** @type {string} */ t) => {
    rendered.push(0);
    return update(t);
  };
  for (const cut of cuts) shown.update(text.slice(0, cut));
  return { rendered, shown };
}

test("the markdown rendered per delta stays small however long the reply grows", () => {
  const text = longReply(80_000);
  const { rendered } = renderedPerUpdate(text, randomCuts(text.length, 300));
  const delta = Math.ceil(text.length / 300);
  const largestBlock = Math.max(...markdownTokens.lex(text).map((token) => token.raw.length));
  // a delta renders at most the previously open block plus the delta (finished once) and the open tail again
  assert.ok(Math.max(...rendered) <= 2 * (largestBlock + 3 * delta), `rendered up to ${Math.max(...rendered)}`);
  assert.ok(Math.max(...rendered) < text.length / 20);
});

/**
 * Characters lexed and rendered by the updates that stream `growth` in `step`-character deltas after `before` has
 * streamed (and been drawn) the same way: the work per update once `before` is finished.
 * @param {string} before @param {string} growth @param {number} step
 */
function workWhileGrowing(before, growth, step) {
  const work = { lexed: 0, rendered: 0, updates: 0 };
  let counting = false;
  const tokens = {
    lex: (/** @type {string} */ text) => {
      if (counting) work.lexed += text.length;
      return markdownTokens.lex(text);
    },
  };
  const stream = new MarkdownStream((markdown) => {
    if (counting) work.rendered += markdown.length;
    return markdownToHtml(markdown);
  }, tokens);
  const text = before + growth;
  for (let cut = step; cut < before.length + step; cut += step) {
    stream.update(text.slice(0, Math.min(cut, before.length)));
  }
  counting = true;
  for (let cut = before.length + step; cut < text.length + step; cut += step) {
    stream.update(text.slice(0, Math.min(cut, text.length)));
    work.updates += 1;
  }
  return work;
}

test("the characters lexed and rendered per update do not grow with the length already finished", () => {
  const growth = longReply(4_000);
  const short = workWhileGrowing(longReply(2_000), growth, 50);
  const long = workWhileGrowing(longReply(80_000), growth, 50);
  assert.equal(long.updates, short.updates);
  // the same growth costs the same per update after 2 KB as after 80 KB of finished blocks: only the open tail
  // and the new text are looked at, never what is finished
  assert.ok(long.lexed <= short.lexed * 1.1 + 1_000, `lexed ${long.lexed} after 80 KB, ${short.lexed} after 2 KB`);
  assert.ok(long.rendered <= short.rendered * 1.1 + 1_000,
    `rendered ${long.rendered} after 80 KB, ${short.rendered} after 2 KB`);
  assert.ok(long.lexed / long.updates < 2_000, `${long.lexed / long.updates} characters lexed per update`);
});

test("a long block that stays open is lexed about once per update, in big deltas too", () => {
  const rows = [];
  for (let n = 1; rows.length < 1_200; n += 1) rows.push(`| ${n} | name ${n} with \`code\` | ${n * 7} |\n`);
  const list = rows.map((row) => `- item${row.replaceAll("|", "")}`).join("");
  for (const [name, text] of [["table", `| n | name | value |\n|--:|---|--:|\n${rows.join("")}`], ["list", list]]) {
    for (const deltas of [5, 20]) {
      let lexed = 0;
      const tokens = { lex: (/** @type {string} */ part) => ((lexed += part.length), markdownTokens.lex(part)) };
      const stream = new MarkdownStream(markdownToHtml, tokens);
      let drawn = 0;
      for (let i = 1; i <= deltas; i += 1) {
        const upTo = Math.floor((text.length * i) / deltas);
        let step;
        do step = stream.update(text.slice(0, upTo));
        while (step.pending);
        drawn += upTo;
      }
      // the open block is lexed whole at every update (it is the open tail), but not again in growing windows
      assert.ok(lexed <= drawn * 1.1 + deltas * BUDGET, `${name} in ${deltas} deltas: lexed ${lexed} for ${drawn}`);
      const last = stream.update(text);
      assert.equal(last.list ? listHtml(last.list) : last.tail, markdownToHtml(text));
    }
  }
});

test("finished blocks are rendered once: the HTML kept adds up to the reply without repeats", () => {
  const text = longReply(20_000);
  const shown = streamed(text, randomCuts(text.length, 200));
  assert.ok(shown.finished.length > 50, `${shown.finished.length} finished pieces`);
  assert.equal(shown.steps.filter((step) => step.reset).length, 0);
  assert.equal(shown.finished.join(""), markdownToHtml(shown.stream.done));
});

test("a link reference definition makes the message render whole, so earlier links resolve", () => {
  const text = "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n\nEnd.";
  const shown = streamed(text, randomCuts(text.length, 20));
  assert.equal(shown.html(), markdownToHtml(text));
  assert.ok(shown.html().includes('href="https://example.com/docs"'));
  assert.equal(shown.stream.whole, true);
});

test("raw HTML makes the message render whole, so an unclosed tag wraps what follows as in a whole render", () => {
  const text = "Intro.\n\n<details>\n\nHidden **part**.\n\n</details>\n\nAfter.";
  const shown = streamed(text, randomCuts(text.length, 20));
  assert.equal(shown.html(), markdownToHtml(text));
  assert.equal(shown.stream.whole, true);
  assert.equal(shown.finished.length, 0);
});

test("void tags like <br> in a table keep the message incremental, with the HTML of a whole render", () => {
  const text = "Intro.\n\n| a | b |\n|---|---|\n| one<br>two | <img src=x> |\n\nAfter.<br/>\n\nEnd.";
  const shown = streamed(text, randomCuts(text.length, 20));
  assert.equal(shown.html(), markdownToHtml(text));
  assert.equal(shown.stream.whole, false);
  assert.ok(shown.finished.length > 0);
});

test("an open display-math paragraph keeps later blocks open until the math closes", () => {
  const open = "Before.\n\n$$\na = b\n\nc = d\n\nafter";
  const shown = new Shown().update(open);
  assert.equal(shown.stream.done, "Before.\n\n");
  const closed = `${open}\n$$\n\nLast.`;
  assert.equal(shown.update(closed).html(), markdownToHtml(closed));
});

test("a text that rewrites what was finished starts over from the new text", () => {
  const shown = new Shown().update("One.\n\nTwo.\n\nThree");
  assert.equal(shown.stream.done, "One.\n\nTwo.\n\n");
  shown.update("Other.\n\nText");
  assert.equal(shown.steps[1].reset, true);
  assert.equal(shown.html(), markdownToHtml("Other.\n\nText"));
});

test("Windows line endings (which the lexer rewrites) fall back to whole renders with the same HTML", () => {
  const text = "Line one.\r\n\r\nLine two.\r\n\r\n- a\r\n- b\r\n";
  const shown = streamed(text, randomCuts(text.length, 10));
  assert.equal(shown.html(), markdownToHtml(text));
  assert.equal(shown.stream.whole, true);
});

test("a whole reply arriving in one delta is drawn over several updates of bounded size", () => {
  const text = longReply(80_000);
  const { rendered, shown } = renderedPerUpdate(text, [text.length]);
  assert.ok(rendered.length >= text.length / BUDGET, `${rendered.length} updates`);
  assert.ok(Math.max(...rendered) <= BUDGET + 1_000, `rendered up to ${Math.max(...rendered)}`);
  assert.equal(shown.html(), markdownToHtml(text));
});

test("a block longer than the budget is drawn whole in one update rather than left waiting", () => {
  const code = `\`\`\`python\n${"x = 1\n".repeat(BUDGET / 3)}\`\`\`\n\n`;
  const text = `Intro.\n\n${code}After.`;
  const shown = new Shown().update(text);
  assert.equal(shown.steps.length, 2); // "Intro." within the budget, then the whole code block
  assert.equal(shown.html(), markdownToHtml(text));
});

// ------------------------------------------------------------------------------------- a long open code block

/** Python code of about `size` characters: functions, comments, strings, one multi-line docstring each. */
function pythonCode(/** @type {number} */ size) {
  const parts = [];
  for (let n = 1; parts.join("").length < size; n += 1) {
    parts.push(`def step_${n}(frame, scale=${n}):\n    """Scale and\n    summarise ${n}."""\n` +
      `    # the ${n}th step <b>&amp;</b>\n    result = frame.assign(value=frame['value'] * scale)\n` +
      `    return result.groupby("key").agg(['mean', 'max'])\n\n`);
  }
  return parts.join("");
}

/** The text of highlighted HTML (tags dropped, entities decoded). @param {string} html */
function textOf(html) {
  return html.replace(/<[^>]*>/g, "").replace(/&(#(\d+)|#x([0-9a-f]+)|amp|lt|gt|quot|apos);/gi,
    (_, __, dec, hex) => (dec ? String.fromCharCode(Number(dec)) : hex ? String.fromCharCode(parseInt(hex, 16))
      : { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'" }[_.toLowerCase()] ?? _));
}

/** Stream `text` in `step`-character deltas; per update, the characters highlighted and rendered. */
function streamCounting(/** @type {string} */ text, /** @type {number} */ step) {
  const highlighted = /** @type {number[]} */ ([]);
  const rendered = /** @type {number[]} */ ([]);
  const shown = new Shown((markdown) => {
    rendered[rendered.length - 1] += markdown.length;
    return markdownToHtml(markdown);
  }, BUDGET, (source, lang) => {
    highlighted[highlighted.length - 1] += source.length;
    return highlightPiece(source, lang);
  });
  const update = shown.stream.update.bind(shown.stream);
  shown.stream.update = (/** @type {string} */ t) => {
    highlighted.push(0);
    rendered.push(0);
    return update(t);
  };
  const codes = [];
  for (let cut = step; cut < text.length + step; cut += step) {
    shown.update(text.slice(0, Math.min(cut, text.length)));
    codes.push(shown.steps[shown.steps.length - 1].code);
  }
  return { shown, highlighted, rendered, codes };
}

const CODE = pythonCode(40_000);
const WITH_CODE = `Intro paragraph.\n\n\`\`\`python\n${CODE}\`\`\`\n\nAfter the code.\n`;

test("a long open code block is highlighted a bounded amount per delta however long it grows", () => {
  const { highlighted, rendered, codes } = streamCounting(WITH_CODE, 80);
  const open = codes.filter(Boolean);
  assert.ok(open.length > 400, `${open.length} updates drew the block in pieces`);
  assert.ok(open[open.length - 1].pieces.length > 15, "the block's lines became pieces");
  // each delta highlights at most a piece's worth of whole lines once, and the open rest again
  assert.ok(Math.max(...highlighted) <= 2 * (CODE_PIECE + 200), `highlighted up to ${Math.max(...highlighted)}`);
  // the open block never goes through the markdown renderer while it streams
  const whileOpen = rendered.filter((_, i) => codes[i] !== undefined);
  assert.ok(Math.max(...whileOpen) < 100, `rendered up to ${Math.max(...whileOpen)} while the block was open`);
});

test("an open code block's pieces and open rest hold exactly the code streamed so far, highlighted", () => {
  const { codes } = streamCounting(WITH_CODE, 997);
  for (const code of codes.filter(Boolean)) {
    assert.equal(textOf(code.pieces.join("") + code.open), code.source);
    assert.ok(CODE.startsWith(code.source));
  }
  const last = codes.filter(Boolean).pop();
  assert.match(last.pieces.join(""), /<span class="hljs-keyword">def<\/span>/);
});

test("once its fence closes, a code block drawn in pieces ends with the HTML of one whole render", () => {
  const { shown, codes } = streamCounting(WITH_CODE, 80);
  assert.ok(codes.some(Boolean));
  assert.equal(codes[codes.length - 1], undefined);
  assert.equal(shown.html(), markdownToHtml(WITH_CODE));
});

test("a message that stops streaming inside an open code block renders it whole, as a full render does", () => {
  const text = `Intro.\n\n\`\`\`python\n${CODE.slice(0, 5_000)}`;
  const shown = new Shown().update(text);
  assert.ok(shown.steps[shown.steps.length - 1].code, "drawn in pieces while live");
  shown.stream.live = false;
  assert.equal(shown.update(text).html(), markdownToHtml(text));
  assert.equal(shown.steps[shown.steps.length - 1].code, undefined);
});

test("only a long open fence at the top level is drawn in pieces: short, closed, indented or quoted ones are not", () => {
  const long = CODE.slice(0, CODE.indexOf("\n", OPEN_CODE_MIN + 500) + 1);
  const cases = {
    short: `\`\`\`python\n${CODE.slice(0, OPEN_CODE_MIN - 100)}`,
    closed: `\`\`\`python\n${long}\`\`\`\n`,
    "closed by a longer fence": `\`\`\`python\n${long}\`\`\`\`\`\n`,
    "in a list item": `- item\n\n  \`\`\`python\n${long.replace(/^/gm, "  ")}`,
    "in a quote": `> \`\`\`python\n${long.replace(/^/gm, "> ")}`,
    "backticks in the info string": `\`\`\`py\`x\n${long}`,
  };
  for (const [name, text] of Object.entries(cases)) {
    const shown = new Shown().update(text);
    assert.equal(shown.steps[shown.steps.length - 1].code, undefined, name);
    assert.equal(shown.html(), markdownToHtml(text), name);
  }
  const tilde = new Shown().update(`~~~\n${long}`);
  assert.ok(tilde.steps[0].code, "a ~~~ fence without a language");
  assert.equal(textOf(tilde.steps[0].code.open), long);
});

test("a reply arriving faster than it is drawn skips blocks far from its end, and drawn in place they equal one render", () => {
  const text = longReply(80_000);
  for (const deltas of [1, 8, 40]) {
    const shown = streamed(text, randomCuts(text.length, deltas, deltas), 1_200);
    const skipped = shown.finished.filter((part) => typeof part !== "string");
    assert.ok(skipped.length > 0, `${deltas} deltas: nothing skipped`);
    for (const run of skipped) assert.equal(run.tokens.map((token) => token.raw).join(""), run.text);
    assert.equal(shown.html(), markdownToHtml(text), `${deltas} deltas`);
  }
});

test("each tricky sample with skipping, in random deltas, equals one whole render once the skipped blocks are drawn", () => {
  for (const [name, sample] of Object.entries(TRICKY)) {
    const text = String(sample).repeat(4);
    for (const ahead of [0, 5, 40]) {
      const shown = streamed(text, randomCuts(text.length, 12, ahead + 3), ahead);
      assert.equal(shown.html(), markdownToHtml(text), `${name}, ahead ${ahead}`);
    }
  }
});

test("when the drawing falls behind, what an update renders stays near `ahead`, however far behind it is", () => {
  const text = longReply(80_000);
  const rendered = /** @type {number[]} */ ([]);
  const shown = new Shown((markdown, tokens) => {
    rendered[rendered.length - 1] += markdown.length;
    return markdownHtml(markdown, tokens);
  }, BUDGET, highlightPiece, 1_200);
  const update = shown.stream.update.bind(shown.stream);
  shown.stream.update = (/** @type {string} */ t) => {
    rendered.push(0);
    return update(t);
  };
  const largestBlock = Math.max(...markdownTokens.lex(text).map((token) => token.raw.length));
  shown.update(text.slice(0, 2_000));
  rendered.length = 0;
  shown.update(text); // 78 KB arrive at once
  const total = rendered.reduce((sum, n) => sum + n, 0);
  assert.ok(total <= 1_200 + 2 * largestBlock, `rendered ${total} characters of a 78 KB delta`);
  assert.equal(shown.html(), markdownToHtml(text));
});

test("a stream that keeps up (small deltas) skips nothing", () => {
  const text = longReply(20_000);
  const shown = streamed(text, randomCuts(text.length, 400), 1_200);
  assert.equal(shown.finished.filter((part) => typeof part !== "string").length, 0);
  assert.equal(shown.html(), markdownToHtml(text));
});

test("a code block drawn in pieces gives what a whole highlighting gives: its pieces, then the rest highlighted", () => {
  for (const [lines, step] of [[400, 97], [1_200, 500], [3_000, 2_000]]) {
    const code = pythonCode(lines * 60);
    const shown = new Shown();
    const text = `\`\`\`python\n${code}\`\`\`\n\nAfter.\n`;
    for (let cut = step; cut < text.length + step; cut += step) shown.update(text.slice(0, Math.min(cut, text.length)));
    const known = shown.stream.highlighted;
    assert.ok(known && known.source.length > 0, `${lines} lines: no pieces`);
    const source = code.replace(/\n$/, "");
    assert.ok(source.startsWith(known.source));
    assert.equal(known.html + highlightPiece(source.slice(known.source.length), "python").html,
      highlightPiece(source, "python").html, `${lines} lines in steps of ${step}`);
  }
});

/**
 * A long list of `count` items of every kind of content, deterministic: inline markup, nested lists, a continued
 * paragraph (which makes the list loose), fenced code, task boxes; `marker` "-", "*", "1." or "3)".
 * @param {number} count @param {string} marker @param {number} seed
 */
function longList(count, marker, seed) {
  let state = seed;
  const items = [];
  for (let n = 0; n < count; n += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const kind = state % 13;
    const bullet = /^\d/.test(marker) ? `${n + Number.parseInt(marker, 10)}${marker.slice(-1)}` : marker;
    const pad = " ".repeat(bullet.length + 1);
    let item = `${bullet} item ${n} with **bold**, \`code\`, $x_${n}$ and [a link](https://example.com/${n})\n`;
    if (kind === 1) item += `${pad}- nested a\n${pad}- nested b\n`;
    if (kind === 2) item += `\n${pad}continued paragraph of item ${n}\n`;
    if (kind === 3) item += `${pad}\`\`\`python\n${pad}def f_${n}(x):\n${pad}    return x * ${n}\n${pad}\`\`\`\n`;
    if (kind === 4) item = `${bullet} [${n % 2 ? "x" : " "}] task ${n}\n`;
    if (kind === 5) item += `${pad}lazy continuation line\n`;
    items.push(item);
  }
  return items.join("");
}

test("a long open list streamed in random deltas shows the HTML of a whole render after every delta", () => {
  for (const [seed, marker] of /** @type {const} */ ([[1, "-"], [2, "*"], [3, "1."], [4, "3)"], [5, "-"]])) {
    const text = `Intro.\n\n${longList(90, marker, seed)}\nAfter the list.\n`;
    const shown = new Shown();
    for (const cut of randomCuts(text.length, 300, seed)) {
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `${marker} seed ${seed}, ${cut} characters`);
    }
    assert.ok(shown.steps.some((step) => step.list && step.list.pieces.length > 1), `${marker}: drawn item by item`);
  }
});

test("a long open list's (table's) finished items are rendered once: each update renders its newest and its last", () => {
  const tight = longList(400, "-", 9).replace(/\n\n +continued[^\n]*\n/g, "\n"); // tight all along
  for (const text of [tight, longTable(600, 9)]) {
    let rendered = 0;
    let most = 0;
    const stream = new MarkdownStream();
    for (let cut = 60; cut < text.length + 60; cut += 60) {
      const step = stream.update(text.slice(0, Math.min(cut, text.length)));
      if (!step.list) continue;
      const size = step.list.open.length + (step.list.pieces.length > rendered ? step.list.pieces.at(-1).length : 0);
      if (rendered > 0) most = Math.max(most, size); // the first piece holds the items before the list grew long
      rendered = step.list.pieces.length;
    }
    assert.ok(text.length > 10 * OPEN_LIST_MIN);
    assert.ok(rendered > 100, `${rendered} pieces`);
    assert.ok(most < 2_000, `up to ${most} characters of HTML rendered in one update`);
  }
});

test("a list that turns loose, or whose items the next text changes, is drawn as a whole render draws it", () => {
  const tight = longList(60, "-", 3).replace(/\n\n +continued[^\n]*\n/g, "\n");
  for (const end of ["\n- loose now\n", "\n\n  continued last item\n", "  - nested under the last\n", "\n\n# After\n",
    "* another marker\n- back\n", "1. ordered\n2. on\n", "+ plus\n", "lazy line\n- next\n", "   - indented\n"]) {
    const shown = new Shown().update(tight);
    assert.ok(shown.steps[shown.steps.length - 1].list, "drawn item by item while open");
    assert.equal(shown.update(tight + end).html(), markdownToHtml(tight + end), JSON.stringify(end));
  }
});

/**
 * A long table of `count` rows of every kind of cell, deterministic: inline markup, escaped pipes, pipes in code,
 * empty cells, entities, rows with fewer or more cells than the head, rows without outer pipes.
 * @param {number} count @param {number} seed
 */
function longTable(count, seed) {
  let state = seed;
  const rows = ["| n | name | value | note |\n", "|---:|:---|:---:|---|\n"];
  for (let n = 0; n < count; n += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const kind = state % 11;
    let row = `| ${n} | name ${n} with **bold** | ${n * 7} | a [link](https://example.com/${n}) and $x_${n}$ |\n`;
    if (kind === 1) row = `| ${n} | \`a \\| b\` | escaped \\| pipe | *em* |\n`;
    if (kind === 2) row = `| ${n} |  |  | |\n`;
    if (kind === 3) row = `| ${n} | short |\n`;
    if (kind === 4) row = `| ${n} | a | b | c | extra | more |\n`;
    if (kind === 5) row = `${n} | no outer pipes | ${n} | ~~struck~~\n`;
    if (kind === 6) row = `| ${n} | &lt;br&gt; escaped | ${n} | &amp; entity |\n`;
    rows.push(row);
  }
  return rows.join("");
}

test("a long open table streamed in random deltas shows the HTML of a whole render after every delta", () => {
  // small deltas, and a few big ones (more than a table's update lexes on its own)
  for (const [seed, rows, cuts] of [[1, 120, 300], [2, 120, 300], [3, 120, 300], [4, 120, 300], [5, 900, 12]]) {
    const text = `Intro.\n\n${longTable(rows, seed)}\nAfter the table.\n`;
    const shown = new Shown();
    for (const cut of randomCuts(text.length, cuts, seed)) {
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `seed ${seed}, ${cut} characters`);
    }
    assert.ok(shown.steps.some((step) => step.list && step.list.pieces.length > 1), `seed ${seed}: drawn row by row`);
  }
});

test("a long table that ends, or whose last row the next text changes, is drawn as a whole render draws it", () => {
  const table = longTable(80, 5);
  for (const end of ["\nAfter.\n", "a line without pipes\n", "> a quote\n", "# A heading\n", "```\ncode\n```\n",
    "- a list\n", "| last | row |", "    indented\n", "***\n", "\n\n| a | b |\n|---|---|\n| c | d |\n"]) {
    const shown = new Shown().update(table);
    assert.ok(shown.steps[shown.steps.length - 1].list, "drawn row by row while open");
    assert.equal(shown.update(table + end).html(), markdownToHtml(table + end), JSON.stringify(end));
  }
});

test("a long open table's update lexes what arrived after its finished rows, not the whole table again", () => {
  const text = `Intro.\n\n${longTable(800, 11)}`;
  let lexed = 0;
  const counting = { lex: (/** @type {string} */ source) => ((lexed += source.length), markdownTokens.lex(source)) };
  const stream = new MarkdownStream(markdownHtml, counting);
  let most = 0;
  for (let cut = 80; cut < text.length + 80; cut += 80) {
    lexed = 0;
    const step = stream.update(text.slice(0, Math.min(cut, text.length)));
    if (cut > 4 * OPEN_LIST_MIN) {
      assert.ok(step.list, `${cut} characters: drawn row by row`);
      most = Math.max(most, lexed);
    }
  }
  assert.ok(text.length > 20 * OPEN_LIST_MIN);
  assert.ok(most < 600, `up to ${most} characters lexed in one update`);
});

test("a long open list or table that ends is finished where it is drawn: only its items after those drawn render", () => {
  const blocks = { list: longList(200, "-", 7).replace(/\n\n +continued[^\n]*\n/g, "\n"), table: longTable(200, 7) };
  for (const [kind, block] of Object.entries(blocks)) {
    const stream = new MarkdownStream();
    let last = null;
    for (let cut = 50; cut < block.length; cut += 50) last = stream.update(block.slice(0, cut)).list ?? last;
    const drawn = last?.pieces.length ?? 0;
    const text = `${block}\nAfter it.\n\nMore.`;
    const step = stream.update(text);
    assert.equal(step.closed?.id, last?.id, `${kind}: the list drawn is the one closed`);
    assert.ok(step.closed && step.closed.pieces.length <= drawn + 1, `${kind}: its new items only`);
    assert.equal(step.finished.join(""), markdownToHtml("After it.\n\n"), kind);
    const shown = new Shown();
    for (let cut = 50; cut < block.length; cut += 50) shown.update(block.slice(0, cut));
    assert.equal(shown.update(text).html(), markdownToHtml(text), kind);
  }
});

test("a long open list's update lexes what arrived after its finished items, not the whole list again", () => {
  for (const marker of ["-", "1."]) {
    const text = `Intro.\n\n${longList(500, marker, 13).replace(/\n\n +continued[^\n]*\n/g, "\n")}`;
    let lexed = 0;
    const counting = { lex: (/** @type {string} */ source) => ((lexed += source.length), markdownTokens.lex(source)) };
    const stream = new MarkdownStream(markdownHtml, counting);
    const shown = new Shown();
    let most = 0;
    let steps = 0;
    let byItem = 0;
    for (let cut = 80; cut < text.length + 80; cut += 80) {
      lexed = 0;
      const prefix = text.slice(0, Math.min(cut, text.length));
      const step = stream.update(prefix);
      // an ordered list's next number without its "." yet is a paragraph after the list: rendered whole then
      if (cut > 4 * OPEN_LIST_MIN && step.list) most = Math.max(most, lexed);
      if (cut > 4 * OPEN_LIST_MIN) [steps, byItem] = [steps + 1, byItem + (step.list ? 1 : 0)];
      if (cut % 4000 === 0) assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `${marker} ${cut}`);
    }
    assert.ok(text.length > 20 * OPEN_LIST_MIN);
    assert.ok(byItem > 0.9 * steps, `${marker}: ${byItem} of ${steps} updates drew it item by item`);
    assert.ok(most < 1_000, `${marker}: up to ${most} characters lexed in one update`);
  }
});

test("a long open list's, table's or paragraph's update charges as its cost only what the next does again", () => {
  // the message list holds a tail's redraws back by this cost: the new items' lexing is done once, not again
  const blocks = {
    list: longList(900, "-", 5).replace(/\n\n +continued[^\n]*\n/g, "\n"),
    table: longTable(900, 5),
    paragraph: longParagraph(6_000, 5, 1e9),
  };
  const realNow = performance.now;
  let clock = 0;
  performance.now = () => clock;
  try {
    for (const [kind, block] of Object.entries(blocks)) {
      // lexing costs a microsecond a character
      const timed = { lex: (/** @type {string} */ source) => ((clock += source.length / 1000), markdownTokens.lex(source)) };
      const stream = new MarkdownStream(markdownHtml, timed);
      for (let cut = 100; cut <= 3 * OPEN_LIST_MIN; cut += 100) stream.update(block.slice(0, cut));
      const before = clock;
      const step = stream.update(block.slice(0, 3 * OPEN_LIST_MIN + 20_000));
      assert.ok(step.list && !step.pending, `${kind}: drawn a piece at a time`);
      assert.ok(clock - before >= 20, `${kind}: lexing what arrived took ${clock - before} ms`);
      assert.ok(stream.tailCost < 1, `${kind}: charged ${stream.tailCost} ms`);
    }
  } finally {
    performance.now = realNow;
  }
});

/**
 * A long paragraph of `count` words of every kind of inline content, deterministic: emphasis, code spans, links, math,
 * strikethrough, escapes, entities, autolinks, line breaks, prices, snake_case, and, one word in `rare`, a delimiter left
 * open (some closed later, some never). @param {number} count @param {number} seed @param {number} rare
 */
function longParagraph(count, seed, rare) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  const kinds = ["word", "*em*", "**strong**", "`code`", "[a link](https://example.com/x)", "$x_1$", "~~struck~~",
    "\\*escaped", "&amp;", "www.example.com", "mail@example.com", "\n", "  \n", "\\\n", "a * b", "snake_case",
    "![img](a.png)", "2 < 3", "50%", "Ünïcode", "中文", "<https://example.com>", "__under__", "_em_", "***both***",
    "(parens)", "\"quoted\"", "costs $5\n", "x_1 and y_2", "a ** b", "a ~ b", "end_", "数据。分析", "句子，**粗体**。然后",
    "中文www.example.com", "。`代码`、", "$y$。公式", "日本語です。カタカナ", "한국어。문장"];
  const opening = ["*", "_", "`", "[", "]", "$", "~", "<", "**", "[ref]", "$$", "*a", "_a", "~~a", "<b", "``"];
  const words = [];
  for (let n = 0; n < count; n += 1) {
    const word = next() % rare === 0 ? opening[next() % opening.length] : kinds[next() % kinds.length];
    words.push(n % 3 ? `w${n}` : word);
  }
  return words.join(" ").replace(/ \n /g, "\n");
}

test("a long open paragraph streamed in random deltas shows the HTML of a whole render after every delta", () => {
  for (const [seed, rare] of [[1, 300], [2, 300], [3, 100], [4, 30], [5, 8], [6, 300], [7, 60], [8, 300]]) {
    const text = `Intro.\n\n${longParagraph(1_500, seed, rare)}\n\nAfter the paragraph.\n`;
    const shown = new Shown();
    for (const cut of randomCuts(text.length, seed === 8 ? 12 : 250, seed)) {
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `seed ${seed}, ${cut} characters`);
    }
    if (rare >= 300) {
      assert.ok(shown.steps.some((step) => step.list && step.list.pieces.length > 2), `seed ${seed}: drawn in pieces`);
    }
  }
});

test("a paragraph is not cut after a delimiter that text to come may still close: it draws as a whole render", () => {
  const filler = (/** @type {number} */ n) => Array.from({ length: 260 }, (_, i) => `word${n}x${i}`).join(" ");
  const pairs = [["`", "`"], ["``a", "b``"], ["[a", "](https://example.com)"], ["*a", "b*"], ["**a", "b**"],
    ["_a", "b_"], ["~~a", "b~~"], ["~a", "b~"], ["$a", "b$"], ["<span", "title=x>"], ["![a", "](a.png)"],
    ["***a", "b***"], ["__a", "b__"], ["[a", "] [b]"], ["a*", "*b"]];
  for (const [opener, closer] of pairs) {
    const text = `${filler(1)} ${opener} ${filler(2)} ${closer} ${filler(3)}\n\nAfter.\n`;
    for (const seed of [1, 2]) {
      const shown = new Shown();
      for (const cut of randomCuts(text.length, 120, seed)) {
        const prefix = text.slice(0, cut);
        assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `${opener} … ${closer}, ${cut} characters`);
      }
    }
  }
  // a `$` is not math past its line's end: the cuts go on after the line break
  const text = `${filler(1)} costs $5\n${filler(2)} ${filler(3)}`;
  const cuts = /** @type {any} */ (new MarkdownStream().update(text).list)?.keys ?? [];
  assert.ok(cuts.length >= 4 && cuts.slice(0, 3).join("").includes("$5"), "cut after the line with the $");
});

test("a long paragraph that ends, turns into a heading or a table's head, or is interrupted draws as a whole render", () => {
  const paragraph = longParagraph(900, 11, 1_000).replace(/\n$/, "");
  for (const end of ["\n\nAfter.\n", "\n===\n", "\n---\n", "\n| a | b |\n|---|---|\n| c | d |\n", "\n# Heading\n",
    "\n- item\n", "\n> quote\n", "\n```\ncode\n```\n", "\n    indented\n", "\n***\n", "\n1. one\n", "\n<div>\n",
    "\nlazy line\n", "  \nhard break\n", "\n$$\nx\n$$\n", "\n[def]: https://example.com\n"]) {
    const shown = new Shown().update(paragraph);
    assert.ok(shown.steps[shown.steps.length - 1].list, "drawn in pieces while open");
    for (const cut of randomCuts(end.length, Math.min(4, end.length), 3)) {
      const text = paragraph + end.slice(0, cut);
      assert.equal(shown.update(text).html(), markdownToHtml(text), JSON.stringify(end.slice(0, cut)));
    }
  }
});

/**
 * Stream `text` (a long open block after a short intro) 80 characters at a time: every update once the block is long
 * draws it in pieces; the most characters one update lexed or rendered (the open item and a new piece).
 * @param {string} text @returns {number}
 */
function mostWorkPerUpdate(text) {
  let lexed = 0;
  const counting = { lex: (/** @type {string} */ source) => ((lexed += source.length), markdownTokens.lex(source)) };
  const stream = new MarkdownStream(markdownHtml, counting);
  let most = 0;
  let rendered = 0;
  for (let cut = 80; cut < text.length + 80; cut += 80) {
    lexed = 0;
    const step = stream.update(text.slice(0, Math.min(cut, text.length)));
    if (cut < 4 * OPEN_LIST_MIN) continue;
    assert.ok(step.list, `${cut} characters: drawn in pieces`);
    const size = step.list.open.length + (step.list.pieces.length > rendered ? step.list.pieces.at(-1).length : 0);
    most = Math.max(most, lexed, size);
    rendered = step.list.pieces.length;
  }
  assert.ok(text.length > 20 * OPEN_LIST_MIN);
  return most;
}

test("a long open paragraph's update lexes what arrived after its finished pieces, and renders only its last", () => {
  const most = mostWorkPerUpdate(`Intro.\n\n${longParagraph(14_000, 17, 100_000)}`);
  assert.ok(most < 5 * PARAGRAPH_PIECE, `up to ${most} characters lexed or rendered in one update`);
});

test("a long Chinese paragraph (no spaces) streams in pieces cut after its punctuation and renders as one render", () => {
  const sentence = (/** @type {number} */ n) => `第${n}句话说明了**数据${n}**的处理方法，并用\`代码${n}\`和[链接](https://example.com/${n})举例。`;
  const text = `介绍。\n\n${Array.from({ length: 400 }, (_, n) => sentence(n)).join("")}\n\n结束。\n`;
  const shown = new Shown();
  for (const cut of randomCuts(text.length, 200, 5)) {
    const prefix = text.slice(0, cut);
    assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `${cut} characters`);
  }
  const pieces = shown.steps.map((step) => /** @type {any} */ (step.list)?.keys.length ?? 0);
  assert.ok(Math.max(...pieces) > 10, `${Math.max(...pieces)} pieces`);
});

/**
 * A long blockquote of `count` blocks: paragraphs (some several lines, some with a lazy line without its marker),
 * items of lists, code, a nested quote, headings, tables, math, rules, blank lines with and without their marker.
 * @param {number} count @param {number} seed
 */
function longQuote(count, seed) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  const kinds = [
    (/** @type {number} */ n) => `> Quoted paragraph ${n} with *emphasis*, \`code ${n}\` and a [link](https://example.com/${n}).\n>\n`,
    (n) => `> First line ${n}\n> second line of the same paragraph.\n>\n`,
    (n) => `> A paragraph ${n} whose next line is lazy\ncontinued without its marker.\n>\n`,
    (n) => `> - item ${n}\n> - another item\n>\n`,
    (n) => `> 1. step ${n}\n> 2. next step\n>\n`,
    (n) => `> \`\`\`python\n> x = ${n}\n>\n> y = x * 2\n> \`\`\`\n>\n`,
    (n) => `> > nested quote ${n}\n> > goes on\n>\n`,
    (n) => `> ## Heading ${n}\n>\n`,
    (n) => `> | a | b |\n> |---|---|\n> | ${n} | ${n * 2} |\n>\n`,
    (n) => `> Math $x_${n}^2$ inline and display:\n>\n> $$\n> y = ${n}\n> $$\n>\n`,
    (n) => `> Setext ${n}\n> ---\n>\n`,
    (n) => `> ***\n> After a rule ${n}.\n>\n`,
    (n) => `> Paragraph ${n} then an unmarked blank line.\n\n`,
    (n) => `> Words ${n} ending without a blank line.\n`,
  ];
  let text = "";
  for (let n = 0; n < count; n += 1) text += kinds[next() % kinds.length](n);
  return text;
}

test("a long open blockquote streamed in random deltas shows the HTML of a whole render after every delta", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const text = `Intro.\n\n${longQuote(160, seed)}\nAfter the quote.\n`;
    const shown = new Shown();
    for (const cut of randomCuts(text.length, 250, seed)) {
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `seed ${seed}, ${cut} characters`);
    }
  }
});

test("a long blockquote of paragraphs streams a block at a time and ends with the HTML of one whole render", () => {
  const quote = Array.from({ length: 400 }, (_, n) => `> Quoted line ${n} with *emphasis* and \`code ${n}\`.\n>\n`).join("");
  const text = `Intro.\n\n${quote}\nAfter.\n`;
  const shown = new Shown();
  for (const cut of randomCuts(text.length, 300, 5)) {
    const prefix = text.slice(0, cut);
    assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `${cut} characters`);
  }
  const pieces = shown.steps.map((step) => (step.list?.inside === "blockquote" ? step.list.pieces.length : 0));
  assert.ok(Math.max(...pieces) > 20, `${Math.max(...pieces)} pieces`);
});

test("a long open blockquote's update lexes what arrived after its finished blocks, and renders only its last", () => {
  const quote = Array.from({ length: 1_400 }, (_, n) => `> Quoted line ${n} with *emphasis*.\n>\n`).join("");
  const most = mostWorkPerUpdate(`Intro.\n\n${quote}`);
  assert.ok(most < 1_000, `up to ${most} characters lexed or rendered in one update`);
});

test("a long blockquote that ends, turns lazy or is interrupted draws as a whole render draws it", () => {
  // one quote (its blank lines all marked), open at its end
  const quote = longQuote(120, 21).replace(/\n\n(?=>)/g, "\n>\n").replace(/\n+>?\n*$/, "\n");
  for (const end of ["\nAfter.\n", "\n\nAfter.\n", "lazy line\n", "> more\n", "> > deeper\n", "# Heading\n",
    "- item\n", "---\n", "===\n", "```\ncode\n```\n", "<div>\n", "> [def]: https://example.com\n", ">\n>\n> x\n",
    "    indented\n", "| a | b |\n|---|---|\n", "> $$\n> x\n", "\n> new quote\n"]) {
    const shown = new Shown().update(quote);
    assert.ok(shown.steps[shown.steps.length - 1].list, "drawn in pieces while open");
    for (const cut of randomCuts(end.length, Math.min(4, end.length), 3)) {
      const text = quote + end.slice(0, cut);
      assert.equal(shown.update(text).html(), markdownToHtml(text), JSON.stringify(end.slice(0, cut)));
    }
  }
});

/** Lines a quote may hold or be broken by: lazy lines, markers without a space, nested quotes, fences, setext
 * underlines, rules, tables, math, raw HTML, definitions, list markers that may start a list or continue a paragraph. */
const QUOTE_LINES = [">", "", "lazy continuation", "> - item", "> 1. one", "> 2) two", "> ```", "> ```python", "> x = 1",
  "> > nested", "> > > deeper", "> # head", "> ---", "> ===", "> ***", "> | a | b |", "> |---|---|", "> | 1 | 2 |", "> $$",
  "> x^2", "> <div>", ">     indented code", ">  - sub item", ">    continued", "-", "--", "1.", "> [ref]: https://e.com",
  "> [ref]", "> text with `code", "> closing` here", "> **bold start", "> end bold**", "> ~~~", "    plain indented",
  "# top heading", "> \\", "> a  ", "> - [ ] task", ">> tight nested", ">text no space", "  > indented marker", "=", "- ",
  "*", "+ x", "1)", " 2. y", "___", "* * *", "=x", "  - z", "10.", "> =", "> *", "| c |", "|---|"];

test("a long quote broken by hostile lines, streamed in random deltas, shows a whole render's HTML after every delta", () => {
  let drawnInPieces = 0;
  for (let seed = 1; seed <= 30; seed += 1) {
    let state = seed;
    const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    const lines = ["Intro.", ""];
    for (let i = 0; i < 220; i += 1) {
      const hostile = random() < 0.2;
      lines.push(!hostile ? `> Line ${i} with words to make the quote long enough.`
        : random() < 0.5 ? ">" : QUOTE_LINES[Math.floor(random() * QUOTE_LINES.length)]);
    }
    const text = `${lines.join("\n")}\n`;
    const shown = new Shown();
    for (let cut = 0; cut < text.length;) {
      cut = Math.min(text.length, cut + 1 + Math.floor(random() * (random() < 0.2 ? 400 : 40)));
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `seed ${seed}, ${cut} characters`);
    }
    drawnInPieces += shown.steps.filter((step) => step.list?.inside === "blockquote" && step.list.pieces.length > 1)
      .length;
  }
  assert.ok(drawnInPieces > 150, `${drawnInPieces} updates drew a quote in pieces`);
});

test("a reply of lines marked reads in surprising ways, streamed in random deltas, shows a whole render's HTML", () => {
  // rules and items with indented markers that an underline later takes into a paragraph's heading, lazy lines,
  // unclosed fences and math, definitions (the QUOTE_LINES, quoted or not)
  for (let seed = 1; seed <= 30; seed += 1) {
    let state = seed;
    const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296;
    const lines = ["Intro.", ""];
    for (let i = 0; i < 220; i += 1) {
      lines.push(random() < 0.5 ? `Line ${i} with words to make the text long enough.`
        : random() < 0.3 ? "" : QUOTE_LINES[Math.floor(random() * QUOTE_LINES.length)].replace(/^> ?/,
          random() < 0.5 ? "" : "> "));
    }
    const text = `${lines.join("\n")}\n`;
    const shown = new Shown();
    shown.stream.live = false; // an open code block drawn in pieces has tests of its own
    for (let cut = 0; cut < text.length;) {
      cut = Math.min(text.length, cut + 1 + Math.floor(random() * (random() < 0.2 ? 400 : 40)));
      const prefix = text.slice(0, cut);
      assert.equal(shown.update(prefix).html(), markdownToHtml(prefix), `seed ${seed}, ${cut} characters`);
    }
  }
});
