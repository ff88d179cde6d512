// The blocks a streaming reply skipped (streaming_markdown.js `skipped`: it arrived faster than it could be drawn, and
// the reader, at its end, sees the newest text first). Each run of skipped blocks waits at its place in the message's
// body, marked by an empty comment, and is drawn later: the newest run first, bottom-up, a slice of whole blocks at a
// time, put in its place without moving what the reader sees. Rendered separately, top-level blocks give the HTML of
// one whole render, so once every run is drawn the body is what drawing each block at once would have made.
import { renderMarkdownFragment } from "./markdown.js";
import { isUnlaid } from "./unlaid_blocks.js";

/** Characters of markdown rendered per slice (a slice ends at a block's end, so it may hold more). */
export const SLICE_CHARS = 4_000;
/** ... and per slice while a run is in the reader's view: what fills the view, not much more. */
export const VIEW_SLICE_CHARS = 1_000;

/** @typedef {{marker: Comment, blocks: import("marked").Token[]}} Run skipped top-level blocks at `marker` */

export class SkippedBlocks {
  /** @param {HTMLElement} body the message's body */
  constructor(body) {
    this.body = body;
    /** @type {Run[]} in the order of the text: the last one is the newest */
    this.runs = [];
  }

  /** True while skipped blocks wait to be drawn. */
  get pending() {
    return this.runs.length > 0;
  }

  /**
   * Skipped blocks at the end of the body (what is drawn next goes after them); joined to the newest run when nothing
   * was drawn in between. @param {import("./streaming_markdown.js").Blocks} skipped
   */
  add(skipped) {
    const newest = this.runs[this.runs.length - 1];
    if (newest && newest.marker === this.body.lastChild) {
      newest.blocks.push(...skipped.tokens);
      return;
    }
    const marker = document.createComment("");
    this.body.append(marker);
    this.runs.push({ marker, blocks: [...skipped.tokens] });
  }

  /** Forget every run (the body is drawn anew). */
  clear() {
    for (const run of this.runs) run.marker.remove();
    this.runs = [];
  }

  /**
   * Where `run` would appear: the top of what is drawn after it (viewport coordinates), read now and again later.
   * @param {Run} run @returns {() => number}
   */
  place(run) {
    let after = run.marker.nextSibling;
    // the first element with a box (blocks put in without their layout have none, and are passed without asking the
    // page, which would lay it out: unlaid_blocks.js)
    while (after && !(after instanceof Element && !isUnlaid(after) && after.getClientRects().length > 0)) {
      after = after.nextSibling;
    }
    const anchor = after;
    return () => (anchor ?? this.body).getBoundingClientRect()[anchor ? "top" : "bottom"];
  }

  /**
   * Whether the newest run is in the reader's view of the scrolling `list` (a gap the reader would see). A reader who
   * follows the reply sees the end of the list (where the list is about to scroll, if it has not yet).
   * @param {HTMLElement} list @param {boolean} following
   */
  nearView(list, following) {
    const run = this.runs[this.runs.length - 1];
    if (!run) return false;
    const box = list.getBoundingClientRect();
    const at = this.place(run)();
    const fromEnd = list.scrollHeight - (at - box.top + list.scrollTop);
    if (following) return fromEnd <= list.clientHeight;
    return at > box.top && at <= box.bottom;
  }

  /**
   * Draw the newest run's last blocks (about SLICE_CHARS) in their place. When that place is above the reader's view
   * of `list`, the view stays where it is (`shifted` is told the list moved its own content).
   * @param {(nodes: DocumentFragment) => DocumentFragment} enhance code blocks highlighted, toolbars
   * @param {HTMLElement|null} list @param {(() => void) | undefined} shifted @param {number} [chars] slice size
   * @param {((nodes: DocumentFragment) => void) | null} [defer] told of the nodes before they are put in (their
   *   layout may wait: unlaid_blocks.js)
   */
  drawNext(enhance, list, shifted, chars = SLICE_CHARS, defer = null) {
    const run = this.runs[this.runs.length - 1];
    if (!run) return;
    let start = run.blocks.length;
    let size = 0;
    while (start > 0 && (size === 0 || size + run.blocks[start - 1].raw.length <= chars)) {
      start -= 1;
      size += run.blocks[start].raw.length;
    }
    const tokens = run.blocks.splice(start);
    const nodes = enhance(renderMarkdownFragment(tokens.map((token) => token.raw).join(""), tokens));
    defer?.(nodes);
    const place = list ? this.place(run) : null;
    const before = place ? place() : 0;
    const above = list !== null && before < list.getBoundingClientRect().top;
    run.marker.after(nodes);
    if (run.blocks.length === 0) {
      run.marker.remove();
      this.runs.pop();
    }
    if (!place || !above) return;
    // the browser's own scroll anchoring may already have kept the view (then nothing moved); either way the scroll
    // that follows is the list's, not the reader's
    const moved = place() - before;
    if (Math.abs(moved) >= 0.5) list.scrollTop += moved;
    shifted?.();
  }
}
