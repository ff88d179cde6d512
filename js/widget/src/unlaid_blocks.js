// Blocks of a fast reply drawn above a reader who follows its end (skipped_blocks.js) are put in without being laid
// out (display: none: no style, layout or paint while the reply streams, which is about half of what drawing them
// costs the page; `content-visibility: hidden` still styled and built their boxes, 10-15 times the cost of putting
// them in hidden), then laid out in idle time, nearest the reader's view first. A reader who reaches for
// the list (wheel, key, pointer, touch) gets every one laid out at once, before the browser scrolls, so scrolling up
// finds the reply whole and nothing jumps; a scroll that came otherwise lays them out keeping the view where it is. An
// ordered list's items laid out after items without their layout are given their numbers (`number`).

const UNLAID = "nbc-unlaid";

const INPUTS = ["wheel", "keydown", "pointerdown", "touchstart"];
/** A batch of at least this many blocks tells what laying out one costs. */
const LEARN_FROM = 32;

export class UnlaidBlocks {
  /**
   * @param {() => boolean} following whether the reader follows the reply's end
   * @param {() => void} revealed called after every block was laid out at the reader's input or scroll
   */
  constructor(following, revealed) {
    this.revealed = revealed;
    /** @type {Element[]} not laid out yet, the nearest the reader's view first */
    this.elements = [];
    /** @type {HTMLElement|null} the scrolling list whose input lays them all out */
    this.list = null;
    /** what laying out a block costs, learned from the batches before (0: not yet) */
    this.msPerBlock = 0;
    /** @type {Set<HTMLLIElement>} items of ordered lists given their number (`number`) */
    this.numbered = new Set();
    this.onInput = (/** @type {Event} */ event) => {
      const list = this.list;
      this.revealAll();
      this.revealed();
      if (list && event instanceof WheelEvent) scrollOnMainThread(list, event);
    };
    this.onScroll = () => {
      if (!this.list || following()) return;
      this.revealKeepingView(this.list);
      this.revealed();
    };
  }

  get pending() {
    return this.elements.length > 0;
  }

  /**
   * Keep the elements of `nodes` (blocks about to be put in above the reader's view, bottom-up; or rows of a table)
   * from being laid out. @param {DocumentFragment|Element[]} nodes @param {HTMLElement} list the scrolling list
   */
  add(nodes, list) {
    const elements = Array.isArray(nodes) ? nodes : [...nodes.children];
    for (const el of elements) el.classList.add(UNLAID);
    this.elements.push(...elements.reverse()); // drawn bottom-up: the last of a slice is the nearest the view
    if (this.list === list) return;
    this.stopListening();
    this.list = list;
    // not passive: a wheel is scrolled here, once every block is laid out (scrollOnMainThread)
    for (const type of INPUTS) list.addEventListener(type, this.onInput, { capture: true, passive: false });
    list.addEventListener("scroll", this.onScroll, { passive: true });
  }

  /**
   * Lay out the nearest blocks now (their layout is this call's cost), about as many as `budget` milliseconds allow:
   * the cost of a block is learned from the batches before (a layout also costs a few milliseconds of its own, so
   * batches are large, not one block at a time). The first batch is small, as nothing tells yet what a block costs:
   * a block of math costs the page several times what a paragraph does (a first guess from a reply of every kind
   * laid out 400 formulas in one task of 0.1 s). @param {number} budget
   */
  reveal(budget) {
    const count = this.msPerBlock > 0 ? Math.max(1, Math.floor(budget / this.msPerBlock)) : LEARN_FROM;
    const started = performance.now();
    const elements = this.elements.splice(0, count);
    this.showAll(elements);
    void (/** @type {HTMLElement} */ (elements[elements.length - 1])).offsetHeight;
    if (elements.length >= LEARN_FROM) this.msPerBlock = (performance.now() - started) / elements.length;
    if (!this.pending) this.stopListening();
  }

  revealAll() {
    this.showAll(this.elements);
    this.elements = [];
    this.stopListening();
  }

  /** @param {Element[]} elements laid out from now on (an ordered list's items after them numbered again) */
  showAll(elements) {
    const lists = new Set();
    for (const el of elements) {
      show(el);
      if (el.parentElement?.localName === "ol") lists.add(el.parentElement);
    }
    for (const list of lists) this.number(/** @type {HTMLOListElement} */ (list));
  }

  /**
   * An item without its layout has no number (a list counts the items it lays out): the first item laid out after
   * such items is given its own number (its `value`), which the items after it count on; once every item before it
   * is laid out, the number it was given goes (the list is as drawn in one go). @param {HTMLOListElement} list
   */
  number(list) {
    if (!this.pending && this.numbered.size === 0) return; // every item laid out, none given a number: as drawn
    let waiting = false;
    let number = list.start;
    for (const item of list.children) {
      if (!(item instanceof HTMLLIElement)) continue;
      if (isUnlaid(item)) {
        waiting = true;
      } else if (waiting) {
        item.value = number;
        this.numbered.add(item);
        waiting = false;
      } else if (this.numbered.delete(item)) {
        item.removeAttribute("value");
      }
      number += 1;
    }
  }

  /**
   * Lay out every block, keeping what the reader sees of `list` where it is (the element at the middle of the part of
   * it in the window). @param {HTMLElement} list
   */
  revealKeepingView(list) {
    const box = list.getBoundingClientRect();
    const top = Math.max(box.top, 0);
    const bottom = Math.min(box.bottom, window.innerHeight);
    const anchor = bottom > top ? document.elementFromPoint(box.left + box.width / 2, (top + bottom) / 2) : null;
    const inside = anchor !== null && list.contains(anchor);
    const before = inside ? anchor.getBoundingClientRect().top : 0;
    this.revealAll();
    if (!inside) return;
    const moved = anchor.getBoundingClientRect().top - before;
    if (Math.abs(moved) >= 0.5) list.scrollTop += moved;
  }

  /** Forget every block (the body is drawn anew). */
  clear() {
    this.elements = [];
    this.numbered.clear();
    this.stopListening();
  }

  stopListening() {
    if (!this.list) return;
    for (const type of INPUTS) this.list.removeEventListener(type, this.onInput, { capture: true });
    this.list.removeEventListener("scroll", this.onScroll);
    this.list = null;
  }
}

/**
 * Scroll `list` by a vertical wheel now that its blocks are laid out, instead of letting the browser do it: the
 * browser's threaded scrolling would use the layout it had before (the blocks laid out at this wheel would not be
 * there yet, and the fling would stop at the top of what was laid out). Zoom (Ctrl) and sideways wheels are left to it.
 * @param {HTMLElement} list @param {WheelEvent} event
 */
function scrollOnMainThread(list, event) {
  if (event.defaultPrevented || event.ctrlKey || Math.abs(event.deltaY) <= Math.abs(event.deltaX)) return;
  const unit = event.deltaMode === WheelEvent.DOM_DELTA_LINE ? LINE_PX
    : event.deltaMode === WheelEvent.DOM_DELTA_PAGE ? list.clientHeight : 1;
  event.preventDefault();
  list.scrollTop += event.deltaY * unit;
}

/** Pixels a wheel's line is (browsers scroll about 40 px a line). */
const LINE_PX = 40;

/** Whether `el` was put in without its layout (it has no box). @param {Element} el */
export function isUnlaid(el) {
  return el.classList.contains(UNLAID);
}

/** @param {Element} el */
function show(el) {
  el.classList.remove(UNLAID);
  if (el.classList.length === 0) el.removeAttribute("class");
}
