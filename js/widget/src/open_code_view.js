// An open fenced code block drawn piece by piece while it streams (streaming_markdown.js `code`): its toolbar, its
// highlighted pieces, each put in once, then its open rest, drawn again each frame. When the block closes (or the
// reply ends), the block drawn stays and is finished in place — the code after its pieces highlighted, its class set
// as one render's — instead of one render of it put in anew: a long block laid out again whole took 80 ms of a frame.
// The pieces each frame brings, the open rest and, when it is finished, the code after its pieces are blocks of their
// own (`nbc-code-piece`, each ending at a line's end): the page lays out what a frame adds, not the whole block again
// (one run of highlighted text of 64 KB took 16 ms of layout per frame, as blocks 1-4 ms), and they stay: made one
// run of text again, an 80 KB block took 100 ms of moving nodes, styling and layout. They show and select as one
// render's run of text; their HTML is one render's with the pieces taken out (e2e DRAWN_HTML).
import { codeBlock, codeLanguageOf, highlightPiece } from "./markdown.js";

export class OpenCodeView {
  /**
   * @param {import("./streaming_markdown.js").OpenCode} open
   * @param {((code: string) => void) | null} insertCell the toolbar's Insert as cell
   */
  constructor(open, insertCell) {
    /** where the block starts in the message's text */
    this.start = open.start;
    this.lang = open.lang;
    /** pieces drawn, and the characters of code they hold */
    this.pieces = 0;
    this.covered = 0;
    /** the code the toolbar copies */
    this.source = "";
    const holder = document.createElement("div");
    const pre = document.createElement("pre");
    this.code = document.createElement("code");
    if (open.lang) this.code.className = `language-${open.lang} hljs`;
    this.rest = document.createElement("span");
    this.rest.className = "nbc-code-open"; // the open rest, highlighted again each frame
    this.code.append(this.rest);
    pre.append(this.code);
    holder.append(pre);
    codeBlock(pre, () => this.source, open.lang, insertCell);
    /** the block with its toolbar */
    this.el = /** @type {HTMLElement} */ (holder.firstElementChild);
    this.draw(open);
  }

  /** Its new pieces and its open rest. @param {import("./streaming_markdown.js").OpenCode} open */
  draw(open) {
    if (this.pieces < open.pieces.length) {
      const piece = document.createElement("span");
      piece.className = "nbc-code-piece";
      piece.innerHTML = open.pieces.slice(this.pieces).join("");
      this.rest.before(piece);
      this.pieces = open.pieces.length;
    }
    this.rest.innerHTML = open.open;
    this.covered = open.covered;
    this.source = open.source;
  }

  /**
   * Finish the block as one render of it draws it, from `nodes` (sanitized, not enhanced) that begin with that render:
   * its <pre> is taken out of them. False, with nothing changed, when they do not begin with this block.
   * @param {DocumentFragment} nodes @returns {boolean}
   */
  finish(nodes) {
    const pre = nodes.firstChild;
    const code = pre instanceof HTMLElement && pre.localName === "pre" ? pre.firstElementChild : null;
    if (code?.localName !== "code" || codeLanguageOf(code) !== this.lang) return false;
    const text = code.textContent ?? "";
    const source = text.replace(/\n$/, "");
    const shown = this.lang ? source : text; // highlighted code leaves out the final line break (enhanceCodeBlocks)
    if (!shown.startsWith(this.source.slice(0, this.covered))) return false;
    this.rest.className = "nbc-code-piece";
    this.rest.innerHTML = highlightPiece(shown.slice(this.covered), this.lang).html;
    const name = code.getAttribute("class");
    if (name === null) this.code.removeAttribute("class");
    else this.code.className = this.lang ? `${name} hljs` : name;
    this.source = source;
    pre.remove();
    return true;
  }
}
