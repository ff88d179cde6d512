// KaTeX, evaluated when the first formula is drawn: it is over half of the widget's code, and the widget's module is
// parsed again at every display (anywidget imports it from the widget's state), though most replies hold no math. The
// bundle carries KaTeX's minified build as a string (build.mjs: the virtual module "katex-source"), which costs the
// parser a scan, not a compile; the first formula evaluates it, synchronously, so rendering stays synchronous. A view
// whose stored conversation holds math evaluates it earlier, when the page is idle while the kernel prepares the
// first snapshot (preload), so the first paint does not pay for it.
// build.mjs resolves marked-katex-extension's `import katex from "katex"` to this module; node tests use KaTeX itself.
import source from "katex-source";
import { whenIdle } from "./idle.js";

/** @type {any} */
let katex = null;
let failed = false;

/** @param {string} tex @returns {string} the formula's source, shown as code when KaTeX can't run here */
function asCode(tex) {
  const escaped = tex.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<code class="nbc-math-source">${escaped}</code>`;
}

let preloading = false;

function load() {
  if (katex !== null || failed) return;
  try {
    // the UMD build sets module.exports; a page whose policy forbids evaluating code keeps the formula as text
    const module = { exports: /** @type {any} */ ({}) };
    new Function("module", "exports", source)(module, module.exports);
    katex = module.exports;
  } catch (err) {
    failed = true;
    console.warn("notebook_chat: KaTeX could not be evaluated; formulas stay as text", err);
  }
}

/** Evaluate KaTeX when the page is next idle (once; the first formula drawn before then evaluates it itself). */
export function preloadKatex() {
  if (preloading || katex !== null || failed) return;
  preloading = true;
  whenIdle(() => load());
}

/**
 * Whether a stored conversation (the notebook's entry: {active, items: {id: record}}, or a record) may hold math: a
 * `$` in one of its latest messages; unknown (null: a view that only renders) counts as maybe.
 * @param {any} stored @param {number} [latest] messages looked at per conversation, from the end
 */
export function mayHoldMath(stored, latest = 200) {
  if (stored === null || stored === undefined) return true;
  const items = stored.items && typeof stored.items === "object" ? Object.values(stored.items) : [stored];
  for (const item of items) {
    const messages = item?.messages;
    if (!Array.isArray(messages)) continue;
    for (let i = messages.length - 1; i >= Math.max(0, messages.length - latest); i -= 1) {
      const content = messages[i]?.content;
      if (typeof content === "string" && content.includes("$")) return true;
    }
  }
  return false;
}

export default {
  /** @param {string} tex @param {object} options @returns {string} */
  renderToString(tex, options) {
    load();
    return katex ? katex.renderToString(tex, options) : asCode(tex);
  },
};
