// The message list: one DOM node per message, keyed by id. A delta touches only its message; a snapshot
// reconciles by id. Markdown renders at most once per animation frame per message (less often when a render
// is slow), never the whole conversation, and incrementally (streaming_markdown.js): finished blocks are drawn
// once, only the open tail is redrawn, so a frame's work does not grow with the reply.
import {
  button, enhanceCodeBlocks, flash, renderMarkdownFragment, sanitizeInside, sanitizeMarkdownHtml,
} from "./markdown.js";
import { BackwardText, LONG_MESSAGE } from "./long_message.js";
import { mentionChips, renderChips } from "./mentions.js";
import { preloadKatex } from "./katex_lazy.js";
import { AHEAD_CHARS, MarkdownStream } from "./streaming_markdown.js";
import { OpenCodeView } from "./open_code_view.js";
import { SkippedBlocks, SLICE_CHARS, VIEW_SLICE_CHARS } from "./skipped_blocks.js";
import { SettledCode } from "./settled_code.js";
import { UnlaidBlocks } from "./unlaid_blocks.js";
import { bound, t } from "./i18n.js";
import { FILL_BUDGET_MS, HistoryWindow } from "./history_window.js";
import { ToolCard } from "./tool_card.js";
import { leftOutText, usageText } from "./usage.js";

/**
 * @typedef {{id: string, role: string, content?: string|null, reasoning_content?: string, hidden?: boolean,
 *   loading?: boolean, error?: string, tool_calls?: import("./tool_card.js").ToolCallView[],
 *   usage?: {prompt_tokens?: number, completion_tokens?: number, total_tokens?: number},
 *   left_out_turns?: number}} MessageView
 * @typedef {{send: import("./tool_card.js").SendAction, insertCell: () => ((code: string) => void) | null,
 *   pendingApproval: (card: HTMLElement) => void, replyFinished?: (text: string) => void,
 *   toolInfo: (name: string) => import("./tool_card.js").ToolInfo|null,
 *   regenerate?: () => void, shifted?: () => void, askOlder?: (before: string) => void,
 *   following?: () => boolean, toEnd?: () => void}} Hooks
 */

/** The class of the element that shows the caret while a reply streams (placeCaret). */
const CARET = "nbc-caret";
/** Main-thread time a frame may spend on a message's markdown (the rest of a big delta waits for the next frame). */
export const RENDER_BUDGET_MS = 10;
/** Main-thread time a frame spends on a fast reply's skipped blocks once its live text is drawn (not in view), when
 * the reader left the reply's end. */
export const SKIPPED_BUDGET_MS = 16;
/** While blocks a streaming reply skipped wait, its live text is drawn at most this often: the frames between draw
 * the skipped blocks instead (above a reader who follows the reply, without their layout), not the layout and paint of
 * text the next delta pushes out of view. */
export const BEHIND_MS = 100;
/** Main-thread time one task spends on the skipped blocks of a reply whose reader follows it, once it ended (tasks
 * back to back between the frames: catchUp). */
export const CATCH_UP_MS = 40;
/** Idle time a slice drawn in idle time leaves to the page; and the longest wait for an idle period. */
export const IDLE_SLACK_MS = 4;
export const IDLE_TIMEOUT_MS = 200;
/** A slice drawn between two frames ends at least this long before the next frame is due. */
export const GAP_SLACK_MS = 4;
/** Main-thread time one task may spend laying out blocks put in without their layout once the reply ended
 * (unlaid_blocks.js); while it streams, they are laid out only in idle periods of at least MIN_LAYOUT_MS. */
export const LAYOUT_SLICE_MS = 40;
export const MIN_LAYOUT_MS = 10;
/** The height of the shortest row of a list or table (a line of small text), and the characters a row holds at most in
 * a wide chat (a longer item wraps to more rows: rowsFilled). */
const ROW_PX = 16;
const ROW_CHARS = 120;

/**
 * Rows of a long table or items of a list that fill the reader's view at most (it is no taller than the window; a
 * tall item fills several: rowsFilled): the newest drawn with their layout when a fast reply brings many at once
 * (deferItemsAboveView, deferItemsAbove). Read from the window, not the list: no layout is asked for in the middle of drawing.
 */
export function viewRows() {
  return Math.ceil((globalThis.innerHeight || 960) / ROW_PX);
}
/** Main-thread time one step may spend lexing a long message that arrived whole (long_message.js). */
export const LEX_BUDGET_MS = 24;
/** A slice of a long message drawn from its end that holds more characters than this is made over several frames. */
export const BIG_SLICE_CHARS = 16_000;
/**
 * Runs dirty renders once per frame: what changed (a streaming reply, an updated message, a message drawn for the first
 * time) renders in the next frame; then the background work (drawing older messages), if any, while the frame has time.
 */
class FrameScheduler {
  constructor() {
    /** @type {Set<MessageNode>} */
    this.dirty = new Set();
    /** @type {((frameStart: number) => boolean) | null} background work after the renders; true while more remains */
    this.background = null;
    this.frame = 0;
    /** when the last frame began (its animation frame's time) and the shortest time seen between two frames */
    this.lastFrame = 0;
    this.interval = 1000 / 60;
  }
  /** @param {MessageNode} node */
  add(node) {
    this.dirty.add(node);
    this.request();
  }
  request() {
    if (!this.frame) this.frame = requestAnimationFrame(bound((/** @type {number} */ time) => this.run(time)));
  }
  /** @param {number} [time] when the frame began */
  run(time = performance.now()) {
    this.frame = 0;
    if (this.lastFrame > 0 && time - this.lastFrame >= 1) this.interval = Math.min(this.interval, time - this.lastFrame);
    this.lastFrame = time;
    const now = performance.now();
    const nodes = [...this.dirty];
    this.dirty.clear();
    for (const node of nodes) {
      if (node.disposed) continue;
      if (!node.render(now)) this.add(node);
    }
    if (this.background && !this.background(now)) this.background = null;
    if (this.background) this.request();
  }
  /** When the next frame is due, as far as the frames so far tell. @param {number} now */
  nextFrame(now) {
    let due = this.lastFrame + this.interval;
    while (due < now) due += this.interval;
    return due;
  }
  dispose() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.dirty.clear();
    this.background = null;
  }
}

/**
 * The rows a list's item (a table's row, a quote's block) fills, at least: one per item of the lists it holds (a topic
 * with three points fills four), one per ROW_CHARS of its text (a long item wraps). @param {Element} item
 */
