// Markdown for untrusted model output: marked (GFM) + KaTeX (MathML output: no fonts, no CSS), then sanitized (the
// browser's own sanitizer for markdown without raw HTML where it has one, DOMPurify otherwise: the same nodes), then
// highlight.js on the sanitized DOM (hljs escapes its input, so its markup is safe to insert).
import { Marked } from "marked";
import markedKatex from "marked-katex-extension";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import python from "highlight.js/lib/languages/python";
import javascript from "highlight.js/lib/languages/javascript";
import bash from "highlight.js/lib/languages/bash";
import json from "highlight.js/lib/languages/json";
import sql from "highlight.js/lib/languages/sql";
import { bound, t } from "./i18n.js";
import { nativeSanitizer } from "./native_sanitizer.js";

/** @typedef {import("marked").Token} Token */

hljs.registerLanguage("python", python);
hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("bash", bash);
hljs.registerLanguage("json", json);
hljs.registerLanguage("sql", sql);
const ALIASES = { py: "python", js: "javascript", sh: "bash", shell: "bash", console: "bash", zsh: "bash" };

const marked = new Marked({ gfm: true, breaks: false, async: false });
const katex = markedKatex({ throwOnError: false, output: "mathml" });
const inlineMath = katex.extensions.find((extension) => extension.name === "inlineKatex");
if (inlineMath) inlineMath.start = inlineMathStart;
marked.use(katex);

/** marked-katex-extension's inline rule (standard mode), sticky: tried where `lastIndex` says. */
const INLINE_MATH = /(\${1,2})(?!\$)((?:\\.|[^\\\n])*?(?:\\.|[^\\\n$]))\1(?=[\s?!.,:？！。，：]|$)/y;

/**
 * Where the next inline formula starts in `src`, as marked-katex-extension's `start` means it, but as an offset of
 * `src`: its own (5.1.13) gives it from after the last `$` that opened no formula, so marked ended text there, in the
 * middle of a word or a link (whether `www.example.com` was a link then depended on a `$` further on).
 * @param {string} src @returns {number|undefined}
 */
function inlineMathStart(src) {
  for (let from = 0, index = src.indexOf("$"); index !== -1; index = src.indexOf("$", from)) {
    INLINE_MATH.lastIndex = index;
    if ((index === 0 || src[index - 1] === " ") && INLINE_MATH.test(src)) return index;
    for (from = index + 1; src[from] === "$"; from += 1); // the rest of a run of `$` opens nothing either
  }
  return undefined;
}

/** @param {Element} node */
function linksOpenApart(node) {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
}

const SANITIZE = {
  // no inline styles or style sheets (they could restyle or cover the widget), no form controls (they could
  // pose as our buttons), no data-* attributes (our own controls and tests key on them)
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "iframe", "object", "embed"],
  FORBID_ATTR: ["style"],
  ALLOW_DATA_ATTR: false,
  // KaTeX's MathML carries the TeX source in <annotation>: drop it with its text; <semantics> is unwrapped
  ADD_FORBID_CONTENTS: ["annotation", "annotation-xml"],
};

// Two sanitizers with one policy, each configured once (a per-call config is parsed again at every call): one returns
// a string, one the sanitized nodes themselves (no serializing and parsing them again to insert them). Without a DOM
// (node tests of the markdown itself) DOMPurify has no sanitize: the render functions then throw.
const purify = DOMPurify();
const purifyNodes = DOMPurify();
for (const [instance, config] of /** @type {const} */ ([[purify, SANITIZE],
  [purifyNodes, { ...SANITIZE, RETURN_DOM_FRAGMENT: true }]])) {
  if (!instance.isSupported) continue;
  instance.setConfig(config);
  instance.addHook("afterSanitizeAttributes", linksOpenApart);
}

/** Sanitize untrusted HTML (markdown output, tool displays). @param {string} html @returns {string} */
export function sanitize(html) {
  return /** @type {string} */ (purify.sanitize(html));
}

/**
 * Sanitize untrusted HTML into nodes ready to insert (the same policy as `sanitize`).
 * @param {string} html @returns {DocumentFragment}
 */
