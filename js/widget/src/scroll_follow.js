// The message list follows new content while the reader is at its bottom (streaming included). Scrolling up
// pauses following and shows "Jump to latest"; scrolling back down (or the button) resumes it. A list that opens
// (render, restore) starts at its latest message. Growth is seen with a MutationObserver and pinned once per frame,
// so a chunk costs one comparison, not a layout per token.
import { bound, t } from "./i18n.js";
import { button } from "./markdown.js";

const AT_BOTTOM_PX = 24;

export class ScrollFollower {
  /** @param {HTMLElement} list the scrolling element */
  constructor(list) {
    this.list = list;
    this.following = true;
    this.frame = 0;
    /** scrollTop we set ourselves: the scroll event it causes is not the reader's */
    this.pinnedAt = -1;
    this.jump = button(t("scroll.jump"), "jump-latest");
    this.jump.hidden = true;
    this.jump.addEventListener("click", () => this.toLatest());
    this.onScroll = () => {
      const top = this.list.scrollTop;
      if (Math.abs(top - this.pinnedAt) < 1) return;
      if (this.following && top > this.pinnedAt) {
        // moved down, not up: the browser keeping its view while content changed (scroll anchoring), not the reader
        // leaving the end; by the time this event runs the list may have grown again (pinned in the next frame)
        this.pinnedAt = top;
        return;
      }
      this.following = this.atBottom();
      this.renderJump();
    };
    list.addEventListener("scroll", this.onScroll, { passive: true });
    this.observer = new MutationObserver(() => this.contentChanged());
    this.observer.observe(list, { childList: true, subtree: true, characterData: true });
    this.resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.contentChanged()) : null;
    this.resize?.observe(list);
  }

  atBottom() {
    const l = this.list;
    return l.scrollHeight - l.scrollTop - l.clientHeight <= AT_BOTTOM_PX;
  }

  contentChanged() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(bound(() => {
      this.frame = 0;
      if (this.following) this.pin();
      this.renderJump();
    }));
  }

  pin() {
    const l = this.list;
    const bottom = l.scrollHeight - l.clientHeight;
    if (bottom > 0 && Math.abs(l.scrollTop - bottom) >= 1) {
      l.scrollTop = bottom;
      this.pinnedAt = l.scrollTop;
    }
  }

  /** The list moved its own content (older messages drawn above, the view kept in place): not the reader's scroll. */
  shifted() {
    this.pinnedAt = this.list.scrollTop;
  }

  toLatest() {
    this.following = true;
    this.pin();
    this.renderJump();
  }

  /** Show `el` inside the list (a pending approval); following pauses unless that leaves the reader at the bottom. */
  /** @param {HTMLElement} el */
  reveal(el) {
    const l = this.list;
    const box = l.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) {
      const offset = r.top - box.top + l.scrollTop;
      const target = r.height > l.clientHeight ? offset : offset - (l.clientHeight - r.height);
      l.scrollTop = Math.max(0, target);
      this.pinnedAt = l.scrollTop;
      this.following = this.atBottom();
    }
    this.renderJump();
  }

  renderJump() {
    this.jump.hidden = this.following || this.atBottom();
  }

  dispose() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.observer.disconnect();
    this.resize?.disconnect();
    this.list.removeEventListener("scroll", this.onScroll);
  }
}