function rowsFilled(item) {
  return Math.max(1 + item.getElementsByTagName("li").length, Math.ceil((item.textContent?.length ?? 0) / ROW_CHARS));
}

/**
 * The start of an element's text as read out (white space collapsed, code toolbars left out): at most `most`
 * characters, then "…" when there is more. It walks the text only that far, however long the message.
 * @param {HTMLElement} root @param {number} most
 */
function leadingText(root, most) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement?.closest(".nbc-code-bar") ? NodeFilter.FILTER_REJECT
      : NodeFilter.FILTER_ACCEPT),
  });
  let text = "";
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    text = (text + /** @type {Text} */ (node).data).replace(/\s+/g, " ");
    if (text.trimStart().length > most + 1) break;
  }
  text = text.trim();
  return text.length > most ? `${text.slice(0, most)}…` : text;
}

export class MessageList {
  /** @param {Hooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    this.el = document.createElement("div");
    this.el.className = "nbc-messages";
    // an ARIA log (WAI-ARIA chat practice) that is not itself live: finished replies are announced once by the
    // view's announcer instead of every streamed token
    this.el.setAttribute("role", "log");
    this.el.setAttribute("aria-live", "off");
    this.el.setAttribute("aria-label", t("a11y.messages"));
    this.el.tabIndex = 0;
    /** true while a turn runs: a reply that arrives whole then is new, not restored history */
    this.live = false;
    /** @type {Map<string, MessageNode>} */
    this.nodes = new Map();
    /** @type {string|null} the messages showing Edit / Regenerate (markLast), null while a turn runs */
    this.lastUserId = null;
    /** @type {string|null} */
    this.lastReplyId = null;
    /** @type {HistoryWindow<MessageView>} which messages are drawn: the latest, and older ones as the reader nears them */
    this.history = new HistoryWindow();
    /** how many messages come before the view's window (the kernel holds them until asked: view_older) */
    this.held = 0;
    /** @type {string|null} the first message of the window when the messages before it were asked for */
    this.asked = null;
    /** @type {string|null} the first message of the view's window */
    this.windowFirst = null;
    this.scheduler = new FrameScheduler();
    // scrolling up (wheel, keys, scrollbar) or the list growing taller (shown, resized) may bring older messages near
    this.onScroll = () => this.drawOlderSoon();
    this.el.addEventListener("scroll", this.onScroll, { passive: true });
    this.resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.drawOlderSoon()) : null;
    this.resize?.observe(this.el);
  }

  /**
   * @param {MessageView[]} messages the view's window of the conversation (its latest messages; every message when
   * `held` is 0). A long conversation arriving into an empty list draws its latest message only (history_window.js);
   * older ones are drawn above it, bottom-up within a frame budget, until the list's box is filled, then as the reader
   * comes near (drawOlder), so a first paint costs what the box shows, the same at 30 messages as at 3,000, and the
   * page never freezes. When few wait undrawn, the `held` ones before the window are asked for (askOlder): they come
   * as a patch that puts them at the window's start, and are drawn the same way.
   * @param {number} [held] how many messages come before the window (the kernel sends them when asked)
   */
  reconcile(messages, held = 0) {
    const all = messages.filter((m) => !m.hidden && (m.role === "user" || m.role === "assistant"));
    const visible = this.history.split(all, (id) => this.nodes.has(id));
    this.held = held;
    this.windowFirst = messages[0]?.id ?? null;
    if (this.asked !== this.windowFirst) this.asked = null; // the window changed: what was asked for came
    const keep = new Set(visible.map((m) => m.id));
    for (const [id, node] of this.nodes) {
      if (!keep.has(id)) {
        node.dispose();
        this.nodes.delete(id);
      }
    }
    this.countOlder();
    // walk message elements only: other children (the Continue box) stay where they are
    let cursor = nextMessageEl(this.el.firstChild);
    for (const message of visible) {
      let node = this.nodes.get(message.id);
      if (!node) {
        node = new MessageNode(message, this.hooks, this.scheduler, this.live);
        this.nodes.set(message.id, node);
      } else {
        node.update(message);
      }
      if (node.el !== cursor) this.el.insertBefore(node.el, cursor);
      else cursor = nextMessageEl(cursor.nextSibling);
    }
    this.drawOlderSoon();
  }

  /** How many messages are not drawn yet (waiting here, or held by the kernel), for tests and benchmarks. */
  countOlder() {
    this.el.dataset.older = String(this.history.remaining + this.held);
  }

  /** The kernel holds the messages before the window and few wait here: ask for them (once per window). */
  askHeld() {
    if (!this.windowFirst || !this.history.wantsHeld(this.held, this.asked !== null) || !this.hooks.askOlder) return;
    this.asked = this.windowFirst;
    this.hooks.askOlder(this.windowFirst);
  }

  /** The kernel refused to send the older messages: ask again at the next chance. */
  olderRefused() {
    this.asked = null;
  }

  /** Older messages wait: look in the next frame whether the reader is near them (cheap when nothing waits). */
  drawOlderSoon() {
    this.askHeld();
    if (this.history.remaining === 0 || this.scheduler.background) return;
    this.scheduler.background = (frameStart) => this.drawOlder(frameStart);
    this.scheduler.request();
  }

  /**
   * While the reader is near the top of what is drawn, draw older messages above it, one at a time until the frame's
   * budget is spent (history_window.js: more while the box is not filled yet). Each is rendered before it goes in (a
   * long one's first part: the scheduler draws the rest in the next frames), and the message at the top of the
   * reader's view stays where it is on screen.
   * @param {number} frameStart when this frame's work began @returns {boolean} true while the budget stopped it
   */
  drawOlder(frameStart = performance.now()) {
    const list = this.el;
    let drawn = 0;
    while (this.history.wantsOlder(list.scrollTop, list.clientHeight)) {
      const spent = performance.now() - frameStart;
      // at least one message a frame, unless the frame's renders already took a first paint's budget
      if (spent > this.history.budget(list.scrollTop, list.clientHeight) && (drawn > 0 || spent > FILL_BUDGET_MS)) {
        return true;
      }
      const [message] = this.history.take(1);
      const node = new MessageNode(message, this.hooks, this.scheduler, false);
      this.markIfLast(node, message.id);
      node.render(performance.now());
      this.nodes.set(message.id, node);
      this.insertAbove(node);
      this.countOlder();
      this.askHeld();
      drawn += 1;
    }
    return false;
  }

  /** Put a drawn older message above the first drawn one, the one at the top of the view staying where it is. */
  insertAbove(/** @type {MessageNode} */ node) {
    const list = this.el;
    const anchor = firstInView(list);
    const before = anchor?.getBoundingClientRect().top ?? 0;
    list.insertBefore(node.el, nextMessageEl(list.firstChild));
    if (anchor) {
      list.scrollTop += anchor.getBoundingClientRect().top - before;
      this.hooks.shifted?.();
    }
  }

  /**
   * Regenerate on the last reply, Edit on the last message the user sent (only while nothing runs). Touches the
   * previously marked and the newly marked nodes only.
   * @param {string|null} userId @param {string|null} replyId @param {boolean} enabled
   */
  markLast(userId, replyId, enabled) {
    this.lastUserId = enabled ? userId : null;
    this.lastReplyId = enabled ? replyId : null;
    const marked = new Set([this.markedUser, this.markedReply, userId, replyId]);
    for (const id of marked) {
      const node = id ? this.nodes.get(id) : null;
      node?.setLastActions(enabled && id === userId, enabled && id === replyId);
    }
    this.markedUser = userId;
    this.markedReply = replyId;
  }

  /** A message drawn after the last `markLast` (an older one, drawn as the reader nears it) gets its buttons too.
   * @param {MessageNode} node @param {string} id */
  markIfLast(node, id) {
    if (id === this.lastUserId || id === this.lastReplyId) {
      node.setLastActions(id === this.lastUserId, id === this.lastReplyId);
    }
  }

  /** @param {{id: string, field: string, append: string}[]} ops */
  applyDelta(ops) {
    for (const op of ops) this.nodes.get(op.id)?.append(op.field, op.append);
  }

  /** @param {string} id */
  node(id) {
    return this.nodes.get(id) ?? null;
  }

  /** Re-render code toolbars when the notebook bridge (Insert cell) becomes known. */
  refreshAll() {
    for (const node of this.nodes.values()) node.redraw();
  }

  dispose() {
    this.scheduler.dispose();
    this.el.removeEventListener("scroll", this.onScroll);
    this.resize?.disconnect();
    for (const node of this.nodes.values()) node.dispose();
    this.nodes.clear();
  }
}

