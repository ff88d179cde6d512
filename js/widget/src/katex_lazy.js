// KaTeX, evaluated when the first formula is drawn: it is over half of the widget's code, and the widget's module is
// parsed again at every display (anywidget imports it from the widget's state), though most replies hold no math. The
// bundle carries KaTeX's minified build as a string (build.mjs: the virtual module "katex-source"), which costs the
// parser a scan, not a compile; the first formula evaluates it, synchronously, so rendering stays synchronous.
// build.mjs resolves marked-katex-extension's `import katex from "katex"` to this module; node tests use KaTeX itself.
import source from "katex-source";

/** @type {any} */
let katex = null;
let failed = false;

/** @param {string} tex @returns {string} the formula's source, shown as code when KaTeX can't run here */
function asCode(tex) {
  const escaped = tex.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<code class="nbc-math-source">${escaped}</code>`;
}

export default {
  /** @param {string} tex @param {object} options @returns {string} */
  renderToString(tex, options) {
    if (katex === null && !failed) {
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
    return katex ? katex.renderToString(tex, options) : asCode(tex);
  },
};
