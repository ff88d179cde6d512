// Incremental markdown for a streaming message, so the browser's work per frame does not grow with the reply.
// A delta longer than `budget` (e.g. a whole reply arriving at once) is drawn over several frames.
//
// The text splits into finished top-level blocks and an open tail. Each frame lexes the tail only: every token
// before its last non-blank token is finished (a later token proves the block ended; markdown blocks never
// reopen), is rendered once and kept; the rest stays open and is rendered again next frame. Finished HTML
// followed by the open tail's HTML equals the HTML of one render of the whole text. Two things switch the message
// to whole renders: raw HTML other than void tags like <br> (an unclosed tag would wrap later blocks once
// sanitized) and link reference definitions (they change links anywhere, earlier blocks included). A paragraph opening with a `$$` line stays
// open (display math may close after a blank line), and with it everything after it, until the math closes.
// DOM-free: the message list inserts the HTML; node tests compare strings.
import { markdownTokens, renderMarkdown } from "./markdown.js";

/**
 * @typedef {{reset: boolean, finished: string[], tail: string, pending: boolean}} StreamStep
 *   reset: drop everything drawn so far first; finished: HTML of newly finished blocks, to keep (in order);
 *   tail: HTML of the open tail, replacing the previous tail; pending: more text waits for the next update
 *   (a big delta is drawn over several frames, `budget` characters at a time).
 * @typedef {{lex: (text: string) => import("marked").Token[],
 *   walk: (tokens: import("marked").Token[], visit: (token: import("marked").Token) => void) => void}} Tokens
 */

const VOID_TAG = /^<(?:br|hr|img|wbr)\b[^<>]*>$/i;
const DISPLAY_MATH_OPENER = /^\${1,2}\n/;

export const BUDGET = 16_000;

export class MarkdownStream {
  /**
   * @param {(text: string) => string} render markdown → HTML @param {Tokens} tokens
   * @param {number} budget characters past the finished blocks looked at per update (more while none finishes)
   */
  constructor(render = renderMarkdown, tokens = markdownTokens, budget = BUDGET) {
    this.render = render;
    this.tokens = tokens;
    this.budget = budget;
    this.reset();
  }

  reset() {
    /** the text of the finished blocks */
    this.done = "";
    /** true once the message needs whole renders (see the top of this file) */
    this.whole = false;
  }

  /** @param {string} text the message's whole text so far @returns {StreamStep} */
  update(text) {
    let reset = false;
    if (!text.startsWith(this.done)) {
      this.reset();
      reset = true;
    }
    if (this.whole) return { reset: true, finished: [], tail: this.render(text), pending: false };
    let end, tail, tokens, cut;
    for (let size = this.budget; ; size *= 2) {
      // a block longer than the window (nothing finished in it) widens the window
      end = Math.min(text.length, this.done.length + size);
      tail = text.slice(this.done.length, end);
      tokens = this.tokens.lex(tail);
      cut = finishedLength(tokens);
      if (cut > 0 || end === text.length) break;
    }
    if (!this.incremental(tokens, tail)) {
      const hadFinished = this.done !== "";
      this.reset();
      this.whole = true;
      return { reset: reset || hadFinished, finished: [], tail: this.render(text), pending: false };
    }
    const finished = [];
    if (cut > 0) {
      finished.push(this.render(tail.slice(0, cut)));
      this.done += tail.slice(0, cut);
    }
    return { reset, finished, tail: this.render(tail.slice(cut)), pending: end < text.length };
  }

  /** @param {import("marked").Token[]} tokens @param {string} tail */
  incremental(tokens, tail) {
    let length = 0;
    for (const token of tokens) length += token.raw.length;
    if (length !== tail.length) return false; // the lexer normalized something: offsets would not match
    let plain = true;
    this.tokens.walk(tokens, (token) => {
      if (token.type === "def" || (token.type === "html" && !VOID_TAG.test(token.raw.trim()))) plain = false;
    });
    return plain;
  }
}

/**
 * How many characters at the start of the tail are finished blocks: all tokens before the last non-blank one,
 * stopping early at a paragraph that opens display math (`$$` closed later, after a blank line, makes one block).
 * @param {import("marked").Token[]} tokens
 */
export function finishedLength(tokens) {
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last].type === "space") last -= 1;
  let cut = 0;
  for (let i = 0; i < last; i += 1) {
    const token = tokens[i];
    if (token.type === "paragraph" && DISPLAY_MATH_OPENER.test(token.raw)) break;
    cut += token.raw.length;
  }
  return cut;
}