export function sanitizeToFragment(html) {
  return /** @type {DocumentFragment} */ (/** @type {unknown} */ (purifyNodes.sanitize(html)));
}

/** Markdown's HTML sanitized by the browser (native_sanitizer.js); null without a DOM or where the browser has no HTML
 * Sanitizer API. */
export const sanitizeNatively = typeof document === "undefined" ? null
  : nativeSanitizer((tag, name, value) => purify.isValidAttribute(tag, name, value));

/** @param {string} text @returns {string} sanitized HTML (what renderMarkdownFragment gives, serialized) */
export function renderMarkdown(text) {
  const holder = document.createElement("div");
  holder.append(renderMarkdownFragment(text));
  return holder.innerHTML;
}

/**
 * Sanitized nodes of markdown; `tokens`, when given, are `text` already lexed (top-level tokens whose `raw` strings
 * concatenate to it), so it is not lexed again. @param {string} text @param {Token[]} [tokens]
 * @returns {DocumentFragment}
 */
export function renderMarkdownFragment(text, tokens) {
  return sanitizeRendered(text, tokens, markdownHtml(text, tokens));
}

/**
 * Sanitized nodes of `html`, marked's HTML of markdown `text` (lexed into `tokens`, when given): the browser's
 * sanitizer unless the markdown holds raw HTML. @param {string} text @param {Token[] | undefined} tokens
 * @param {string} html @returns {DocumentFragment}
 */
export function sanitizeRendered(text, tokens, html) {
  return holdsRawHtml(text, tokens) ? sanitizeToFragment(html) : sanitizeMarkdownHtml(html);
}

/**
 * Sanitized nodes of markdown's HTML that holds no raw HTML (as renderMarkdownFragment sanitizes it).
 * @param {string} html @returns {DocumentFragment}
 */
export function sanitizeMarkdownHtml(html) {
  return sanitizeNatively ? sanitizeNatively(html) : sanitizeToFragment(html);
}

/**
 * Sanitized nodes of markdown's HTML (without raw HTML) that goes inside an element `tag`, such as a list's items
 * or a table's rows (tbody): the nodes sanitizing the whole element gives.
 * @param {string} tag @param {string} html @returns {DocumentFragment}
 */
export function sanitizeInside(tag, html) {
  // a table's rows are parsed in a table (elsewhere the parser drops their tags)
  const table = tag === "tbody";
  const nodes = sanitizeMarkdownHtml(table ? `<table><tbody>${html}</tbody></table>` : `<${tag}>${html}</${tag}>`);
  const element = table ? nodes.firstChild?.firstChild : nodes.firstChild;
  const fragment = document.createDocumentFragment();
  fragment.append(...(element?.childNodes ?? []));
  return fragment;
}

const TAG_START = /<[A-Za-z!?/]/;

/**
 * Whether markdown may hold raw HTML (marked passes it through): the browser's sanitizer would treat it apart from
 * DOMPurify (native_sanitizer.js). Without a `<` starting a tag, no; with `tokens`, whether one of them is raw HTML.
 * @param {string} text @param {Token[]} [tokens]
 */
export function holdsRawHtml(text, tokens) {
  if (!TAG_START.test(text)) return false;
  return !tokens || someToken(tokens, (token) => token.type === "html", (raw) => raw.includes("<"));
}

/** marked's HTML, unsanitized (never insert it as is). @param {string} text @returns {string} */
export function markdownToHtml(text) {
  try {
    return /** @type {string} */ (marked.parse(text));
  } catch (err) {
    return `<pre>${escapeHtml(text)}</pre>`;
  }
}

/**
 * marked's HTML (unsanitized) of `text`, from its top-level `tokens` when they are given (the extensions here have
 * no token walkers or hooks, so parsing the tokens gives what parsing the text gives).
 * @param {string} text @param {Token[]} [tokens] @returns {string}
 */
export function markdownHtml(text, tokens) {
  if (!tokens) return markdownToHtml(text);
  try {
    return /** @type {string} */ (marked.parser(tokens));
  } catch (err) {
    return `<pre>${escapeHtml(text)}</pre>`;
  }
}