/** The first message whose bottom is below the list's top edge (the one the reader's view starts in), or null. */
function firstInView(/** @type {HTMLElement} */ list) {
  const top = list.getBoundingClientRect().top;
  for (let el = nextMessageEl(list.firstChild); el; el = nextMessageEl(el.nextSibling)) {
    if (el.getBoundingClientRect().bottom > top) return el;
  }
  return null;
}

/** @param {ChildNode|null} node @returns {HTMLElement|null} */
function nextMessageEl(node) {
  while (node && !(node instanceof HTMLElement && node.dataset.messageId)) node = node.nextSibling;
  return /** @type {HTMLElement|null} */ (node);
}

class MessageNode {
  /**
   * @param {MessageView} message @param {Hooks} hooks @param {FrameScheduler} scheduler
   * @param {boolean} live a turn is running: a finished reply drawn now is announced
   */
  constructor(message, hooks, scheduler, live) {
    this.hooks = hooks;
    /** announce the reply once its text is drawn */
    this.announce = live && message.role === "assistant" && message.loading !== true;
    this.scheduler = scheduler;
    this.disposed = false;
    /** true while tasks draw a finished reply's skipped blocks (catchUp) */
    this.catchingUp = false;
    /** @type {Element|null} the element showing the caret (placeCaret) */
    this.caretAt = null;
    this.content = "";
    this.reasoning = "";
    this.renderedContent = null;
    this.lastRender = 0;
    /** the last frame left the live text for a later one (renderLive) */
    this.liveHeld = false;
    /** milliseconds an open-tail redraw costs (see render) */
    this.tailCost = 0;
    this.lastTailCost = 0;
    /** the last markdown step drew the open tail again and nothing else */
    this.tailOnly = false;
    this.pending = false;
    /** @type {Map<string, string>} */
    this.highlightCache = new Map();
    /** a long message that arrived whole, drawn from its end (long_message.js); null otherwise */
    this.backward = /** @type {BackwardText|null} */ (null);
    /** a big slice of it being made, a stage per frame (nextBackwardSlice); null when none is */
    this.bigSlice = /** @type {{nodes: DocumentFragment, enhanced: boolean}|null} */ (null);
    /** draws the content incrementally; null until the first render and after a redraw */
    this.stream = /** @type {MarkdownStream<DocumentFragment>|null} */ (null);
    /** the body's nodes drawn from the stream's open tail (replaced each render) */
    this.tailNodes = /** @type {ChildNode[]} */ ([]);
    /** an open code block drawn piece by piece (open_code_view.js) */
    this.openCode = /** @type {OpenCodeView | null} */ (null);
    /** an open list (table) drawn item by item: its id (streaming_markdown.js), the element its items go in, pieces
     * drawn, open last item's nodes */
    this.openList = /** @type {{id: number, list: Element, pieces: number, rest: ChildNode[]} | null} */ (null);
    /** @type {Map<string, ToolCard>} */
    this.cards = new Map();
    this.signature = "";

    const el = (this.el = document.createElement("div"));
    el.className = `nbc-message nbc-${message.role}`;
    el.dataset.messageId = message.id;
    el.dataset.role = message.role;
    el.dataset.drawn = "false"; // "true" once the drawn text is the message's latest (tests wait on it)
    el.setAttribute("role", "article");
    el.setAttribute("aria-label", t(message.role === "user" ? "a11y.user_message" : "a11y.assistant_message"));
    this.thinking = document.createElement("details");
    this.thinking.className = "nbc-thinking";
    const summary = document.createElement("summary");
    summary.textContent = t("thinking.summary");
    this.thinkingBody = document.createElement("div");
    this.thinkingBody.className = "nbc-thinking-body";
    this.thinking.append(summary, this.thinkingBody);
    this.thinking.hidden = true;
    this.body = document.createElement("div");
    this.body.className = "nbc-content";
    /** its code blocks, styled and laid out only near the view once laid out */
    this.settled = new SettledCode(this.body);
    /** the message streamed here (it was loading, or deltas came): text far behind its end may be skipped */
    this.streamed = false;
    /** an idle callback drawing what lies above the reader's view, 0 when none is waiting */
    this.idle = 0;
    /** an idle callback drawing skipped blocks while the reply streams, 0 when none is waiting */
    this.skippedIdle = 0;
    /** @type {MessageChannel|null} posts the task that draws skipped blocks between two frames (in `gapList`) */
    this.gapChannel = null;
    /** @type {HTMLElement|null} */
    this.gapList = null;
    this.betweenFrames = false;
    /** blocks a fast stream skipped, drawn later in their place */
    this.skipped = new SkippedBlocks(this.body);
    /** skipped blocks drawn above a reader who follows the reply, laid out later */
    this.unlaid = new UnlaidBlocks(() => this.hooks.following?.() ?? false, () => {
      this.keepFollowing();
      this.scheduler.add(this); // drawn, once nothing else waits
    });
    this.tools = document.createElement("div");
    this.tools.className = "nbc-tools";
    this.error = document.createElement("div");
    this.error.className = "nbc-message-error";
    this.error.setAttribute("role", "alert");
    this.error.hidden = true;
    // per-message actions: copy as markdown (the text as the model wrote it, or as the user typed it)
    this.actions = document.createElement("div");
    this.actions.className = "nbc-message-actions";
    const copy = button(t("message.copy"), "copy-message");
    copy.title = t("message.copy_title");
    copy.addEventListener("click", () => {
      navigator.clipboard?.writeText(this.content).then(
        bound(() => flash(copy, t("code.copied"))),
        bound(() => flash(copy, t("code.copy_failed"))),
      );
    });
    // regenerate the last reply / edit and resend the last user message: both replace what followed the last user
    // message (the kernel's edit_and_resend), so the model and the stored history see what the user sees
    const regenerate = button(t("message.regenerate"), "regenerate");
    regenerate.title = t("message.regenerate_title");
    regenerate.hidden = true;
    regenerate.addEventListener("click", () => this.hooks.regenerate?.());
    const edit = button(t("message.edit"), "edit-message");
    edit.title = t("message.edit_title");
    edit.hidden = true;
    edit.addEventListener("click", () => this.openEditor());
    this.regenerateButton = regenerate;
    this.editButton = edit;
    this.actions.append(copy, regenerate, edit);
    this.editor = /** @type {HTMLElement|null} */ (null);
    this.chips = mentionChips();
    this.leftOut = document.createElement("div");
    this.leftOut.className = "nbc-left-out";
    this.leftOut.hidden = true;
    this.usage = document.createElement("div");
    this.usage.className = "nbc-usage";
    this.usage.hidden = true;
    el.append(this.leftOut, this.thinking, this.body, this.chips, this.tools, this.error, this.usage, this.actions);
    this.update(message);
  }

