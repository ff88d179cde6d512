// Markdown for model output (src/markdown.js): marked and its KaTeX extension as configured there.
// Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { markdownToHtml } from "../src/markdown.js";

test("a `$` that opens no formula does not cut the text before the next formula: links before it stay whole", () => {
  for (const filler of ["", "x ".repeat(7), "word **bold** ".repeat(5)]) {
    const html = markdownToHtml(`see www.example.com and mail@example.com, ${filler}costs $5\nthen $y$ here`);
    assert.match(html, /<a href="http:\/\/www\.example\.com">www\.example\.com<\/a>/, filler);
    assert.match(html, /<a href="mailto:mail@example\.com">mail@example\.com<\/a>/, filler);
    assert.match(html, /costs \$5\nthen <span class="katex"><math/, filler);
  }
});
