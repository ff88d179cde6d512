import assert from "node:assert/strict";
import { test } from "node:test";

import { setLanguage } from "../src/i18n.js";
import { leftOutText, usageText } from "../src/usage.js";

setLanguage("en");

test("a reply's usage reads as tokens in and out", () => {
  assert.equal(usageText({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 }), "9 tokens in · 3 out");
});

test("a reply with only a total shows the total", () => {
  assert.equal(usageText({ total_tokens: 12 }), "12 tokens");
});

test("no usage, or counts that are not whole numbers, show nothing rather than zeros", () => {
  for (const usage of [undefined, null, {}, { prompt_tokens: "9", completion_tokens: 3 }, { total_tokens: -1 },
    { total_tokens: 1.5 }, { prompt_tokens: NaN, completion_tokens: 1 }]) {
    assert.equal(usageText(/** @type {any} */ (usage)), "", JSON.stringify(usage));
  }
});

test("the left-out note counts turns, singular and plural, and is empty when none were left out", () => {
  assert.equal(leftOutText(1), "1 older turn was not sent (it did not fit the context window)");
  assert.equal(leftOutText(3), "3 older turns were not sent (they did not fit the context window)");
  for (const turns of [undefined, null, 0, -2, 1.5, "2"]) assert.equal(leftOutText(turns), "", String(turns));
});
