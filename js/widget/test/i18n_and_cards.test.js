// The string table and the tool card's decision sentence. Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { DICTIONARIES, setLanguage, t } from "../src/i18n.js";
import { decisionText } from "../src/tool_card.js";

test("every translated string has an English original with the same slots", () => {
  for (const [language, table] of Object.entries(DICTIONARIES)) {
    for (const [key, text] of Object.entries(table)) {
      assert.ok(key in DICTIONARIES.en, `${language} has ${key}, English does not`);
      const slots = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      assert.deepEqual(slots(text), slots(DICTIONARIES.en[key]), `${language} ${key}`);
    }
  }
});

test("t fills slots, falls back to English and refuses an unknown key", () => {
  setLanguage("zh-CN");
  assert.equal(t("status.error", { error: "x" }), "错误：x");
  setLanguage("en");
  assert.equal(t("status.error", { error: "timeout" }), "Error: timeout");
  assert.throws(() => t("no.such.key"));
});

test("a card says who decided and why it did not run", () => {
  setLanguage("en");
  const at = Date.UTC(2026, 0, 1, 9, 5) / 1000;
  const approved = decisionText({ id: "c", name: "n", arguments: "{}", status: "success", decided_by: "user", decided_at: at });
  assert.match(approved, /^Approved by you · \S+/);
  const denied = decisionText({ id: "c", name: "n", arguments: "{}", status: "denied", decided_by: "code",
    decided_at: at, reason: "not today" });
  assert.match(denied, /^Denied from code · .+: not today$/);
  const stopped = decisionText({ id: "c", name: "n", arguments: "{}", status: "denied", stopped: true,
    reason: "cancelled by user" });
  assert.equal(stopped, "Not run: the turn was stopped before a decision.");
  assert.equal(decisionText({ id: "c", name: "n", arguments: "{}", status: "success" }), "");
});