/** The top-level block tokens of `text` (with the same extensions as the renderer); their `raw` strings concatenate
 * to `text`. */
export const markdownTokens = {
  /** @param {string} text @returns {Token[]} */
  lex: (text) => marked.lexer(text),
};

const VOID_TAG = /^<(?:br|hr|img|wbr)\b[^<>]*>$/i;

/**
 * Whether blocks of these tokens rendered apart could differ from one render of the whole text: raw HTML other than
 * void tags like <br> (an unclosed tag wraps later blocks once sanitized) or a link reference definition (it changes
 * links anywhere). A token's children are looked at only when its source could hold either (a `<` or a `]:`), so the
 * usual reply costs a look at each top-level token (marked's walkTokens concatenates arrays: quadratic in the tokens).
 * @param {Token[]} tokens
 */
export function needsWholeRender(tokens) {
  const differs = (/** @type {Token} */ token) => token.type === "def"
    || (token.type === "html" && !VOID_TAG.test(token.raw.trim()));
  return someToken(tokens, differs, (raw) => raw.includes("<") || raw.includes("]:"));
}

/**
 * Whether a token of `tokens`, or nested in one whose source `mayHold` says could hold it, passes `test`.
 * @param {Token[]} tokens @param {(token: Token) => boolean} test @param {(raw: string) => boolean} mayHold
 * @returns {boolean}
 */
function someToken(tokens, test, mayHold) {
  for (const token of tokens) {
    if (test(token)) return true;
    if (!mayHold(token.raw)) continue;
    for (const children of childTokens(token)) if (someToken(children, test, mayHold)) return true;
  }
  return false;
}

/** @param {Token} token @returns {Token[][]} the token lists nested in it */
function childTokens(token) {
  if (token.type === "table") {
    return [...token.header, ...token.rows.flat()].map((cell) => cell.tokens);
  }
  if (token.type === "list") return [token.items];
  return "tokens" in token && Array.isArray(token.tokens) ? [token.tokens] : [];
}

/** @param {string} text */
export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Highlight code blocks of a freshly rendered element and give each a toolbar (Copy; Insert cell below when the
 * notebook bridge can). `cache` maps "lang\0code" to highlighted HTML so a streaming re-render stays cheap;
 * `highlighted`, the code a block streamed in pieces and their HTML (streaming_markdown.js), so a block that starts
 * with that code highlights only the rest (the pieces end outside any construct: the same HTML as one highlighting).
 * @param {HTMLElement|DocumentFragment} root
 * @param {{cache: Map<string,string>, insertCell: ((code: string) => void) | null,
 *   highlighted?: {lang: string|null, source: string, html: string} | null}} options
 */
export function enhanceCodeBlocks(root, { cache, insertCell, highlighted = null }) {
  const used = new Set();
  for (const code of root.querySelectorAll("pre > code")) {
    const pre = /** @type {HTMLElement} */ (code.parentElement);
    const source = (code.textContent ?? "").replace(/\n$/, "");
    const lang = codeLanguageOf(code);
    if (lang) {
      const key = `${lang}\u0000${source}`;
      let html = cache.get(key);
      if (html === undefined) {
        const known = highlighted?.lang === lang && source.startsWith(highlighted.source) ? highlighted : null;
        html = (known?.html ?? "") + hljs.highlight(source.slice(known?.source.length ?? 0),
          { language: lang, ignoreIllegals: true }).value;
        cache.set(key, html);
      }
      used.add(key);
      code.innerHTML = html;
      code.classList.add("hljs");
    }
    codeBlock(pre, source, lang, insertCell);
  }
  for (const key of cache.keys()) if (!used.has(key)) cache.delete(key);
}

/**
 * A highlighted, read-only code block for text that is not markdown (e.g. a tool's `code` argument).
 * @param {string} source @param {string} lang @returns {HTMLElement}
 */
