// Incremental markdown for a streaming message, so the browser's work per frame does not grow with the reply.
// A delta longer than `budget` (e.g. a whole reply arriving at once) is drawn in several updates (the message list
// runs as many per frame as the frame's time allows, the rest in the next frames).
//
// The text splits into finished top-level blocks and an open tail. Each frame lexes the tail only: every token
// before its last non-blank token is finished (a later token proves the block ended), is rendered once and kept; the
// rest stays open and is rendered again next frame. marked reopens a block in three ways, so those stay open too
// (finishedCount): display math, a setext underline that takes a paragraph and the rules and items after it into one
// heading, and a line that is only a list marker so far, which may go on as a lazy line of the block before. A
// block opening with a `$$` line stays open (display math may close after a blank line), and with it everything
// after it, until the math closes. Finished HTML followed by the open tail's HTML equals the HTML of one render of
// the whole text. Two things switch the message to whole renders: raw HTML other than void tags like <br> (an unclosed
// tag would wrap later blocks once sanitized) and link reference definitions (they change links anywhere, earlier
// blocks included).
// An open fenced code block (its closing fence not streamed yet) longer than OPEN_CODE_MIN is not rendered again
// whole every frame: it comes as `code` — highlighted pieces of whole lines, each highlighted once when the
// highlighter ends it outside any string or comment, and the open rest, highlighted again each frame — so a frame
// costs about CODE_PIECE characters however long the block grows. Once the block is closed (or the message is no
// longer live) it renders as any block, in one go, so the final HTML still equals one render of the whole text (the
// message list finishes the block it drew in place from that render: open_code_view.js).
// A long open list, table or paragraph (the blank line or block that ends it not streamed yet) is not rendered again
// whole every frame either: it comes as `list` — its items (rows; a paragraph's pieces, paragraphPieces) before the
// last, each rendered once, and its last one, rendered again each frame. The items drawn are checked against each
// update's lexing (each item's length, each row's cells, each piece's text; a list's kind, start and looseness, a
// table's head): a lexing that changed them starts it over, so what is drawn is what one render gives. While it goes
// on, an update lexes only the text after its finished items (after a table's head: `moreItems`), a window at a time;
// when it ends, it comes as `closed` — its items not drawn yet and its last one — and is finished where it is drawn.
// A reply that arrives faster than it can be drawn (`ahead`): finished blocks that at least `ahead` characters of text
// already follow are not rendered when they finish but returned as `skipped` (source and tokens), so an update that
// skips costs a lexing and the reader's view, at the end of the reply, is drawn first; the message list renders the
// skipped blocks later, in their place (rendered separately, top-level blocks give the HTML of one whole render).
// DOM-free: the message list inserts the HTML; node tests compare strings.
import { codeLanguage, highlightPiece, holdsRawHtml, markdownHtml, markdownTokens, needsWholeRender }
  from "./markdown.js";

/**
 * @typedef {{start: number, lang: string|null, pieces: string[], open: string, source: string, covered: number}}
 *   OpenCode an open code block at offset `start` of the text: highlighted HTML of its finished `pieces` (the same
 *   array, growing, while the block stays open: draw the new ones), then of the `open` rest; `source` its code so far,
 *   the first `covered` characters of which the pieces hold.
 * @typedef {{text: string, tokens: import("marked").Token[]}} Blocks finished top-level blocks left unrendered: their
 *   source and its tokens (lexed already), to render later, in their place
 * @typedef {{id: number, shell: string, inside: string, pieces: string[], open: string}} OpenList a long open list or
 *   table at the end of the text: the unsanitized HTML of the block without items (`shell`: `<ul>\n</ul>\n`,
 *   `<ol start="3">\n</ol>\n`, a table's head and an empty `<tbody>`), of its finished items (rows) in `pieces` (the
 *   same array, growing, while `id` stays: draw the new ones) and of its open last item; the block's HTML is the shell
 *   with the pieces and the open item inside its last `inside` element (ul, ol or tbody).
 * @template [R=string]
 * @typedef {{reset: boolean, closed?: OpenList|null, skipped: Blocks|null, finished: R[], tail: R|null,
 *   pending: boolean, code?: OpenCode, list?: OpenList}} StreamStep
 *   reset: drop everything drawn so far first; closed: the open list (table) drawn a piece at a time ended: draw its
 *   new pieces and its last item, and keep it (it goes before `skipped` and `finished`); skipped: finished blocks not rendered, because at
 *   least `ahead` characters of text follow them (they go before `finished`); finished: HTML of newly finished blocks, to keep (in order);
 *   tail: the open tail rendered, replacing the previous tail (null while pending); pending: more text waits for the
 *   next update (a big delta is drawn in several updates, `budget` characters at a time); code: the open tail is a
 *   long open code block, to draw from its pieces instead of `tail` (which is then null). R: what `render` makes
 *   (HTML in the tests, sanitized nodes in the message list).
 * @typedef {{lex: (text: string) => import("marked").Token[]}} Tokens
 */

