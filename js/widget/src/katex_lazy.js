// KaTeX, evaluated when the first formula is drawn: its module builds large symbol tables (over half of the widget's
// bundle) that would otherwise run while the widget loads, in one long task, though most replies hold no math.
// build.mjs resolves marked-katex-extension's `import katex from "katex"` to this module; node tests use KaTeX itself.
/** @type {any} */
let katex = null;

export default {
  /** @param {string} tex @param {object} options @returns {string} */
  renderToString(tex, options) {
    // eslint-disable-next-line no-undef -- esbuild bundles the CommonJS build and calls it here, once
    katex ??= require("katex/dist/katex.js");
    return katex.renderToString(tex, options);
  },
};
