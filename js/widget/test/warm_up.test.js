// The renderer's warm-up (src/warm_up.js): the generated reply it streams takes every path a fast reply takes.
// Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { markdownHtml, markdownTokens } from "../src/markdown.js";
import { WARM_UP_CHARS, warmUpReply, warmUpSteps } from "../src/warm_up.js";

test("the warm-up reply holds every kind of block the renderer draws, inline math and highlighted code", () => {
  const text = warmUpReply();
  assert.ok(text.length >= WARM_UP_CHARS && text.length < WARM_UP_CHARS * 1.2, String(text.length));
  const kinds = new Set(markdownTokens.lex(text).map((token) => token.type));
  for (const kind of ["heading", "paragraph", "list", "table", "code", "blockquote", "blockKatex", "hr", "space"]) {
    assert.ok(kinds.has(kind), `no ${kind} in ${[...kinds]}`);
  }
  const html = markdownHtml(text);
  for (const part of ["<ol>", "<ul>", "<del>", "<strong>", "<em>", "<a href=", 'class="language-python"', "<math"]) {
    assert.ok(html.includes(part), `no ${part}`);
  }
});

test("streaming the warm-up reply skips blocks, draws open lists and code in pieces, and ends on the whole reply", () => {
  const seen = { skipped: 0, finished: 0, tail: 0, list: 0, code: 0 };
  let last = null;
  for (const step of warmUpSteps(markdownHtml)) {
    if (step.skipped) seen.skipped += 1;
    if (step.finished.length > 0) seen.finished += 1;
    if (step.tail) seen.tail += 1;
    if (step.list || step.closed) seen.list += 1;
    if (step.code) seen.code += 1;
    last = step;
  }
  for (const [path, count] of Object.entries(seen)) assert.ok(count > 0, `no step with ${path}: ${JSON.stringify(seen)}`);
  assert.equal(last?.pending, false);
});
