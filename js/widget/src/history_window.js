// Which messages of a long conversation the list draws: the latest one first, then older ones bottom-up, one at a time
// within a frame budget, while the reader is near the top of what is drawn (which a first paint is until the list's box
// is filled): so the work of a first paint is what the box shows, not a count of messages of any size, it does not
// grow with the conversation, and a message nobody scrolls to costs nothing. No DOM here (unit-tested in
// test/history_window.test.js); message_list.js draws what this decides.

/** Messages drawn straight from a snapshot into an empty list (the latest); the rest fill the box above it. */
export const FIRST_PAINT = 1;
/** Older messages are drawn while the reader is within this many list heights of the top of what is drawn. */
export const NEAR_TOP_VIEWS = 1.5;
/** Older messages are taken this many at a time (the frame budget is checked after each slice). */
export const SLICE = 1;
/** Main-thread time one frame may spend drawing older messages until the list's box is filled (the first paint). */
export const FILL_BUDGET_MS = 32;
/** ... and once it is filled (the reader scrolls up): the frames stay smooth. */
export const FRAME_BUDGET_MS = 8;
/** The box counts as filled once this share of a list height is drawn above what it shows. */
export const FILLED_ABOVE = 0.25;
/** The kernel holds the messages before the view's window: they are asked for once this few wait here undrawn. */
export const ASK_BELOW = 10;

/**
 * @template {{id: string}} M
 */
export class HistoryWindow {
  constructor({ firstPaint = FIRST_PAINT, slice = SLICE, nearTop = NEAR_TOP_VIEWS } = {}) {
    this.firstPaint = firstPaint;
    this.slice = slice;
    this.nearTop = nearTop;
    /** @type {M[]} the messages not drawn yet, oldest first (all older than the first drawn one) */
    this.older = [];
  }

  /** How many messages wait above the drawn ones. */
  get remaining() {
    return this.older.length;
  }

  /**
   * The messages to draw after a snapshot, in order; the ones before them wait in `older`.
   * A conversation none of whose messages is drawn (the first snapshot, another conversation) starts from its latest
   * `firstPaint` messages; otherwise the drawn range keeps its first message and everything after it (new messages
   * included), and what is older than it keeps waiting.
   * @param {M[]} messages every message the list shows, oldest first
   * @param {(id: string) => boolean} isDrawn
   * @returns {M[]}
   */
  split(messages, isDrawn) {
    const first = messages.findIndex((m) => isDrawn(m.id));
    const cut = first >= 0 ? first : Math.max(0, messages.length - this.firstPaint);
    this.older = messages.slice(0, cut);
    return messages.slice(cut);
  }

  /**
   * True while older messages wait and the reader is near the top of what is drawn.
   * @param {number} scrollTop @param {number} clientHeight of the scrolling list
   */
  wantsOlder(scrollTop, clientHeight) {
    return this.older.length > 0 && scrollTop < clientHeight * this.nearTop;
  }

  /**
   * True when the messages before the view's window should be asked for now: the kernel holds some (`held`), few
   * wait here undrawn, and none was asked for yet. @param {number} held @param {boolean} asked
   */
  wantsHeld(held, asked) {
    return held > 0 && !asked && this.older.length <= ASK_BELOW;
  }

  /**
   * The main-thread time this frame may spend drawing older messages: more while the list's box is not filled yet.
   * @param {number} scrollTop @param {number} clientHeight of the scrolling list
   */
  budget(scrollTop, clientHeight) {
    return scrollTop < clientHeight * FILLED_ABOVE ? FILL_BUDGET_MS : FRAME_BUDGET_MS;
  }

  /**
   * Take the next older messages to draw (up to `count`, newest of them last), so they go right above the first drawn
   * one in this order. @param {number} [count] @returns {M[]}
   */
  take(count = this.slice) {
    const start = Math.max(0, this.older.length - count);
    return this.older.splice(start);
  }
}