export function codeElement(source, lang) {
  const pre = document.createElement("pre");
  const code = document.createElement("code");
  if (hljs.getLanguage(lang)) {
    code.innerHTML = hljs.highlight(source, { language: lang, ignoreIllegals: true }).value;
    code.classList.add("hljs");
  } else {
    code.textContent = source;
  }
  pre.append(code);
  return pre;
}

/**
 * The highlight.js language a fenced block's info string names (its first word, aliases resolved), or null.
 * @param {string} info @returns {string|null}
 */
export function codeLanguage(info) {
  const match = /^[\w+-]+/.exec(info.trim());
  if (!match) return null;
  const name = match[0].toLowerCase();
  const lang = ALIASES[/** @type {keyof typeof ALIASES} */ (name)] ?? name;
  return hljs.getLanguage(lang) ? lang : null;
}

/** @type {Map<string, unknown>} a language's top-level mode: where its highlighter stands outside any construct */
const TOP_MODES = new Map();

/**
 * Highlighted HTML of a piece of code (escaped text without a language), and whether the highlighter ends it outside
 * any open construct (a string, a comment): then the code after it can be highlighted on its own.
 * @param {string} source @param {string|null} lang @returns {{html: string, clean: boolean}}
 */
export function highlightPiece(source, lang) {
  if (!lang) return { html: escapeHtml(source), clean: true };
  if (!TOP_MODES.has(lang)) TOP_MODES.set(lang, /** @type {any} */ (hljs.highlight("", { language: lang }))._top);
  const result = hljs.highlight(source, { language: lang, ignoreIllegals: true });
  return { html: result.value, clean: /** @type {any} */ (result)._top === TOP_MODES.get(lang) };
}

/** The highlight.js language of a rendered code element (its `language-` class, aliases resolved), or null.
 * @param {Element} code @returns {string|null} */
export function codeLanguageOf(code) {
  const match = /(?:^|\s)language-([\w+-]+)/.exec(code.className);
  if (!match) return null;
  const name = match[1].toLowerCase();
  const lang = ALIASES[/** @type {keyof typeof ALIASES} */ (name)] ?? name;
  return hljs.getLanguage(lang) ? lang : null;
}

/**
 * Wrap `pre` (which has a parent) with a code block's toolbar.
 * @param {HTMLElement} pre @param {string | (() => string)} source the code (a function: read when used)
 * @param {string|null} lang @param {((code: string) => void) | null} insertCell
 */
export function codeBlock(pre, source, lang, insertCell) {
  const code = () => (typeof source === "function" ? source() : source);
  const wrap = document.createElement("div");
  wrap.className = "nbc-code";
  const bar = document.createElement("div");
  bar.className = "nbc-code-bar";
  const label = document.createElement("span");
  label.className = "nbc-code-lang";
  label.textContent = lang ?? "";
  const copy = button(t("code.copy"), "copy-code");
  // the visible word starts the accessible name, which says which block (WCAG 2.5.3)
  copy.setAttribute("aria-label", lang ? t("code.copy_named", { lang }) : t("code.copy_unnamed"));
  copy.addEventListener("click", () => {
    navigator.clipboard?.writeText(code()).then(
      bound(() => flash(copy, t("code.copied"))),
      bound(() => flash(copy, t("code.copy_failed"))),
    );
  });
  const insert = button(t("code.insert"), "insert-cell");
  insert.setAttribute("aria-label", lang ? t("code.insert_named", { lang }) : t("code.insert_unnamed"));
  insert.hidden = insertCell === null;
  if (insertCell) insert.addEventListener("click", () => insertCell(code()));
  bar.append(label, copy, insert);
  pre.before(wrap);
  wrap.append(bar, pre);
}

/** @param {string} text @param {string} action */
export function button(text, action) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `nbc-button nbc-button-${action}`;
  b.dataset.action = action;
  b.textContent = text;
  return b;
}

/**
 * Show `text` on a button for a moment (Copied). @param {HTMLButtonElement} b @param {string} text
 * @param {number} [ms] how long
 */
export function flash(b, text, ms = 1200) {
  const before = b.textContent;
  b.textContent = text;
  setTimeout(bound(() => (b.textContent = before)), ms);
}