  /** @param {boolean} editable the last message the user sent @param {boolean} regenerable the last reply */
  setLastActions(editable, regenerable) {
    this.editButton.hidden = !editable;
    this.regenerateButton.hidden = !regenerable;
    if (!editable) this.closeEditor();
  }

  /** An inline editor: the message's text, Send (replaces it and what followed) and Cancel. */
  openEditor() {
    if (this.editor) {
      this.editor.querySelector("textarea")?.focus();
      return;
    }
    const box = document.createElement("div");
    box.className = "nbc-message-editor";
    const text = document.createElement("textarea");
    text.className = "nbc-message-edit-text";
    text.dataset.field = "edit-message";
    text.setAttribute("aria-label", t("message.edit_label"));
    text.value = this.content;
    text.rows = Math.min(10, Math.max(2, this.content.split("\n").length));
    const send = button(t("message.edit_send"), "resend-edited");
    const cancel = button(t("message.edit_cancel"), "cancel-edit");
    const error = document.createElement("div");
    error.className = "nbc-action-error";
    error.hidden = true;
    send.addEventListener("click", () => {
      const value = text.value;
      if (!value.trim()) return;
      send.disabled = true;
      error.hidden = true;
      this.hooks.send({ kind: "edit_and_resend", message_id: this.el.dataset.messageId ?? "", text: value },
        (message) => {
          send.disabled = false;
          error.textContent = message;
          error.hidden = false;
        });
    });
    cancel.addEventListener("click", () => this.closeEditor());
    const row = document.createElement("div");
    row.className = "nbc-message-editor-row";
    row.append(send, cancel);
    box.append(text, row, error);
    this.editor = box;
    this.actions.after(box);
    text.focus();
  }

  closeEditor() {
    this.editor?.remove();
    this.editor = null;
  }

  /** @param {MessageView} message */
  update(message) {
    const signature = JSON.stringify(message);
    if (signature === this.signature) {
      for (const card of this.cards.values()) card.setBusy(false);
      return;
    }
    this.signature = signature;
    const wasLoading = this.el.dataset.loading === "true";
    const loading = message.loading === true;
    this.el.dataset.loading = String(loading);
    if (loading && !this.streamed) {
      this.streamed = true;
      // a reply is coming: evaluate KaTeX while the page waits for its text, not at its first formula
      if (message.role === "assistant") preloadKatex();
    }
    if (loading) this.el.setAttribute("aria-busy", "true");
    else this.el.removeAttribute("aria-busy");
    if (wasLoading && !loading && message.role === "assistant") this.announce = true;
    if (this.stream) this.stream.live = loading;
    if (wasLoading && !loading && this.openCode) this.markDirty(); // an open code block drawn in pieces: finish it
    this.setContent(message.content ?? "");
    // the caret at the end of the text goes with the frame that draws its end, not before it (now when it is drawn):
    // a long last paragraph is laid out again whole for either, once for both
    if (loading) this.el.dataset.caret = "";
    else if (this.renderedContent === this.content) delete this.el.dataset.caret;
    this.placeCaret();
    if (this.renderedContent === this.content) this.announceIfFinished();
    this.setReasoning(message.reasoning_content ?? "");
    renderChips(this.chips, message.mentions);
    if (!this.thinking.hidden) {
      if (loading && !this.thinking.dataset.touched) this.thinking.open = true;
      if (wasLoading && !loading) this.thinking.open = false;
    }
    this.error.textContent = message.error ?? "";
    this.error.hidden = !message.error;
    const leftOut = leftOutText(message.left_out_turns);
    this.leftOut.hidden = !leftOut;
    this.leftOut.textContent = leftOut;
    const usage = usageText(message.usage);
    this.usage.hidden = !usage;
    this.usage.textContent = usage;
    this.updateCards(message.tool_calls ?? []);
  }

  /** @param {string} field @param {string} text */
  append(field, text) {
    this.signature = "";
    this.streamed = true;
    if (field === "content") this.setContent(this.content + text);
    else if (field === "reasoning_content") this.appendReasoning(text);
    else if (field.startsWith("args:")) this.cards.get(field.slice(5))?.appendArgs(text);
  }

  /** @param {string} text */
  setContent(text) {
    if (text === this.content && this.renderedContent !== null) return;
    this.content = text;
    this.markDirty();
  }

