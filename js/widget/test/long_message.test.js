// A long message drawn from its end (src/long_message.js), against marked's whole render. Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { markdownToHtml } from "../src/markdown.js";
import { BackwardText } from "../src/long_message.js";
import { longReply, TRICKY } from "./markdown_samples.js";

/** The HTML drawn: each slice rendered on its own and put above what is drawn. */
function drawnBackward(text, slice) {
  const back = new BackwardText(text, undefined, slice);
  if (!back.usable) return null;
  let html = "";
  let slices = 0;
  while (back.pending) {
    html = markdownToHtml(back.next()) + html;
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
  assert.equal(new BackwardText("see [a]\n\n[a]: https://example.com\n").usable, false);
  assert.equal(new BackwardText("<div>\n\nx\n\n</div>\n").usable, false);
  assert.equal(new BackwardText("a<br>b\n\nc\n").usable, true);
});

test("the last slice is drawn first and every block exactly once", () => {
  const text = "# one\n\ntwo\n\nthree\n";
  const back = new BackwardText(text, undefined, 1);
  const slices = [];
  while (back.pending) slices.push(back.next());
  assert.equal(slices[0], "three\n");
  assert.equal(slices.at(-1), "# one\n\n");
  assert.equal([...slices].reverse().join(""), text);
});
