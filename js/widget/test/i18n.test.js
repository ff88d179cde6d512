// The two string tables of the widget stay complete: the same keys in English and Simplified Chinese, no empty
// string, the same {slots} in both, and every key the sources look up literally exists.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DICTIONARIES, matchLanguage, setLanguage, t } from "../src/i18n.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const slots = (/** @type {string} */ text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("English and Simplified Chinese have exactly the same keys", () => {
  assert.deepEqual(Object.keys(DICTIONARIES["zh-CN"]).sort(), Object.keys(DICTIONARIES.en).sort());
});

test("no string is empty or left in English in the Chinese table", () => {
  for (const [language, table] of Object.entries(DICTIONARIES)) {
    for (const [key, text] of Object.entries(table)) assert.ok(text.trim() !== "", `${language} ${key} is empty`);
  }
  const same = Object.keys(DICTIONARIES.en).filter((key) => DICTIONARIES.en[key] === DICTIONARIES["zh-CN"][key]
    && /[a-z]{3}/.test(DICTIONARIES.en[key]));
  assert.deepEqual(same, []);
});

test("a string has the same slots in both languages", () => {
  for (const [key, text] of Object.entries(DICTIONARIES.en)) {
    assert.deepEqual(slots(DICTIONARIES["zh-CN"][key]), slots(text), key);
  }
});

test("every key the widget looks up literally is in the table", () => {
  const src = path.join(here, "../src");
  const missing = [];
  for (const file of readdirSync(src).filter((name) => name.endsWith(".js"))) {
    const code = readFileSync(path.join(src, file), "utf8");
    for (const match of code.matchAll(/\bt\(\s*"([^"]+)"/g)) {
      if (!(match[1] in DICTIONARIES.en)) missing.push(`${file}: ${match[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});

test("a language tag picks its table and fills the slots", () => {
  assert.equal(matchLanguage("zh_CN"), "zh-CN");
  assert.equal(matchLanguage("zh-Hans"), "zh-CN");
  assert.equal(matchLanguage("fr-FR"), "en");
  setLanguage("zh-CN");
  assert.equal(t("code.copy_named", { lang: "python" }), "复制 python 代码");
  setLanguage("en");
  assert.equal(t("code.copy_named", { lang: "python" }), "Copy python code");
  assert.throws(() => t("no.such.key"));
});

test("no label is written in English in the widget's sources: they come from the table", () => {
  const src = path.join(here, "../src");
  const literal = /(?:textContent|placeholder|title|alt) = "[A-Za-z]|button\("[A-Za-z]|setAttribute\("aria-label", "[A-Za-z]/;
  const found = [];
  for (const file of readdirSync(src).filter((name) => name.endsWith(".js"))) {
    for (const [number, line] of readFileSync(path.join(src, file), "utf8").split("\n").entries()) {
      if (literal.test(line)) found.push(`${file}:${number + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(found, []);
});