  markDirty() {
    this.renderedContent = null;
    if (this.el.dataset.drawn !== "false") this.el.dataset.drawn = "false";
    this.scheduler.add(this);
  }

  /** Draw everything again from the text (e.g. the code toolbars changed). */
  redraw() {
    this.stream = null;
    this.dropBackward();
    this.markDirty();
  }

  /** @param {string} text */
  setReasoning(text) {
    if (text === this.reasoning) return;
    this.reasoning = text;
    this.thinkingBody.textContent = text;
    this.showThinking();
  }

  /** @param {string} text */
  appendReasoning(text) {
    this.reasoning += text;
    this.thinkingBody.append(text);
    this.showThinking();
  }

  showThinking() {
    if (this.thinking.hidden && this.reasoning !== "") {
      this.thinking.hidden = false;
      this.thinking.open = this.el.dataset.loading === "true";
      this.thinking.addEventListener("toggle", () => (this.thinking.dataset.touched = "1"), { once: true });
    }
  }

  /**
   * Render the markdown now, as much as the frame's time allows (the rest in the next frames), unless redrawing the
   * open tail is slow and was done recently (then ask for a later frame).
   * @param {number} now @returns {boolean} false to be called again next frame
   */
  render(now) {
    const done = this.draw(now);
    this.placeCaret();
    return done;
  }

  /**
   * The caret (while `data-caret` says so) goes on the body's last block, or on the body while it has none, as a
   * class of that one element: a rule keyed on the message's attribute (`[data-caret] > .nbc-content > :last-child`)
   * made the browser restyle the whole reply when the caret went, 20-26 ms for an 80 KB reply, in the frame that
   * draws its end.
   */
  placeCaret() {
    const at = "caret" in this.el.dataset ? this.body.lastElementChild ?? this.body : null;
    if (at === this.caretAt) return;
    const before = this.caretAt;
    if (before) {
      before.classList.remove(CARET);
      if (before.classList.length === 0) before.removeAttribute("class");
    }
    at?.classList.add(CARET);
    this.caretAt = at;
  }

  /** @param {number} now @returns {boolean} */
  draw(now) {
    const live = this.renderedContent === this.content || this.renderLive(now);
    if (live && this.el.dataset.loading !== "true") delete this.el.dataset.caret;
    if (live && this.catchingUp) return true; // the tasks drawing the skipped blocks add it again when they are done
    if (this.skipped.pending) this.drawSkipped(now, live);
    if (!live || this.skipped.pending) return false;
    if (this.backwardPending || this.unlaid.pending) {
      this.drawInIdleTime(); // what is left lies above the reader's view
      return true;
    }
    this.el.dataset.drawn = "true";
    this.announceIfFinished();
    return true;
  }

  /**
   * Draw what lies above the reader's view (a long message's older slices; blocks not laid out yet) in the page's
   * idle time, a slice or a block at a time, so it never delays a frame or the reader's input; at the latest
   * IDLE_TIMEOUT_MS apart. A long message's slices go in without their layout, laid out after them a budget at a time
   * (unlaid_blocks.js): the page laid out each slice put in above the view in one task of 0.11-0.19 s.
   */
  drawInIdleTime() {
    if (this.idle) return;
    const idle = globalThis.requestIdleCallback ?? ((/** @type {any} */ fn) => setTimeout(() => fn(null), 16));
    this.idle = idle(bound((/** @type {IdleDeadline|null} */ deadline) => {
      this.idle = 0;
      if (this.disposed) return;
      // a long message's slices wait while its text changes (it is drawn anew per frame)
      const slices = () => this.backwardPending && this.renderedContent === this.content;
      const remaining = () => (deadline?.timeRemaining() ?? 0) - IDLE_SLACK_MS;
      const list = this.el.parentElement;
      if (slices()) {
        do {
          const nodes = this.nextBackwardSlice();
          if (!nodes) continue;
          if (list) this.unlaid.add(nodes, list);
          this.deferItemsAbove(nodes); // after the slice's blocks: a long table is laid out before its rows
          this.body.prepend(nodes);
        } while (slices() && remaining() > 0);
      } else if (this.unlaid.pending) {
        // while the reply streams or its skipped blocks wait, only in long idle periods (they come first); then a
        // slice at a time, but in idle time only while a frame waits to show what was drawn (a reply's last blocks,
        // drawn between the frames: a slice laid out before that frame put off showing them by 20-25 ms)
        const drawing = this.el.dataset.loading === "true" || this.skipped.pending;
        const frameWaits = this.scheduler.frame !== 0;
        const budget = drawing || frameWaits ? remaining() : Math.max(remaining(), LAYOUT_SLICE_MS);
        if (budget >= MIN_LAYOUT_MS) {
          this.unlaid.reveal(budget);
          this.keepFollowing();
        }
      }
      if (slices() || this.unlaid.pending) this.drawInIdleTime();
      else this.scheduler.add(this); // marked drawn in the next frame
    }), { timeout: IDLE_TIMEOUT_MS });
  }

  /**
   * While a fast reply streams to a reader who follows its end, draw its skipped blocks in the page's idle time too
   * (between the frames, small slices, without their layout, like the frames' own), so few are left to draw when it
   * ends: a frame's budget alone left most of an 80 KB reply (47-71 KB) to draw after its end. Blocks near the view
   * are left to the frames. @param {HTMLElement} list
   */
  drawSkippedInIdleTime(list) {
    if (this.skippedIdle || typeof globalThis.requestIdleCallback !== "function") return;
    this.skippedIdle = requestIdleCallback(bound((/** @type {IdleDeadline} */ deadline) => {
      this.skippedIdle = 0;
      const drawn = this.drawSkippedAbove(list, () => deadline.timeRemaining() > IDLE_SLACK_MS);
      if (drawn === "timeUp") this.drawSkippedInIdleTime(list);
      else if (drawn === "nearView") this.scheduler.add(this); // the rest is the frames', or none is left
    }));
  }

  /**
   * While a fast reply streams to a reader who follows its end, draw its skipped blocks between the frames too: in a
   * task right after this frame, small slices (without their layout) until shortly before the next frame is due. The
   * page's idle callbacks hardly ever ran while the frames followed each other, though the gaps between them were
   * about a third of the main thread's time during an 80 KB reply; what they drew while it streamed was left to draw
   * after its end. Blocks near the view are left to the frames. @param {HTMLElement} list
   */
  drawSkippedBetweenFrames(list) {
    this.gapList = list;
    if (this.betweenFrames) return;
    if (!this.gapChannel) {
      this.gapChannel = new MessageChannel();
      this.gapChannel.port1.onmessage = bound(() => {
        this.betweenFrames = false;
        const due = this.scheduler.nextFrame(performance.now());
        if (this.gapList) this.drawSkippedAbove(this.gapList, () => due - performance.now() > GAP_SLACK_MS);
      });
    }
    this.betweenFrames = true;
    this.gapChannel.port2.postMessage(null);
  }