const DISPLAY_MATH_OPENER = /^\${1,2}(?:\n|$)/;
/** A paragraph that may be the start of an ordered list's next marker (up to nine digits, its "." or ")" to come). */
const LIST_MARKER_SO_FAR = /^ {0,3}\d{1,9}\s*$/;
/** A line that is only a list item's marker so far (what follows may make it text that continues the block before). */
const MARKER_SO_FAR = /^ {0,3}(?:[*+-]|\d{1,9}[.)]?)[ \t]*\n?$/;

/** Characters past the finished blocks one update looks at (the message list runs several per frame while time
 * remains, so this sets the step, not the frame's work). */
export const BUDGET = 4_000;
/** An open code block longer than this (characters) is drawn piece by piece. */
export const OPEN_CODE_MIN = 1_000;
/** The open rest of a code block becomes a piece once it holds this many characters of whole lines. */
export const CODE_PIECE = 2_000;
const FENCE = /^(?:(`{3,})([^`\n]*)|(~{3,})([^\n]*))\n/;
/** An open list longer than this (characters) is drawn item by item. */
export const OPEN_LIST_MIN = 2_000;
/** Text after an open list's (table's, paragraph's) finished items lexed on its own at most (moreItems): a bigger
 * delta is lexed a window at a time, as if it arrived so (one frame each: the block is laid out again whole in each). */
const MORE_ITEMS_WINDOW = 8 * BUDGET;
const LIST_MARKER = /^ {0,3}(?:([*+-])|\d{1,9}([.)]))/;
let listIds = 0;

/**
 * How a long open list or table is drawn a piece at a time: its items (rows), what identifies one as lexed (a lexing
 * that changed one starts it over), what identifies the whole (its kind; `family`: what items lexed on their own must
 * share with it, a list's start aside), its HTML without items (the shell), the tag its items go in, the HTML of some
 * of its items (marked's, cut out of the HTML of the block holding only them), what goes before items lexed on their
 * own (a table's head) and how much of `body` some of its items, lexed from its start, hold.
 * @template {import("marked").Token} T @template U
 * @typedef {{units: (token: T) => U[], key: (unit: U) => string, kind: (token: T) => string,
 *   family: (token: T) => string, shell: (token: T) => string, inside: (token: T) => string,
 *   html: (token: T, units: U[]) => string, prefix: (open: string) => string, size: (units: U[], body: string) => number}}
 *   PieceShape
 */

/** @type {PieceShape<any, import("marked").Tokens.ListItem>} */
const LIST_SHAPE = {
  units: (token) => token.items,
  key: (item) => String(item.raw.length),
  kind: (token) => `${LIST_SHAPE.family(token)}:${token.start}`,
  // items share their marker's character ("-", "*", "+"; "." or ")" after a number): another one starts another list
  family: (token) => {
    const marker = LIST_MARKER.exec(token.items[0]?.raw ?? "");
    return `list:${token.ordered}:${token.loose}:${marker?.[1] ?? marker?.[2]}`;
  },
  shell: (token) => markdownHtml("", [{ ...token, items: [] }]),
  inside: (token) => (token.ordered ? "ol" : "ul"),
  html: (token, items) => {
    const whole = markdownHtml("", [{ ...token, items }]);
    return whole.slice(whole.indexOf("\n") + 1, whole.lastIndexOf("</"));
  },
  prefix: () => "",
  size: (items) => items.reduce((size, item) => size + item.raw.length, 0),
};

