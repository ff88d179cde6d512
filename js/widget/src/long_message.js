// A long message that arrives whole (restored history, not streaming) is drawn from its end: the reader, at the bottom
// of the list, sees its last blocks first, and the blocks above them follow a frame budget at a time, so the first
// paint of a 200 KB reply costs what the list's box shows, not the reply's length. The text is lexed once into
// top-level blocks, a window at a time (lexing 200 KB at once is a long task of its own), from its start, as the
// streaming renderer lexes a reply that streams; then slices of whole blocks are rendered newest first and put above
// what is drawn. The slices' HTML, in order, equals one render of the whole text (test/long_message.test.js), under the
// same conditions as the streaming renderer's finished blocks (streaming_markdown.js): no raw HTML other than void tags
// and no link reference definitions (they change other blocks); a text that has any is drawn the streaming way.
// DOM-free.
import { markdownTokens, needsWholeRender } from "./markdown.js";
import { finishedCount } from "./streaming_markdown.js";

/** A message at least this long (characters) that arrives whole is drawn from its end. */
export const LONG_MESSAGE = 20_000;
/** Characters of markdown rendered per slice (a slice ends at a block's end, so it may hold more). */
export const SLICE_CHARS = 4_000;
/** Characters lexed per step (more when no block ends inside them). */
export const LEX_WINDOW = 8_000;

export class BackwardText {
  /**
   * @param {string} text the whole text @param {import("./streaming_markdown.js").Tokens} tokens
   * @param {number} slice characters per slice @param {number} window characters lexed per step
   */
  constructor(text, tokens = markdownTokens, slice = SLICE_CHARS, window = LEX_WINDOW) {
    this.text = text;
    this.tokens = tokens;
    this.slice = slice;
    this.window = window;
    /** @type {import("marked").Token[]} the top-level blocks lexed so far, in order */
    this.blocks = [];
    /** characters of the text the blocks cover */
    this.lexed = 0;
    /** characters the next step lexes: `window`, doubled after each step in which no block ended */
    this.size = window;
    /** false once the text turned out not to be drawable in slices (then draw it the streaming way) */
    this.usable = true;
    /** blocks before this index are not drawn yet (set once the whole text is lexed) */
    this.end = 0;
  }

  /** True while part of the text waits to be lexed (`lexStep`). */
  get lexing() {
    return this.usable && this.lexed < this.text.length;
  }

  /** True while the text is being lexed or blocks above the drawn ones wait. */
  get pending() {
    return this.lexing || this.end > 0;
  }

  /**
   * Lex the next window of the text into blocks (all of them once the window reaches the text's end). A window in
   * which no block ends (one long block: a code block, a table, a paragraph) adds nothing: the next step lexes one
   * twice as long, so that no step lexes much more than a window's worth at once (lexing an 80 KB table's windows one
   * after another in one step took 40-60 ms).
   */
  lexStep() {
    if (!this.lexing) return;
    const end = Math.min(this.text.length, this.lexed + this.size);
    const part = this.text.slice(this.lexed, end);
    const lexed = this.tokens.lex(part);
    const count = end === this.text.length ? lexed.length : finishedCount(lexed);
    if (count === 0 && end < this.text.length) {
      this.size *= 2;
      return;
    }
    this.size = this.window;
    let length = 0;
    for (const token of lexed) length += token.raw.length;
    if (length !== part.length || needsWholeRender(lexed)) {
      this.usable = false;
      this.blocks = [];
      return;
    }
    for (let i = 0; i < count; i += 1) {
      this.blocks.push(lexed[i]);
      this.lexed += lexed[i].raw.length;
    }
    if (this.lexed === this.text.length) this.end = this.blocks.length;
  }

  /**
   * The next slice to draw (once lexed): whole blocks right above the drawn ones, about `slice` characters, as their
   * source and their tokens. @returns {{text: string, tokens: import("marked").Token[]}}
   */
  next() {
    let start = this.end;
    let size = 0;
    while (start > 0 && (size === 0 || size + this.blocks[start - 1].raw.length <= this.slice)) {
      start -= 1;
      size += this.blocks[start].raw.length;
    }
    const tokens = this.blocks.slice(start, this.end);
    this.end = start;
    return { text: tokens.map((token) => token.raw).join(""), tokens };
  }
}