  /**
   * Draw the skipped blocks above a reader who follows a streaming reply, small slices without their layout, while
   * `hasTime()`; blocks near the view are left to the frames. @param {HTMLElement} list @param {() => boolean} hasTime
   * @returns {"timeUp" | "nearView" | "notFollowing"} why it stopped (nearView too when none is left)
   */
  drawSkippedAbove(list, hasTime) {
    const following = this.hooks.following?.() ?? false;
    if (this.disposed || this.catchingUp || !following || this.el.dataset.loading !== "true") return "notFollowing";
    const defer = (/** @type {DocumentFragment} */ nodes) => this.unlaid.add(nodes, list);
    // what is drawn here has no box: the view's distance from the blocks left to draw stays as it was measured once
    // (measured again after every slice, it made the page lay out again after each)
    if (this.skipped.nearView(list, true)) return "nearView";
    while (this.skipped.pending) {
      if (!hasTime()) return "timeUp";
      this.skipped.drawNext((nodes) => this.enhanced(nodes), null, this.hooks.shifted, VIEW_SLICE_CHARS, defer);
    }
    return "nearView";
  }

  /** Blocks above the view were laid out: a reader who follows the reply stays at its end. */
  keepFollowing() {
    if (this.hooks.following?.()) this.hooks.toEnd?.();
  }

  /**
   * Draw the blocks a fast stream skipped: those in the reader's view at once (within the frame's first
   * FILL_BUDGET_MS, while they are in view), the others in what is left of SKIPPED_BUDGET_MS once the live text is
   * drawn (or held for a later frame: renderLive), newest first (while the reply streams too: waiting for its end
   * left most of the reply to draw after it); once the reply ended, those above a reader who follows it in tasks
   * between the frames (catchUp).
   * @param {number} now when the frame's work began @param {boolean} live the live text is drawn
   */
  drawSkipped(now, live) {
    const list = this.el.parentElement;
    const near = () => list !== null && this.skipped.nearView(list, this.hooks.following?.() ?? false);
    if (near()) {
      do this.skipped.drawNext((nodes) => this.enhanced(nodes), list, this.hooks.shifted, VIEW_SLICE_CHARS);
      while (this.skipped.pending && performance.now() - now < FILL_BUDGET_MS && near());
    } else if (live || this.liveHeld) {
      // a reader who follows the reply is put back at its end once, not kept in place after every slice; what is
      // drawn above that reader is laid out later, in idle time
      const following = this.hooks.following?.() ?? false;
      if (following && list && this.el.dataset.loading !== "true") {
        this.hooks.toEnd?.();
        this.catchUp(list);
        return;
      }
      const keep = following ? null : list;
      const defer = following && list ? (/** @type {DocumentFragment} */ nodes) => this.unlaid.add(nodes, list) : null;
      do this.skipped.drawNext((nodes) => this.enhanced(nodes), keep, this.hooks.shifted, SLICE_CHARS, defer);
      while (this.skipped.pending && performance.now() - now < SKIPPED_BUDGET_MS);
      if (following) this.hooks.toEnd?.();
      if (this.skipped.pending && following && list) {
        this.drawSkippedBetweenFrames(list);
        this.drawSkippedInIdleTime(list);
      }
      if (this.unlaid.pending) this.drawInIdleTime();
    }
  }

  /**
   * Draw the skipped blocks above a reader who follows a reply that ended in tasks, not in frames (nothing the reader
   * sees changes): back to back, CATCH_UP_MS each, yielding to the page between them, until none is left, the reader
   * leaves the end or the blocks left reach the view (then the frames take over: render). While the reply streams
   * they stay in the frames: tasks between them took the time the page needs to receive and draw the live text (the
   * reader's view settled 0.05-0.1 s later on two cores). @param {HTMLElement} list
   */
  catchUp(list) {
    if (this.catchingUp) return;
    this.catchingUp = true;
    const channel = new MessageChannel();
    const next = () => channel.port2.postMessage(null);
    const defer = (/** @type {DocumentFragment} */ nodes) => this.unlaid.add(nodes, list);
    const finish = () => {
      this.catchingUp = false;
      channel.port1.close();
      if (!this.disposed) this.scheduler.add(this);
    };
    channel.port1.onmessage = bound(() => {
      const following = this.hooks.following?.() ?? false;
      if (this.disposed || !this.skipped.pending || !following || this.el.dataset.loading === "true"
        || this.skipped.nearView(list, following)) {
        finish();
        return;
      }
      const started = performance.now();
      do this.skipped.drawNext((nodes) => this.enhanced(nodes), null, this.hooks.shifted, SLICE_CHARS, defer);
      while (this.skipped.pending && performance.now() - started < CATCH_UP_MS);
      // the list keeps a reader who follows at its end in the next frame (scroll_follow.js); once the last block is
      // drawn, that frame is asked for at once (it shows them: drawInIdleTime's layout waits for it)
      if (this.skipped.pending) next();
      else finish();
    });
    next();
  }

  /**
   * Draw the live text (see render). @param {number} now @returns {boolean} true once the drawn text is the latest
   */
  renderLive(now) {
    // Redrawing the open tail is the only work done again at every frame (finished blocks are drawn once): when it
    // is slow (a long open paragraph, list or table), it waits three times its cost, so repeated work stays within
    // a quarter of the time however long the tail grows. The cost is the smaller of the last two (a one-off, such
    // as the first formula loading KaTeX, does not hold the stream back). While blocks the reply skipped wait (it
    // outruns drawing), it waits at least BEHIND_MS, its frames drawing them (drawSkipped). The rest of a big delta,
    // and a message that stopped streaming, draw at once.
    const streaming = this.el.dataset.loading === "true";
    const wait = Math.max(this.tailCost * 3, this.skipped.pending ? BEHIND_MS : 0);
    this.liveHeld = !this.pending && streaming && now - this.lastRender < wait;
    if (this.liveHeld) return false;
    let pending = false;
    if (this.el.dataset.role === "user") {
      this.body.textContent = this.content;
    } else {
      const start = performance.now();
      do pending = this.renderMarkdown();
      while (pending && performance.now() - start < RENDER_BUDGET_MS);
    }
    this.pending = pending;
    this.renderedContent = pending ? null : this.content;
    let cost = this.stream?.tailCost ?? 0;
    // only the open tail was drawn again: the layout it causes (done now, once, instead of later in this frame) is
    // part of its cost when that layout is done again at every redraw: a tail drawn anew, a long paragraph's lines. A
    // long list's (table's) new items are laid out once, like their lexing (not charged either): charging it held a
    // fast reply's list back 60-120 ms between redraws, and its drawing fell behind the text that had arrived
    const relaidWhole = !this.openList || this.openList.list.localName === "p";
    if (streaming && !pending && this.tailOnly && relaidWhole) {
      const layout = performance.now();
      void this.body.offsetHeight;
      cost += performance.now() - layout;
    }
    this.lastRender = performance.now();
    this.tailCost = Math.min(cost, this.lastTailCost);
    this.lastTailCost = cost;
    return !pending;
  }

