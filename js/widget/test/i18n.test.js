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

// -- no string a person reads is written in the sources: the scans ------------------------------------------------

const LAB = path.join(here, "../../labextension/lib");
const SOURCES = [
  ...readdirSync(path.join(here, "../src")).filter((n) => n.endsWith(".js") && n !== "i18n.js")
    .map((n) => path.join(here, "../src", n)),
  ...readdirSync(LAB).filter((n) => n.endsWith(".js")).map((n) => path.join(LAB, n)),
];
const LITERAL = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g;
/** Where a string becomes something a person reads or hears. */
const SINK = new RegExp([
  String.raw`\.(?:textContent|innerText|innerHTML|title|placeholder|alt|ariaLabel|ariaDescription|label|value)\s*\+?=(?!=)`,
  String.raw`setAttribute\(\s*["'](?:aria-label|aria-description|aria-roledescription|aria-valuetext|title|placeholder|alt)["']\s*,`,
  String.raw`createTextNode\(`, String.raw`\.(?:append|prepend|replaceChildren|before|after)\(`,
  String.raw`\b(?:button|note|section|element|div|span|announce|setStatus|showError|say)\(`,
  String.raw`\b(?:alert|confirm|prompt)\(`,
].join("|"), "g");

/**
 * Text a person reads: two words, or a capitalised word ("Copy"), outside markup tags; not a key
 * ("tool.status.x") or a class. @param {string} literal
 */
const readable = (literal) => {
  const body = literal.replace(/<[^>]*>/g, " ");
  return /[A-Za-z]{2,} +[A-Za-z]{2,}|^[A-Z][a-z]+\b/.test(body) && !/^(?:\s*nbc-[\w-]*)+\s*$/.test(body);
};
/** Literals that look like words but no person reads as a sentence, with the reason. */
const NOT_SENTENCES = new Map([
  ...["Enter", "Escape", "Esc", "Tab", "Shift+Enter", "Tab / Shift+Tab", "Enter / Space", "↑ ↓ Enter Esc", "Ctrl+S"]
    .map((key) => [key, "a key's name (KeyboardEvent.key, or the key shown beside its help line)"]),
  ["noopener noreferrer", "a link's rel attribute"],
  ["Error displaying widget: model not found", "ipywidgets' own text, matched to find its placeholder"],
  ["Lets notebook_chat widgets reach their notebook document; draws saved chats without a kernel.",
    "the plugin's description for JupyterLab's plugin list (read by developers)"],
]);

/** The source without comments (the same length, line for line). @param {string} code */
function uncommented(code) {
  return code.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** The literals of `line` a person could read, each with its text (slots `${...}` left out). @param {string} line */
function readableLiterals(line) {
  return [...line.matchAll(LITERAL)].map((m) => [m[0], m[0].slice(1, -1).replace(/\$\{[^}]*\}/g, "")])
    .filter(([literal, body]) => readable(body) && !NOT_SENTENCES.has(literal.slice(1, -1)));
}

/**
 * Each literal sentence written at a place that shows text (a sink, up to the end of its line), and each literal
 * sentence anywhere else that is not an error a programmer reads (`Error(...)`, the console) or a CSS class.
 * @param {string} code @param {string} file
 */
export function writtenOut(code, file) {
  const found = [];
  let before = { quiet: false, line: "" };
  uncommented(code).split("\n").forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    // an error a programmer reads (thrown, or logged), also on the lines its message continues on
    const quiet = /\bconsole\.|\bthrow\b|Error\(/.test(line) || (before.quiet && /[+(,]\s*$/.test(before.line));
    before = { quiet, line };
    const keysOut = line.replace(/\bt\(\s*(["'`])[^"'`]*\1/g, "t(KEY");
    const atSinks = [...keysOut.matchAll(SINK)].flatMap((m) => readableLiterals(keysOut.slice(m.index)));
    const elsewhere = quiet ? [] : readableLiterals(keysOut);
    for (const [literal] of new Map([...atSinks, ...elsewhere])) found.push(`${where}: ${literal}`);
  });
  return found;
}

test("no string a person reads is written in the widget's or the JupyterLab extension's sources", () => {
  const found = SOURCES.flatMap((file) => {
    const name = path.relative(path.join(here, "../.."), file);
    // the extension's own table (it can't load the widget's bundle): its lines are the table, not a bypass
    const code = readFileSync(file, "utf8").replace(/const STRINGS = \{[\s\S]*?\n\};/, (c) => c.replace(/[^\n]/g, " "));
    return writtenOut(code, name);
  });
  assert.deepEqual(found, []);
});

const WRITTEN = {
  "textContent": 'el.textContent = "Copy code";',
  "a template": "el.textContent = `Copied ${n} lines`;",
  "a choice": 'label.textContent = busy ? t("composer.stop") : "Send now";',
  "aria-label": 'el.setAttribute("aria-label", "Close menu");',
  "title": "button.title = 'Keyboard shortcuts';",
  "placeholder": 'input.placeholder = "Type a message";',
  "a property": 'el.ariaLabel = "Messages";',
  "append": 'item.append("Waiting for approval");',
  "a text node": 'el.appendChild(document.createTextNode("No messages yet"));',
  "a button": 'const b = button("Approve", "approve");',
  "a constant": 'const WAITING = "Waiting for approval";',
  "a status": 'this.setStatus("Retrying…");',
  "words inside markup": 'el.innerHTML = `<p class="nbc-note">Nothing to show</p>`;',
};

for (const [kind, line] of Object.entries(WRITTEN)) {
  test(`the scan finds a sentence written out: ${kind}`, () => {
    assert.equal(writtenOut(line, "x.js").length, 1, line);
  });
}

for (const line of [
  'el.textContent = t("code.copy_named", { lang });',
  'throw new Error("a patch needs a list of ops");',
  'console.warn("notebook_chat: the bridge failed", err);',
  'const el = div("nbc-message nbc-user");',
  'if (event.key === "Enter") send();',
  "// Copy the code of the block",
  'badge.textContent = `tool.status.${shown}` in DICTIONARIES.en ? t(`tool.status.${shown}`) : shown;',
  'el.innerHTML = `<code class="nbc-math-source">${escaped}</code>`;',
]) {
  test(`the scan passes what nobody reads as a sentence: ${line}`, () => {
    assert.deepEqual(writtenOut(line, "x.js"), []);
  });
}

test("the JupyterLab extension's own table has the same keys in both languages", () => {
  const code = readFileSync(path.join(LAB, "read_only.js"), "utf8");
  const table = code.match(/const STRINGS = (\{[\s\S]*?\n\});/);
  assert.ok(table, "read_only.js has no STRINGS table");
  const strings = Function(`return ${table[1]};`)();
  assert.deepEqual(Object.keys(strings["zh-CN"]).sort(), Object.keys(strings.en).sort());
  for (const [key, text] of Object.entries(strings["zh-CN"])) {
    assert.ok(/[\u4e00-\u9fff]/.test(text) || !/[A-Za-z]{2}/.test(strings.en[key]), `zh-CN ${key} is not translated`);
  }
});
