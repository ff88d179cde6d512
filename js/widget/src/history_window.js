// Which messages of a long conversation the list draws: the latest ones first, older ones only when the reader comes
// near the top of what is drawn (scrolling up), a slice at a time, so the work of a first paint does not grow with the
// conversation and a message nobody scrolls to costs nothing. No DOM here (unit-tested in test/history_window.test.js);
// message_list.js draws what this decides.

/** Messages drawn when a conversation first arrives (the latest ones); the rest wait until the reader nears them. */
export const FIRST_PAINT = 12;
/** Older messages are drawn while the reader is within this many list heights of the top of what is drawn. */
export const NEAR_TOP_VIEWS = 1.5;
/** At most this many older messages are drawn in one go (the frame budget may stop a slice earlier). */
export const SLICE = 8;

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
   * Take the next older messages to draw (up to `count`, newest of them last), so they go right above the first drawn
   * one in this order. @param {number} [count] @returns {M[]}
   */
  take(count = this.slice) {
    const start = Math.max(0, this.older.length - count);
    return this.older.splice(start);
  }
}
