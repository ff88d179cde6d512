// A reply's code blocks are styled, laid out and painted only near the reader's view (`content-visibility: auto`,
// styles.css), once each has been laid out: its size is then its own (`contain-intrinsic-size: auto` keeps it), so a
// block out of view keeps its place and scrolling moves nothing. JupyterLab focuses a cell's node in command mode,
// and a rule of its CodeMirror theme (`.cm-content :focus ::selection`) makes the browser restyle everything under an
// element whose focus changes: a long reply's highlighted code was most of what selecting the chat's cell restyled.

const SETTLED = "nbc-settled";

export class SettledCode {
  /** @param {HTMLElement} body a message's body: its code blocks (top-level `.nbc-code`) settle once laid out */
  constructor(body) {
    /** @type {ResizeObserver|null} */
    this.sizes = null;
    /** @type {MutationObserver|null} */
    this.added = null;
    if (typeof ResizeObserver !== "function" || typeof MutationObserver !== "function") return;
    const sizes = new ResizeObserver((entries) => {
      const laidOut = entries.filter((entry) => entry.contentRect.height > 0).map((entry) => entry.target);
      for (const el of laidOut) sizes.unobserve(el);
      // the next frame: the browser keeps the block's size as it delivers these observations, after or before this
      if (laidOut.length > 0) requestAnimationFrame(() => { for (const el of laidOut) el.classList.add(SETTLED); });
    });
    this.sizes = sizes;
    this.added = new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node instanceof HTMLElement && node.classList.contains("nbc-code") && !node.classList.contains(SETTLED)) {
            sizes.observe(node);
          }
        }
      }
    });
    this.added.observe(body, { childList: true });
  }

  dispose() {
    this.added?.disconnect();
    this.sizes?.disconnect();
  }
}