/** @type {PieceShape<any, import("marked").Tokens.TableCell[]>} */
const TABLE_SHAPE = {
  units: (token) => token.rows,
  key: (row) => row.map((cell) => cell.text).join("\u0000"),
  kind: (token) => `table:${JSON.stringify(token.align)}:${TABLE_SHAPE.key(token.header)}`,
  family: (token) => TABLE_SHAPE.kind(token),
  // marked leaves out the <tbody> of a table without rows
  shell: (token) => markdownHtml("", [{ ...token, rows: [] }]).replace(/<\/table>\n$/, "<tbody></tbody></table>\n"),
  inside: () => "tbody",
  html: (token, rows) => {
    const whole = markdownHtml("", [{ ...token, rows }]);
    return whole.slice(whole.indexOf("<tbody>") + "<tbody>".length, whole.lastIndexOf("</tbody>"));
  },
  // its rows are its lines after the head (its first two lines), each lexed alone
  prefix: (open) => open.slice(0, open.indexOf("\n", open.indexOf("\n") + 1) + 1),
  size: (rows, body) => lineEnd(body, rows.length),
};

/** Characters of a long open paragraph's text at least in each of its pieces (the last, open one aside). */
export const PARAGRAPH_PIECE = 1_000;
/** In a paragraph's literal text, what text to come may still make part of a construct: a code span, a link, raw
 * HTML, emphasis or strikethrough opening here (`forever`: the paragraph is not cut after it), inline math (not after
 * the next line break: math does not span lines). */