  /** A finished reply is read out once, as drawn (its text, not its markdown source). */
  announceIfFinished() {
    if (!this.announce || this.el.dataset.loading === "true" || this.skipped.pending) return;
    this.announce = false;
    const text = leadingText(this.body, 600);
    if (text !== "") this.hooks.replyFinished?.(text);
  }

  /**
   * Keep the finished blocks drawn so far, append newly finished ones, redraw the open tail. The same path for
   * a message that streams and one that arrives whole (drawn a budget at a time, the page stays responsive);
   * the result equals one whole render (see test/streaming_markdown.test.js).
   * @returns {boolean} true when part of the text waits for the next frame
   */
  renderMarkdown() {
    const backward = this.drawBackward();
    if (backward !== null) return backward;
    if (!this.stream) {
      this.stream = new MarkdownStream(renderMarkdownFragment);
      this.stream.live = this.el.dataset.loading === "true";
      this.skipped.clear();
      this.unlaid.clear();
      this.body.replaceChildren();
      this.tailNodes = [];
      this.openCode = null;
      this.openList = null;
    }
    this.stream.ahead = this.streamed ? AHEAD_CHARS : Infinity;
    const doneBefore = this.stream.done.length;
    const step = this.stream.update(this.content);
    // part of a big delta lexed, nothing finished: the open tail drawn (a long table, say) stays until the next update
    if (step.pending && !step.reset && !step.closed && !step.skipped && step.finished.length === 0 && !step.list) {
      return true;
    }
    const code = step.code;
    this.tailOnly = false;
    if (code && !step.reset && !step.skipped && step.finished.length === 0 && this.openCode?.start === code.start) {
      this.openCode.draw(code); // the same open code block: only its new pieces and its open rest
      return false;
    }
    this.tailOnly = !step.reset && !step.closed && !step.skipped && step.finished.length === 0 && !code;
    if (step.reset) {
      this.skipped.clear();
      this.unlaid.clear();
      this.body.replaceChildren();
    }
    const list = step.list;
    if (list && this.tailOnly && this.openList?.id === list.id) {
      this.drawListItems(list); // the same open list (table): only its newly finished items and its open last one
      return step.pending;
    }
    // the open list (table) drawn item by item ended: its last items drawn, it stays where it is, no longer the tail
    const closed = step.closed && !step.reset && this.openList?.id === step.closed.id ? step.closed : null;
    if (closed) {
      this.drawListItems(closed);
      this.tailNodes = [];
    }
    // the open code block drawn in pieces that this step ends (it closed, or the reply ended) is finished in place
    const first = step.skipped || step.reset || this.openCode?.start !== doneBefore ? null
      : step.finished[0] ?? step.tail;
    const kept = first && this.openCode?.finish(first) ? this.openCode.el : null;
    for (const node of this.tailNodes) if (node !== kept) node.remove();
    this.tailNodes = kept && step.finished.length === 0 ? [kept] : []; // still the open tail: drawn again if it grows
    this.openCode = null;
    this.openList = null;
    if (step.closed && !closed) {
      this.body.append(this.startList(step.closed)); // drawn whole, in its place
      this.openList = null;
    }
    if (step.skipped) this.skipped.add(step.skipped);
    for (const nodes of step.finished) this.body.append(this.enhanced(nodes));
    if (code) {
      this.openCode = new OpenCodeView(code, this.hooks.insertCell());
      this.tailNodes = [this.openCode.el];
      this.body.append(this.openCode.el);
      return false;
    }
    if (list) {
      const nodes = this.startList(list);
      this.tailNodes = [...nodes.childNodes];
      this.body.append(nodes);
      return step.pending;
    }
    if (step.tail) {
      const tail = this.enhanced(step.tail);
      this.tailNodes.push(...tail.childNodes);
      this.body.append(tail);
    }
    return step.pending;
  }

  /**
   * A long message that arrived whole is drawn from its end, a slice of blocks at a time put above what is drawn
   * (long_message.js): the reader at the bottom sees its end first. @returns {boolean|null} true while slices wait;
   * null when it is not drawn so (short, streaming, raw HTML or link definitions: the streaming way)
   */
  drawBackward() {
    if (this.backward && this.backward.text !== this.content) {
      this.dropBackward(); // its text changed: drawn anew, the streaming way
    } else if (!this.backward && !this.stream && this.el.dataset.loading !== "true"
      && this.content.length >= LONG_MESSAGE) {
      this.backward = new BackwardText(this.content);
      this.skipped.clear();
      this.unlaid.clear();
      this.body.replaceChildren();
      this.tailNodes = [];
      this.openCode = null;
      this.openList = null;
    }
    if (!this.backward) return null;
    if (this.backward.lexing) {
      // lexing makes no DOM work (no layout to follow it): a frame may give it a first paint's budget
      const started = performance.now();
      do this.backward.lexStep();
      while (this.backward.lexing && performance.now() - started < LEX_BUDGET_MS);
      if (!this.backward.usable) this.backward = null; // raw HTML or link definitions: the streaming way
      return this.backward ? true : null;
    }
    const nodes = this.nextBackwardSlice();
    if (!nodes) return true;
    this.deferItemsAbove(nodes);
    this.body.prepend(nodes);
    // once what is drawn reaches above the reader's view, the rest is drawn in idle time (render)
    return this.backwardPending && !this.reachesAboveView();
  }

  /** True while a long message drawn from its end has text to lex or slices to draw. */
  get backwardPending() {
    return this.backward?.pending === true || this.bigSlice !== null;
  }

  /** Forget the long message's drawing from its end (drawn anew). */
  dropBackward() {
    this.backward = null;
    this.bigSlice = null;
  }

