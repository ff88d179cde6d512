// A long message that arrives whole (restored history, not streaming) is drawn from its end: the reader, at the bottom
// of the list, sees its last blocks first, and the blocks above them follow a frame budget at a time, so the first
// paint of a 200 KB reply costs what the list's box shows, not the reply's length. The text is lexed once into
// top-level blocks; slices of whole blocks are rendered newest first and put above what is drawn. The slices' HTML,
// in order, equals one render of the whole text (test/long_message.test.js), under the same conditions as the
// streaming renderer's finished blocks (streaming_markdown.js): no raw HTML other than void tags and no link
// reference definitions (they change other blocks); a text that has any is drawn the streaming way. DOM-free.
import { markdownTokens } from "./markdown.js";

/** A message at least this long (characters) that arrives whole is drawn from its end. */
export const LONG_MESSAGE = 20_000;
/** Characters of markdown rendered per slice (a slice ends at a block's end, so it may hold more). */
export const SLICE_CHARS = 4_000;
const VOID_TAG = /^<(?:br|hr|img|wbr)\b[^<>]*>$/i;

export class BackwardText {
  /**
   * @param {string} text the whole text @param {import("./streaming_markdown.js").Tokens} tokens
   * @param {number} slice characters per slice
   */
  constructor(text, tokens = markdownTokens, slice = SLICE_CHARS) {
    this.text = text;
    this.slice = slice;
    /** @type {string[]} the top-level blocks' source, in order; empty when the text can't be drawn in slices */
    this.blocks = [];
    const lexed = tokens.lex(text);
    let length = 0;
    let plain = true;
    for (const token of lexed) length += token.raw.length;
    tokens.walk(lexed, (token) => {
      if (token.type === "def" || (token.type === "html" && !VOID_TAG.test(token.raw.trim()))) plain = false;
    });
    if (plain && length === text.length) this.blocks = lexed.map((token) => token.raw);
    /** blocks before this index are not drawn yet */
    this.end = this.blocks.length;
  }

  /** Whether the text can be drawn in slices (else draw it the streaming way). */
  get usable() {
    return this.blocks.length > 0;
  }

  /** True while blocks above the drawn ones wait. */
  get pending() {
    return this.end > 0;
  }

  /** The source of the next slice to draw: whole blocks right above the drawn ones, about `slice` characters. */
  next() {
    let start = this.end;
    let size = 0;
    while (start > 0 && (size === 0 || size + this.blocks[start - 1].length <= this.slice)) {
      start -= 1;
      size += this.blocks[start].length;
    }
    const source = this.blocks.slice(start, this.end).join("");
    this.end = start;
    return source;
  }
}