const OPENS_LATER = /(?<forever>`|\[|<(?=[A-Za-z/!?])|\*+(?![\s*])|~+(?![\s~])|(?<![\p{L}\p{N}_])_+(?![\s_]))|\$/gu;
/** Where a paragraph may be cut: after a space before a letter, or after a CJK sentence's punctuation before a CJK
 * character (Chinese, Japanese and Korean run without spaces); a line starting there could not start a block, nor the
 * text there an autolink that the text before would have prevented. */
const PARAGRAPH_CUT = /(?<= )\p{L}|(?<=[。！？，；：、])[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/gu;

/**
 * A paragraph's inline tokens in pieces of at least PARAGRAPH_PIECE characters, cut only in literal text with nothing
 * before the cut that text to come could still change (OPENS_LATER), so each piece renders alone as it does in the
 * paragraph and the text after a cut lexes alone as it does there. Each cut is the first one allowed at least
 * PARAGRAPH_PIECE characters after the one before: the cuts do not depend on how the text arrived.
 * @param {import("marked").Tokens.Paragraph} token @returns {import("marked").Token[][]}
 */
function paragraphPieces(token) {
  // its literal text, other tokens blanked (their line breaks kept), at the offsets of its source
  const literal = token.tokens.map((inline) => (inline.type === "text" ? inline.raw
    : inline.raw.replace(/[^\n]/g, "\u0000"))).join("");
  const opens = [...literal.matchAll(OPENS_LATER)];
  const cuts = [];
  let last = 0;
  let open = 0;
  let blocked = -1; // where the math opened before the cut looked at may close
  for (const cut of literal.matchAll(PARAGRAPH_CUT)) {
    for (; open < opens.length && opens[open].index < cut.index; open += 1) {
      if (opens[open].groups?.forever) return splitTokens(token.tokens, cuts);
      const lineEnd = literal.indexOf("\n", opens[open].index);
      blocked = Math.max(blocked, lineEnd < 0 ? literal.length : lineEnd);
    }
    if (cut.index - last >= PARAGRAPH_PIECE && cut.index > blocked) cuts.push((last = cut.index));
  }
  return splitTokens(token.tokens, cuts);
}

/**
 * Inline tokens in pieces, cut at offsets of their source that fall in literal text (a text token cut in two) or
 * between tokens. @param {import("marked").Token[]} tokens @param {number[]} cuts increasing
 * @returns {import("marked").Token[][]}
 */
function splitTokens(tokens, cuts) {
  const pieces = [];
  let piece = [];
  let at = 0;
  let next = 0;
  for (const inline of tokens) {
    let from = 0;
    for (; next < cuts.length && cuts[next] < at + inline.raw.length; next += 1) {
      const inside = cuts[next] - at;
      if (inside > from) {
        const text = inline.raw.slice(from, inside);
        piece.push({ ...inline, raw: text, text });
      }
      pieces.push(piece);
      [piece, from] = [[], inside];
    }
    if (from === 0) piece.push(inline);
    else if (from < inline.raw.length) {
      const text = inline.raw.slice(from);
      piece.push({ ...inline, raw: text, text });
    }
    at += inline.raw.length;
  }
  pieces.push(piece);
  return pieces;
}

/** @type {PieceShape<import("marked").Tokens.Paragraph, import("marked").Token[]>} */
const PARAGRAPH_SHAPE = {
  units: paragraphPieces,
  key: (piece) => piece.map((inline) => inline.raw).join(""),
  kind: () => "paragraph",
  family: () => "paragraph",
  shell: (token) => markdownHtml("", [{ ...token, tokens: [] }]),
  inside: () => "p",
  html: (token, pieces) => {
    const whole = markdownHtml("", [{ ...token, tokens: pieces.flat() }]);
    return whole.slice("<p>".length, whole.lastIndexOf("</p>"));
  },
  prefix: () => "",
  size: (pieces) => pieces.reduce((size, piece) => size + PARAGRAPH_SHAPE.key(piece).length, 0),
};

/**
 * A blockquote's blocks, each with the blank lines after it (those before its first go with it too): what it is drawn
 * in pieces of. @param {import("marked").Tokens.Blockquote} token @returns {import("marked").Token[][]}
 */
function quotedBlocks(token) {
  // its blocks' sources must add up to its text (the lexer drops a line break before a block it lexes after a lazy
  // line), else where one ends in the quote's source is not known: then it is one piece, drawn whole
  if (token.tokens.map((inner) => inner.raw).join("") !== token.text) return [token.tokens];
  // its blocks are finished as the text's are (finishedCount): those from its first open one on are one block
  const open = finishedCount(token.tokens);
  /** @type {import("marked").Token[][]} */
  const blocks = [];
  /** @type {import("marked").Token[]} */
  let block = [];
  token.tokens.forEach((inner, i) => {
    if (i <= open && inner.type !== "space" && block.some((before) => before.type !== "space")) {
      blocks.push(block);
      block = [];
    }
    block.push(inner);
  });
  blocks.push(block);
  return blocks;
}

/** @type {PieceShape<import("marked").Tokens.Blockquote, import("marked").Token[]>} */
const BLOCKQUOTE_SHAPE = {
  units: quotedBlocks,
  key: (blocks) => blocks.map((inner) => inner.raw).join(""),
  kind: () => "blockquote",
  family: () => "blockquote",
  shell: (token) => markdownHtml("", [{ ...token, tokens: [] }]),
  inside: () => "blockquote",
  html: (token, blocks) => {
    const whole = markdownHtml("", [{ ...token, tokens: blocks.flat() }]);
    return whole.slice("<blockquote>\n".length, whole.lastIndexOf("</blockquote>"));
  },
  prefix: () => "",
  // a quoted line is a line of the quote's source (its marker taken off)
  size: (blocks, body) => lineEnd(body, blocks.map(BLOCKQUOTE_SHAPE.key).join("").split("\n").length - 1),
};

/** @param {import("marked").Token | undefined} token @returns {PieceShape<any, any> | null} */
function pieceShape(token) {
  if (token?.type === "list") return LIST_SHAPE;
  if (token?.type === "table") return TABLE_SHAPE;
  if (token?.type === "blockquote") return BLOCKQUOTE_SHAPE;
  // a paragraph whose inline tokens hold its text from its start (offsets in it are offsets in its source)
  return token?.type === "paragraph" && token.raw.startsWith(token.text) ? PARAGRAPH_SHAPE : null;
}

/** In a reply that streamed, finished blocks that at least this many characters of its text already follow when they
 * are drawn are skipped (drawn later, in their place): a reply arriving faster than it can be drawn shows its newest
 * text first, while it streams and as it catches up after its end. */
export const AHEAD_CHARS = 1_200;

/** @template [R=string] */
export class MarkdownStream {
  /**
   * @param {(text: string, tokens?: import("marked").Token[]) => R} render markdown (and, for finished blocks, its
   *   top-level tokens, lexed already) → its rendering
   * @param {Tokens} tokens
   * @param {number} budget characters past the finished blocks looked at per update (more while none finishes)
   */
  constructor(render = /** @type {any} */ (markdownHtml), tokens = markdownTokens, budget = BUDGET, highlight = highlightPiece) {
    this.render = render;
    this.tokens = tokens;
    this.budget = budget;
    this.highlight = highlight;
    /** false once the message stopped streaming: an open code block then renders whole, as a full render does */
    this.live = true;
    /** milliseconds the last update spent on its open tail (its share of the lexing, and its render): the work
     * that is done again at every update while the tail stays open (the message list throttles by it) */
    this.tailCost = 0;
    /** finished blocks followed by at least this many characters of text are not rendered but returned as `skipped`
     * (a reply arriving faster than it can be drawn: what the reader sees is its end); Infinity: never */
    this.ahead = Infinity;
    this.reset();
  }

  reset() {
    /** the text of the finished blocks */
    this.done = "";
    /** characters after them the last update lexed without finding a finished block (0: it found one) */
    this.openSize = 0;
    /** true once the message needs whole renders (see the top of this file) */
    this.whole = false;
    /** @type {(OpenCode & {tried: number}) | null} the open code block drawn piece by piece */
    this.code = null;
    /** @type {{lang: string|null, source: string, html: string} | null} the highlighted pieces of the last open code
     * block drawn piece by piece (the code they hold and their HTML): its whole render highlights only the rest */
    this.highlighted = null;
    /** @type {(OpenList & {start: number, kind: string, family: string, keys: string[], prefix: string, from: number,
     *   source: string}) | null} the open list or table drawn a piece at a time: where it starts in the text, its kind
     * (a list's start, looseness and marker, a table's head) and what identifies each item drawn; what goes before
     * its items lexed on their own (a table's head), where the text after its finished items starts and its text up
     * to there */
    this.list = null;
  }

  /** @param {string} text the message's whole text so far @returns {StreamStep} */
  update(text) {
    let reset = false;
    if (!text.startsWith(this.done)) {
      this.reset();
      reset = true;
    }
    if (this.whole) return this.wholeRender(text, true);
    const items = this.moreItems(text);
    if (items) return { reset, ...items };
    const started = performance.now();
    let end, tail, tokens, count;
    // a block longer than the window (nothing finished in it) doubles the window; a block that was open at the last
    // update starts it at twice what that update lexed (plus the budget), so a growing open block (a long table,
    // list or paragraph) is lexed about once per update, not again in every window up to its length
    for (let size = 2 * this.openSize + this.budget; ; size *= 2) {
      end = Math.min(text.length, this.done.length + size);
      tail = text.slice(this.done.length, end);
      tokens = this.tokens.lex(tail);
      count = finishedCount(tokens);
      if (count > 0 || end === text.length) break;
    }
    this.openSize = count === 0 ? tail.length : 0;
    let cut = 0;
    for (let i = 0; i < count; i += 1) cut += tokens[i].raw.length;
    if (!this.incremental(tokens, tail)) {
      const hadFinished = this.done !== "";
      this.reset();
      this.whole = true;
      return this.wholeRender(text, reset || hadFinished);
    }
    const lexing = performance.now() - started;
    const finished = [];
    let skipped = null;
    // an open list or table drawn a piece at a time that ended is finished where it is drawn
    const closed = count > 0 ? this.closeList(tokens[0]) : null;
    const first = closed ? 1 : 0;
    if (cut > 0) {
      // the blocks that end at least `ahead` characters before the end of the text are skipped
      let skip = first;
      let skipCut = closed ? tokens[0].raw.length : 0;
      const after = skipCut;
      const last = text.length - this.done.length - this.ahead;
      while (skip < count && skipCut + tokens[skip].raw.length <= last) skipCut += tokens[skip++].raw.length;
      if (skip > first) skipped = { text: tail.slice(after, skipCut), tokens: tokens.slice(first, skip) };
      if (skip < count) finished.push(this.render(tail.slice(skipCut, cut), tokens.slice(skip, count)));
      this.done += tail.slice(0, cut);
    }
    const open = tail.slice(cut);
    const tailStarted = performance.now();
    const share = (lexing * open.length) / Math.max(1, tail.length);
    // more text waits: the next update goes on from the finished blocks, so the open tail is not drawn now
    if (end < text.length) {
      this.tailCost = share;
      return { reset, closed, skipped, finished, tail: null, pending: true };
    }
    const code = this.openCode(open, tokens);
    const list = code ? null : this.openList(open, tokens.slice(count));
    const rendered = code || list ? null : this.render(open, tokens.slice(count));
    this.tailCost = share + performance.now() - tailStarted;
    if (code) return { reset, closed, skipped, finished, tail: null, pending: false, code };
    if (list) return { reset, closed, skipped, finished, tail: null, pending: false, list };
    return { reset, closed, skipped, finished, tail: rendered, pending: false };
  }

  /** The whole text rendered again (all of it is the open tail). @param {string} text @param {boolean} reset */
  wholeRender(text, reset) {
    const started = performance.now();
    const tail = this.render(text);
    this.tailCost = performance.now() - started;
    return { reset, skipped: null, finished: [], tail, pending: false };
  }

  /**
   * The open tail as an open code block drawn piece by piece, or null when it is not a long one at the top level.
   * @param {string} open @param {import("marked").Token[]} tokens
   * @returns {OpenCode|null}
   */
  openCode(open, tokens) {
    const fence = this.live && open.length >= OPEN_CODE_MIN ? FENCE.exec(open) : null;
    const last = tokens[tokens.length - 1];
    if (!fence || last?.type !== "code" || last.raw !== open || closes(open, fence[1] ?? fence[3])) {
      this.code = null;
      return null;
    }
    const start = this.done.length;
    const lang = codeLanguage(fence[2] ?? fence[4] ?? "");
    if (this.code?.start !== start || this.code.lang !== lang) {
      this.code = { start, lang, pieces: [], open: "", source: "", covered: 0, tried: 0 };
    }
    const code = this.code;
    const source = open.slice(fence[0].length);
    let rest = source.slice(code.covered);
    if (rest.length >= CODE_PIECE && rest.length >= code.tried + CODE_PIECE) {
      // whole lines up to the last line break become a piece, when the highlighter ends them outside any construct
      const lines = rest.slice(0, rest.lastIndexOf("\n") + 1);
      const piece = lines ? this.highlight(lines, lang) : null;
      if (piece?.clean) {
        code.pieces.push(piece.html);
        code.covered += lines.length;
        this.highlighted = { lang, source: source.slice(0, code.covered), html: code.pieces.join("") };
        code.tried = 0;
        rest = rest.slice(lines.length);
      } else {
        code.tried = rest.length; // try again once another piece's worth arrived
      }
    }
    code.open = this.highlight(rest, lang).html;
    code.source = source;
    return code;
  }

  /**
   * The open tail as a long open list drawn item by item, or a long open table row by row, or null when it is neither
   * (see the top of this file). `continued`: `open` is what goes before its items lexed on their own (a table's head)
   * followed by the text after its finished items (moreItems), and `tokens` its lexing.
   * @param {string} open @param {import("marked").Token[]} tokens the open tail's top-level tokens
   * @returns {OpenList|null}
   */
  openList(open, tokens, continued = false) {
    // the list, table or paragraph, then only blank lines (they render as nothing)
    const shape = pieceShape(tokens[0]);
    const token = shape && tokens.every((t, i) => i === 0 || t.type === "space")
      && (continued || open.length >= OPEN_LIST_MIN) && !holdsRawHtml(open, tokens) // sanitized apart (markdown.js)
      ? tokens[0] : null;
    const units = token && shape ? shape.units(token) : [];
    if (!token || !shape || units.length < (continued ? 1 : 2)) {
      // an ordered list's next number before its "." is a paragraph after the list for now: drawn whole this once
      const last = tokens.filter((t) => t.type !== "space").pop();
      const next = tokens[0]?.type === "list" && last?.type === "paragraph" && LIST_MARKER_SO_FAR.test(last.raw);
      return continued || next ? null : (this.list = null);
    }
    const start = this.done.length;
    const kind = shape.kind(token);
    let drawn = this.list?.start === start
      && (continued ? this.list.family === shape.family(token) : this.list.kind === kind) ? this.list : null;
    if (continued && !drawn) return null;
    // the items drawn must be what this lexing gives, else the list starts over
    const changed = (/** @type {string} */ key, /** @type {number} */ i) => i >= units.length - 1
      || shape.key(units[i]) !== key;
    if (!continued && drawn?.keys.some(changed)) drawn = null;
    const prefix = shape.prefix(open);
    if (!drawn) {
      drawn = this.list = {
        id: (listIds += 1), start, kind, family: shape.family(token), keys: [], shell: shape.shell(token),
        inside: shape.inside(token), pieces: [], open: "", prefix, from: start, source: "",
      };
    }
    addItems(drawn, shape, token, units, continued ? 0 : drawn.keys.length);
    // the text up to the end of the items drawn (continued: `open` holds the prefix and the items after them)
    const body = open.slice(prefix.length);
    drawn.source = (continued ? drawn.source : prefix) + body.slice(0, shape.size(units.slice(0, -1), body));
    drawn.from = start + drawn.source.length;
    return drawn;
  }

  /**
   * The open list or table drawn a piece at a time, when `token` is it, ended: its items not drawn yet as pieces, its
   * last item as the open one; null when `token` is not it as drawn (its kind, or an item drawn, changed: it is rendered
   * whole, as any finished block). @param {import("marked").Token} token the first finished block
   * @returns {OpenList|null}
   */
  closeList(token) {
    const drawn = this.list;
    this.list = null;
    const shape = pieceShape(token);
    if (!drawn || !shape || drawn.start !== this.done.length || shape.kind(token) !== drawn.kind
      || holdsRawHtml(token.raw, [token])) return null;
    const units = shape.units(token);
    if (units.length <= drawn.keys.length || drawn.keys.some((key, i) => shape.key(units[i]) !== key)) return null;
    addItems(drawn, shape, token, units, drawn.keys.length);
    return drawn;
  }

  /**
   * An open list (table) drawn item by item that goes on: only the text after its finished items is lexed (after a
   * table's head; a table's rows are lines, a list's items lexed alone are what they are in the list when they share
   * its marker and looseness), so an update costs what arrived, not the whole list. Null when the text does not go on
   * from the items drawn, or the list ended or changed (the caller lexes the whole of it then).
   * @param {string} text @returns {Omit<StreamStep, "reset">|null}
   */
  moreItems(text) {
    const list = this.list;
    if (!list || list.start !== this.done.length || !text.startsWith(list.source, list.start)) return null;
    const started = performance.now();
    const from = list.from;
    const end = Math.min(text.length, from + MORE_ITEMS_WINDOW);
    const tail = list.prefix + text.slice(from, end);
    const tokens = this.tokens.lex(tail);
    if (finishedCount(tokens) > 0 || !this.incremental(tokens, tail)) return null;
    const drawn = this.openList(tail, tokens, true);
    // a window in which no item finished (one longer than it) takes the whole lexing
    if (!drawn || (end < text.length && drawn.from === from)) return null;
    this.openSize = end - this.done.length; // should the list end, the next lexing takes it whole
    // done again at the next update: lexing what goes before the items and the open last item (not the new items)
    const again = list.prefix.length + end - drawn.from;
    this.tailCost = ((performance.now() - started) * again) / Math.max(1, tail.length);
    return { skipped: null, finished: [], tail: null, pending: end < text.length, list: drawn };
  }

  /** @param {import("marked").Token[]} tokens @param {string} tail */
  incremental(tokens, tail) {
    let length = 0;
    for (const token of tokens) length += token.raw.length;
    // the lexer normalized something (offsets would not match), or the blocks can't be rendered apart
    return length === tail.length && !needsWholeRender(tokens);
  }

}

/** A list item's marker at a line's start, then a space: what stops a setext heading's text in marked. */
const STARTS_BLOCK = /^(?:[*+-]|\d{1,9}[.)]) /;

/**
 * Whether a setext underline still to come would take `token`, after a paragraph and no blank line, into that
 * paragraph's heading: marked reads a paragraph's next lines up to such an underline as the heading's text unless one
 * starts a block, and neither a rule nor an item whose marker is indented or has no space after it counts as starting
 * one there ("Intro\n - a\n---" and "Intro\n***\nmore\n---" are h2s of three lines; an item with nothing after its
 * marker yet is lexed as a paragraph of its own). @param {import("marked").Token} token
 */
function joinsHeading(token) {
  return token.type === "paragraph" || token.type === "hr" || (token.type === "list" && !STARTS_BLOCK.test(token.raw));
}

/**
 * Where the paragraph starts that the blocks at the end of `tokens` (up to `last`) would join in one heading, should a
 * setext underline come (joinsHeading); -1 when none would. @param {import("marked").Token[]} tokens
 * @param {number} last the index of their last one
 */
function headingToCome(tokens, last) {
  let start = -1;
  for (let i = last; i >= 0 && joinsHeading(tokens[i]); i -= 1) if (tokens[i].type === "paragraph") start = i;
  return start;
}

/** Whether `token` starts with a `$$` line that does not close on its own (it is not the math block yet).
 * @param {import("marked").Token} token */
function opensMath(token) {
  return token.type !== "blockKatex" && DISPLAY_MATH_OPENER.test(token.raw);
}

/** @param {import("marked").Token} token */
function isSetextHeading(token) {
  return token.type === "heading" && !token.raw.trimStart().startsWith("#");
}

/**
 * How many tokens at the start of the tail are finished blocks: all tokens before the last non-blank one, stopping
 * early at a block that opens display math (a `$$` line, closed later, after blank lines too, makes one block, though
 * until then it may be lexed as a paragraph, a table's head or a heading), at a
 * paragraph that the lists after it may still join in a heading (headingToCome), at the block right before a last one
 * that is only a list marker so far (MARKER_SO_FAR) or a setext heading (its underline may go on as text) and at a
 * list that the last block may still join (a loose ordered list's next marker arriving: "2" becomes "2. item").
 * @param {import("marked").Token[]} tokens
 */
export function finishedCount(tokens) {
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last].type === "space") last -= 1;
  let count = 0;
  while (count < last && !opensMath(tokens[count])) {
    count += 1;
  }
  const heading = headingToCome(tokens, last);
  if (heading >= 0) count = Math.min(count, heading);
  // "- item\nlazy\n*" may go on as "**bold**", the item's lazy line; "text\n    indented\nmore\n-", a paragraph and a
  // setext heading, may go on as one paragraph
  if (count === last && last > 0 && tokens[last - 1].type !== "space"
    && (MARKER_SO_FAR.test(tokens[last].raw) || isSetextHeading(tokens[last]))) {
    count = last - 1;
  }
  if (count === last && last > 0 && tokens[last].type === "paragraph" && LIST_MARKER_SO_FAR.test(tokens[last].raw)) {
    let before = last - 1;
    while (before > 0 && tokens[before].type === "space") before -= 1;
    if (tokens[before].type === "list") count = before;
  }
  return count;
}

/**
 * Draw `units` (the items of `token`, a list or table `drawn` a piece at a time) from `before` on: those before the last
 * as a new piece, the last as its open item.
 * @param {NonNullable<MarkdownStream["list"]>} drawn @param {PieceShape<any, any>} shape @param {any} token
 * @param {unknown[]} units @param {number} before
 */
function addItems(drawn, shape, token, units, before) {
  const finished = units.length - 1;
  if (before < finished) {
    const items = units.slice(before, finished);
    drawn.pieces.push(shape.html(token, items));
    for (const item of items) drawn.keys.push(shape.key(item));
  }
  drawn.open = shape.html(token, units.slice(finished));
}

/** Where the `count`th line of `text` ends (after its line break). @param {string} text @param {number} count */
function lineEnd(text, count) {
  let end = 0;
  for (let line = 0; line < count; line += 1) end = text.indexOf("\n", end) + 1;
  return end;
}

/**
 * Whether an open tail that starts with a code fence also closes it (a line of at least as many of the same fence
 * characters, indented at most three spaces).
 * @param {string} open @param {string} fence
 */
function closes(open, fence) {
  const char = fence[0] === "`" ? "`" : "~";
  const closing = new RegExp(`\\n {0,3}\\${char}{${fence.length},}[ \\t]*(?:\\n|$)`);
  return closing.test(open.slice(open.indexOf("\n")));
}