  /**
   * The next slice of a long message drawn from its end, or null while a big one (one long block: a code block, a
   * table, a paragraph) is being made: it is rendered in one call, its code highlighted in the next and given in the
   * one after, so that no frame pays for all three (with the layout it causes, the first paint of a chat whose latest
   * reply was one 80 KB code block had a task of 0.11-0.15 s; staged, 0.06 s).
   * @returns {DocumentFragment|null}
   */
  nextBackwardSlice() {
    const big = this.bigSlice;
    if (big && !big.enhanced) {
      this.enhanced(big.nodes);
      big.enhanced = true;
      return null;
    }
    if (big) {
      this.bigSlice = null;
      return big.nodes;
    }
    const slice = /** @type {BackwardText} */ (this.backward).next();
    const nodes = renderMarkdownFragment(slice.text, slice.tokens);
    if (slice.text.length <= BIG_SLICE_CHARS) return this.enhanced(nodes);
    this.bigSlice = { nodes, enhanced: !nodes.querySelector("pre") };
    return null;
  }

  /**
   * A slice's last block, when it is a long table, list or quote: its rows (items, blocks) above the
   * last ones go in without their layout and are laid out in idle time (unlaid_blocks.js), so the frame that puts the
   * slice in lays out what the reader sees, the newest that fill the view's rows (an 80 KB table laid out whole took
   * a task of 0.1-0.13 s; its last rows, 6 ms).
   * @param {DocumentFragment} nodes
   */
  deferItemsAbove(nodes) {
    const list = this.el.parentElement;
    const block = nodes.lastElementChild;
    const inside = block?.localName === "table" ? block.querySelector(":scope > tbody")
      : block?.matches("ul, ol, blockquote") ? block : null;
    if (!list || !inside) return;
    if (this.deferAllButNewest([...inside.children], list) && inside instanceof HTMLOListElement) {
      this.unlaid.number(inside);
    }
  }

  /** Whether the message's drawn body starts above the top of the list's box (what is left is out of view). */
  reachesAboveView() {
    const list = this.el.parentElement;
    return list !== null && this.body.getBoundingClientRect().top < list.getBoundingClientRect().top;
  }


  /**
   * A list (table) drawn item by item: its shell with the items so far, to put in; it becomes the open list.
   * @param {import("./streaming_markdown.js").OpenList} open @returns {DocumentFragment}
   */
  startList(open) {
    const shell = sanitizeMarkdownHtml(open.shell);
    const inside = /** @type {Element} */ (shell.querySelector(open.inside));
    this.openList = { id: open.id, list: inside, pieces: 0, rest: [] };
    this.drawListItems(open);
    return shell;
  }

  /** @param {import("./streaming_markdown.js").OpenList} open */
  drawListItems(open) {
    const drawn = /** @type {NonNullable<MessageNode["openList"]>} */ (this.openList);
    const tag = drawn.list.tagName.toLowerCase();
    for (const node of drawn.rest) node.remove();
    const fresh = [];
    for (; drawn.pieces < open.pieces.length; drawn.pieces += 1) {
      fresh.push(this.enhanced(sanitizeInside(tag, open.pieces[drawn.pieces])));
    }
    if (tag === "tbody" || tag === "ul" || tag === "ol" || tag === "blockquote") this.deferItemsAboveView(fresh);
    drawn.list.append(...fresh);
    const rest = this.enhanced(sanitizeInside(tag, open.open));
    drawn.rest = [...rest.childNodes];
    drawn.list.append(rest);
    if (tag === "ol") this.unlaid.number(drawn.list);
  }

  /**
   * Rows of a long table, items of a list or blocks of a quote, that a fast reply brought at once, more than fill the
   * view, above a reader who follows it: all but the newest that fill its rows (viewRows) are put in without their
   * layout, laid out in idle time (a table lays out every new row with the whole table: hundreds at once took a frame
   * of 0.1-0.3 s; a hundred list items, 30-56 ms; 60 items each holding three more, 35-55 ms of style and layout per
   * frame). An ordered list's items after those keep their numbers (UnlaidBlocks.number).
   * @param {DocumentFragment[]} fragments
   */
  deferItemsAboveView(fragments) {
    const list = this.el.parentElement;
    if (!this.streamed || !list || !(this.hooks.following?.() ?? false)) return;
    this.deferAllButNewest(fragments.flatMap((nodes) => [...nodes.children]), list);
  }

  /**
   * Put `items` (rows, list items, a quote's blocks, in order) in without their layout, all but the newest that fill
   * the view's rows (viewRows), to be laid out in idle time. @param {Element[]} items @param {HTMLElement} list
   * @returns {boolean} whether any was
   */
  deferAllButNewest(items, list) {
    let rows = 0;
    let kept = items.length;
    const fill = viewRows();
    while (kept > 0 && rows < fill) rows += rowsFilled(items[--kept]);
    if (kept > 0) this.unlaid.add(items.slice(0, kept), list);
    return kept > 0;
  }

  /** Sanitized nodes with their code blocks highlighted and given toolbars. @param {DocumentFragment} nodes */
  enhanced(nodes) {
    enhanceCodeBlocks(nodes, { cache: this.highlightCache, insertCell: this.hooks.insertCell(),
      highlighted: this.stream?.highlighted });
    return nodes;
  }

  /** @param {import("./tool_card.js").ToolCallView[]} calls */
  updateCards(calls) {
    const keep = new Set(calls.map((c) => c.id));
    for (const [id, card] of this.cards) {
      if (!keep.has(id)) {
        card.el.remove();
        this.cards.delete(id);
      }
    }
    /** @type {ChildNode|null} */
    let cursor = this.tools.firstChild;
    for (const call of calls) {
      let card = this.cards.get(call.id);
      if (card) card.update(call);
      else {
        card = new ToolCard(call, this.hooks.send, this.hooks.pendingApproval, this.hooks.toolInfo);
        this.cards.set(call.id, card);
      }
      // move a card only when out of place: moving it would blur an argument edit in progress
      if (card.el !== cursor) this.tools.insertBefore(card.el, cursor);
      else cursor = cursor.nextSibling;
    }
  }

  dispose() {
    this.disposed = true;
    if (this.idle) (globalThis.cancelIdleCallback ?? clearTimeout)(this.idle);
    if (this.skippedIdle) globalThis.cancelIdleCallback?.(this.skippedIdle);
    this.gapChannel?.port1.close();
    this.unlaid.clear();
    this.settled.dispose();
    this.el.remove();
  }
}
