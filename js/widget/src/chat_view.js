// The whole widget view: header, message list, Continue, status line, inline error, input box.
// Keys stay inside (keys.js); the list follows new content (scroll_follow.js); the composer keeps focus and its
// draft (drafts.js) and is never disabled by a turn: while one runs, the Send button says why it waits.
import { ACTIONS, ActionSender } from "./actions.js";
import { ConversationHeader } from "./conversation_header.js";
import { readDraft, writeDraft } from "./drafts.js";
import { bound, t } from "./i18n.js";
import { EmptyState } from "./empty_state.js";
import { preloadKatex } from "./katex_lazy.js";
import { containKeys } from "./keys.js";
import { button } from "./markdown.js";
import { MentionMenu } from "./mentions.js";
import { MessageList } from "./message_list.js";
import { RecoveryBar } from "./recovery.js";
import { ScrollFollower } from "./scroll_follow.js";
import { SkillChips } from "./skill_chips.js";
import { SlashCommands, describe, shortcutList } from "./slash_commands.js";
import { UsageTotal } from "./usage.js";
import { RESYNC, ViewCopy } from "./view_copy.js";
import { WARM_UP_CHARS, warmUpRendering } from "./warm_up.js";

const STATUS_KEYS = {
  requesting: "status.requesting",
  completing: "status.streaming",
  streaming: "status.streaming",
  "calling-tools": "status.calling_tools",
  pausing: "status.pausing",
};
const END_REASONS = new Set(["max-tokens", "aborted", "error", "interrupted"]);

/**
 * @typedef {{request_state: string, processing_state?: string|null, error?: string|null}} Status
 * @typedef {{messages: import("./message_list.js").MessageView[], status: Status,
 *   continue_offer: {message_id: string|null, reason?: string}|null, notice?: string|null,
 *   commands?: {name: string, description?: string}[],
 *   tools?: Record<string, import("./tool_card.js").ToolInfo>, prompts?: string[],
 *   conversations?: import("./conversation_header.js").ConversationsView, older?: number}} View
 */

export class ChatView {
  /** @param {HTMLElement} el @param {(msg: object) => void} post */
  constructor(el, post) {
    this.el = el;
    this.actions = new ActionSender(post);
    /** the view last drawn: the kernel's view_patch and delta messages change it */
    this.copy = new ViewCopy();
    /** @type {((code: string) => void) | null} */
    this.insertCell = null;
    /** @type {View|null} */
    this.view = null;
    this.dead = false;
    this.draftKey = "";
    /** @type {string | null} a request state that keeps the command note (see note) */
    this.noteSurvives = null;
    /** @type {Record<string, import("./tool_card.js").ToolInfo>} the kernel's tools (description, approval) */
    this.tools = {};
    /** @type {(() => void) | null} */
    this.saveNotebook = null;
    /** @type {((cells: {cell_type: string, source: string}[]) => boolean) | null} */
    this.insertCells = null;
    const send = this.actions.send.bind(this.actions);

    el.classList.add("nbc-root");
    el.dataset.state = "idle";
    this.header = div("nbc-header");
    this.title = div("nbc-title");
    this.storage = div("nbc-storage");
    this.storage.hidden = true;
    this.notice = div("nbc-notice");
    this.notice.setAttribute("role", "status");
    this.notice.hidden = true;
    this.deadNotice = div("nbc-dead");
    this.deadNotice.setAttribute("role", "alert");
    this.deadNotice.hidden = true;
    this.conversations = new ConversationHeader(send, (error) => this.showError(error), () => this.insertCells);
    this.header.append(this.title, this.storage, this.conversations.el);

    this.skills = new SkillChips(send, (error) => this.showError(error));
    this.list = new MessageList({
      send,
      insertCell: () => this.insertCell,
      pendingApproval: (card) => this.revealApproval(card),
      replyFinished: (text) => this.announcer.say(t("a11y.reply_finished", { text })),
      toolInfo: (name) => this.tools[name] ?? null,
      regenerate: () => this.regenerate(),
      shifted: () => this.follower.shifted(),
      askOlder: (before) => this.actions.send({ kind: "view_older", before }, () => this.list.olderRefused()),
      following: () => this.follower.following,
      toEnd: () => this.follower.pin(),
    });
    this.follower = new ScrollFollower(this.list.el);
    this.listBox = div("nbc-list-box");
    this.empty = new EmptyState((prompt) => this.usePrompt(prompt));
    this.listBox.append(this.empty.el, this.list.el, this.follower.jump);
    this.continueBox = this.buildContinue();
    this.status = div("nbc-status");
    this.status.setAttribute("role", "status");
    this.status.setAttribute("aria-live", "polite");
    this.recovery = new RecoveryBar(send);
    this.usage = new UsageTotal();
    this.errorLine = div("nbc-error");
    this.errorLine.setAttribute("role", "alert");
    this.errorLine.hidden = true;
    this.composer = this.buildComposer();
    this.announcer = new Announcer();
    this.mentions = new MentionMenu(this.input, send, this.composer);
    el.append(this.header, this.deadNotice, this.notice, this.skills.el, this.listBox, this.continueBox, this.status,
      this.errorLine, this.recovery.el, this.usage.el, this.composer, this.helpPanel, this.announcer.el);
    el.addEventListener("click", () => this.rescueFocus());
    this.releaseKeys = containKeys(el, {
      onEscape: () => {
        if (this.dead || !(this.running() || this.paused())) return false;
        this.stop();
        return true;
      },
      onSave: () => {
        if (!this.saveNotebook) return false;
        this.saveNotebook();
        return true;
      },
    });
    this.renderStatus({ request_state: "idle" });
  }

  /** Kernel→browser custom message. @param {any} msg */
  handle(msg) {
    if (!msg || typeof msg !== "object" || this.dead) return;
    if (msg.kind === "snapshot" || msg.kind === "view_patch") {
      const view = this.copy.take(msg);
      if (view === RESYNC) this.actions.send({ kind: "view_resync" });
      else if (view !== null) this.applySnapshot(view);
    } else if (msg.kind === "delta") {
      this.copy.take(msg);
      this.list.applyDelta(msg.ops ?? []);
    }
    else if (msg.kind === "action_result") this.actions.result(msg, (error) => this.showError(error));
    else if (msg.kind === "mention_options") this.mentions.show(msg);
    else if (msg.kind === "export") this.conversations.handleExport(msg);
  }

  /** @param {View} view */
  applySnapshot(view) {
    // a reply that arrives whole is announced only when a turn was running (not for restored history)
    this.list.live = this.running();
    this.view = view;
    const hadFocus = this.el.contains(document.activeElement);
    if (view.tools && typeof view.tools === "object") this.tools = view.tools;
    const held = Number.isInteger(view.older) && view.older > 0 ? view.older : 0; // before the window: asked for later
    this.list.reconcile(view.messages ?? [], held);
    this.empty.render({
      provider: this.title.textContent ?? "",
      tools: this.tools,
      prompts: Array.isArray(view.prompts) ? view.prompts : [],
      empty: held === 0 && !(view.messages ?? []).some((m) => !m.hidden && (m.role === "user" || m.role === "assistant")),
    });
    this.skills.render(view.skills);
    this.conversations.render(view.conversations);
    this.renderStatus(view.status ?? { request_state: "idle" });
    this.placeContinue(view);
    this.markLastMessages(view);
    this.recovery.render(view.retry_offer, view.messages ?? [], (id) => this.list.node(id), this.running() || this.paused());
    // one Retry: the recovery bar's, placed right under Continue when the turn that failed offers both
    if (!this.continueBox.hidden && !this.recovery.el.hidden) this.continueBox.after(this.recovery.el);
    this.usage.render(view.usage_total);
    this.renderNotice(view.notice ?? "");
    // the kernel's first view may arrive after the user opened the "/" menu or the "?" panel: they show what it offers
    this.slash.refresh();
    if (!this.helpPanel.hidden) this.toggleHelp(true);
    this.el.dataset.synced = "true";
    if (!this.el.dataset.warm) this.warmUp(view.messages ?? []);
    // a decided card is drawn anew: the keyboard focus it held goes back to the composer, not to the page
    if (hadFocus) this.rescueFocus();
  }

  /**
   * Once, in idle time: the first reply is not drawn by code that runs for the first time (warm_up.js), unless the
   * replies of the kernel's first view are as much markdown (drawing them warms the renderer up).
   * @param {any[]} messages
   */
  warmUp(messages) {
    let markdown = 0;
    for (const message of messages) {
      if (message?.role === "assistant" && typeof message.content === "string") markdown += message.content.length;
    }
    if (markdown >= WARM_UP_CHARS) {
      this.el.dataset.warm = "true";
      return;
    }
    this.el.dataset.warm = "false";
    preloadKatex();
    void warmUpRendering().then(() => (this.el.dataset.warm = "true"));
  }

  /**
   * The control with the keyboard focus went away or was disabled (a decided card redrawn, a clicked button): the focus
   * goes to the composer instead of falling back to the page, where the next key would reach the notebook.
   */
  rescueFocus() {
    const lost = () => {
      const active = /** @type {HTMLButtonElement|null} */ (document.activeElement);
      if (this.dead) return false;
      return active === null || active === document.body || (this.el.contains(active) && active.disabled === true);
    };
    if (lost()) this.input.focus({ preventScroll: true });
    requestAnimationFrame(bound(() => {
      if (lost()) this.input.focus({ preventScroll: true });
    }));
  }

  /** Regenerate / Edit on the latest exchange, while no turn runs or waits (the recovery bar owns failed turns). */
  markLastMessages(/** @type {View} */ view) {
    const visible = (view.messages ?? []).filter((m) => !m.hidden && (m.role === "user" || m.role === "assistant"));
    let user = -1;
    for (let i = visible.length - 1; i >= 0 && user < 0; i--) if (visible[i].role === "user") user = i;
    const last = visible[visible.length - 1];
    const reply = user >= 0 && last && last.role === "assistant" && !last.loading ? last.id : null;
    const enabled = user >= 0 && !this.dead && !this.running() && !this.paused() && !view.retry_offer &&
      "edit_and_resend" in ACTIONS;
    this.list.markLast(user >= 0 ? visible[user].id : null, reply, enabled);
  }

  /** Send the last user message again in place of everything after it. */
  regenerate() {
    const id = this.list.lastUserId;
    const node = id ? this.list.node(id) : null;
    if (!node || !id) return;
    this.actions.send({ kind: "edit_and_resend", message_id: id, text: node.content }, (error) => this.showError(error));
  }

  /** @param {string} text */
  setHeader(text) {
    this.title.textContent = text;
  }

  /** @param {string} text the view's one notice (the kernel owns it) */
  renderNotice(text) {
    this.notice.textContent = text;
    this.notice.hidden = text === "";
  }

  /**
   * @param {{available: boolean, path?: string|null, insertCellBelow?: (code: string) => void,
   *   insertCellsBelow?: (cells: {cell_type: string, source: string}[]) => boolean,
   *   save?: () => Promise<void>}} bridge
   */
  setBridge(bridge) {
    const save = bridge.available && typeof bridge.save === "function" ? bridge.save : null;
    this.saveNotebook = save
      ? () => save.call(bridge).catch((err) => console.warn("notebook_chat: saving the notebook failed", err))
      : null;
    this.el.dataset.notebook = String(bridge.available);
    this.storage.hidden = bridge.available;
    this.storage.textContent = bridge.available ? "" : t("storage.none");
    this.storage.title = bridge.available ? "" : t("storage.none_title");
    const cells = bridge.available && typeof bridge.insertCellsBelow === "function" ? bridge.insertCellsBelow : null;
    this.insertCells = cells ? (/** @type {any[]} */ list) => cells.call(bridge, list) : null;
    const insert = bridge.available && typeof bridge.insertCellBelow === "function" ? bridge.insertCellBelow : null;
    if (insert !== this.insertCell) {
      this.insertCell = insert ? (code) => insert.call(bridge, code) : null;
      this.list.refreshAll();
    }
  }

  /** Where the draft is kept (the chat's key, and the notebook's path once known). @param {string} key */
  setDraftKey(key) {
    if (key === this.draftKey) return;
    this.draftKey = key;
    if (this.input.value === "") this.input.value = readDraft(key);
    else writeDraft(key, this.input.value);
  }

  running() {
    return this.view?.status?.request_state === "processing";
  }

  paused() {
    return this.view?.status?.request_state === "paused";
  }

  /** @param {Status} status */
  renderStatus(status) {
    const state = status.request_state ?? "idle";
    const phase = status.processing_state ?? "";
    if (state !== this.el.dataset.state) {
      // a command's note lasts until the request state changes, except into the state the command itself leads to
      if (this.noteSurvives !== state) this.commandNote = "";
      this.noteSurvives = null;
    }
    this.el.dataset.state = state;
    this.status.dataset.state = state;
    this.status.dataset.phase = phase;
    let text = "";
    if (state === "processing") {
      const key = STATUS_KEYS[/** @type {keyof typeof STATUS_KEYS} */ (phase)];
      text = key ? t(key) : phase || t("status.working");
    } else if (state === "paused") text = t("status.paused");
    else if (state === "error" && !this.view?.continue_offer) {
      text = t("status.error", { error: status.error ?? t("status.error_unknown") }); // else the Continue box says it
    }
    else if (state === "aborted") text = t("status.aborted");
    if (this.commandNote) text = text ? `${text} · ${this.commandNote}` : this.commandNote;
    // never hidden: a live region must stay in the accessibility tree to be heard when its text changes
    if (this.status.textContent !== text) this.status.textContent = text;
    this.sending = false;
    this.renderComposer();
  }

  /** The input always takes text; Send says why it waits while a turn runs or waits for a decision. */
  renderComposer() {
    const running = this.running();
    const paused = this.paused();
    const waiting = running || paused || this.sending === true;
    this.input.disabled = this.dead;
    this.sendButton.disabled = this.dead || waiting;
    this.sendButton.dataset.waiting = String(waiting);
    this.sendButton.textContent = running || this.sending ? t("composer.wait_reply")
      : paused ? t("composer.wait_approval") : t("composer.send");
    this.sendButton.title = running ? t("composer.wait_reply_title")
      : paused ? t("composer.wait_approval_title") : "";
    this.stopButton.hidden = !(running || paused);
    this.stopButton.disabled = this.dead;
  }

  buildComposer() {
    const box = div("nbc-composer");
    const input = document.createElement("textarea");
    input.className = "nbc-input";
    input.dataset.field = "input";
    input.rows = 2;
    input.placeholder = t("composer.placeholder");
    input.setAttribute("aria-label", t("composer.label"));
    input.addEventListener("keydown", (e) => {
      if (this.slash.key(e)) return;
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    input.addEventListener("input", () => {
      writeDraft(this.draftKey, input.value);
      this.slash.typed();
    });
    input.addEventListener("blur", () => setTimeout(bound(() => {
      if (document.activeElement !== input) this.slash.menu.close();
    }), 150));
    this.input = input;
    this.slash = new SlashCommands(input, {
      running: () => this.running(),
      paused: () => this.paused(),
      continueOffered: () => this.view?.continue_offer != null && !this.running() && !this.paused(),
      send: (msg, onError, onDone) => this.actions.send(msg, onError, onDone),
      stop: () => this.stop(),
      help: () => this.toggleHelp(true),
      note: (text, survives) => this.note(text, survives),
      submit: () => this.submit(),
      pluginCommands: () => (Array.isArray(this.view?.commands) ? this.view.commands : []),
    });
    this.sendButton = button(t("composer.send"), "send");
    this.sendButton.addEventListener("click", () => this.submit());
    this.stopButton = button(t("composer.stop"), "stop");
    this.stopButton.hidden = true;
    this.stopButton.addEventListener("click", () => this.stop());
    this.helpButton = button("?", "help");
    this.helpButton.setAttribute("aria-label", t("help.button"));
    this.helpButton.title = t("help.button");
    this.helpButton.setAttribute("aria-expanded", "false");
    this.helpPanel = this.buildHelp();
    this.helpButton.setAttribute("aria-controls", this.helpPanel.id);
    this.helpButton.addEventListener("click", () => this.toggleHelp());
    box.append(this.slash.el, input, this.sendButton, this.stopButton, this.helpButton);
    return box;
  }

  /** The "?" panel: every keyboard shortcut, and the slash commands available now. */
  buildHelp() {
    const panel = div("nbc-help");
    panel.id = `nbc-help-${Math.random().toString(36).slice(2, 8)}`;
    panel.setAttribute("role", "region");
    panel.setAttribute("aria-label", t("help.title"));
    panel.hidden = true;
    return panel;
  }

  /** @param {boolean} [show] toggles when not given */
  toggleHelp(show) {
    const open = show ?? this.helpPanel.hidden;
    if (open) {
      const title = div("nbc-help-title");
      title.textContent = t("help.title");
      const list = document.createElement("dl");
      const rows = [...shortcutList(), ...this.slash.offered().map((c) => [`/${c.name}`,
        describe(c)])];
      for (const [keys, what] of rows) {
        const dt = document.createElement("dt");
        const kbd = document.createElement("kbd");
        kbd.textContent = keys;
        dt.append(kbd);
        const dd = document.createElement("dd");
        dd.textContent = what;
        list.append(dt, dd);
      }
      this.helpPanel.replaceChildren(title, list);
    }
    this.helpPanel.hidden = !open;
    this.helpButton.setAttribute("aria-expanded", String(open));
  }

  /**
   * What a slash command did, said in the status line (until the request state changes; `survives`: a state the
   * command itself leads to, e.g. "idle" after /new or /clear, which keeps it).
   * @param {string} text @param {string | null} [survives]
   */
  note(text, survives = null) {
    this.commandNote = text;
    this.noteSurvives = survives;
    this.renderStatus(this.view?.status ?? { request_state: "idle" });
  }

  submit() {
    const typed = this.input.value;
    this.input.focus();
    if (typed.trim() === "" || this.dead) return;
    const command = this.slash.run(typed);
    if ("keep" in command) {
      if (command.keep !== typed) {
        this.input.value = command.keep;
        writeDraft(this.draftKey, command.keep);
      }
      return;
    }
    const text = command.message;
    if (this.sendButton.disabled) return;
    this.input.value = "";
    writeDraft(this.draftKey, "");
    this.sending = true;
    this.renderComposer();
    this.hideError();
    this.follower.toLatest();
    this.actions.send({ kind: "send", text, ...this.mentions.sendFields(text) }, (error) => {
      if (this.input.value === "") {
        this.input.value = text;
        writeDraft(this.draftKey, text);
      }
      this.sending = false;
      this.renderComposer();
      this.showError(error);
    });
  }

  /** A suggested prompt's chip: sent at once when a turn can start, else put in the composer. @param {string} text */
  usePrompt(text) {
    this.input.value = text;
    writeDraft(this.draftKey, text);
    if (!this.sendButton.disabled) this.submit();
    else this.input.focus();
  }

  stop() {
    this.stopButton.disabled = true;
    this.actions.send({ kind: "stop" }, (error) => {
      this.stopButton.disabled = false;
      this.showError(error);
    });
  }

  /**
   * A new pending approval: scrolled into view in the list, its Approve button focused — unless the user is writing
   * in the composer (a draft in it has the focus): then the focus stays and the status line says what waits.
   * @param {HTMLElement} card
   */
  revealApproval(card) {
    requestAnimationFrame(bound(() => {
      if (!card.isConnected || this.dead) return;
      this.follower.reveal(card);
      if (this.typingInComposer()) return;
      const approve = /** @type {HTMLButtonElement|null} */ (card.querySelector("[data-action=approve]"));
      approve?.focus({ preventScroll: true });
    }));
  }

  typingInComposer() {
    return document.activeElement === this.input && this.input.value.trim() !== "";
  }

  buildContinue() {
    const box = div("nbc-continue");
    box.hidden = true;
    const reason = div("nbc-end-reason");
    const go = button(t("continue.button"), "continue");
    const instruction = document.createElement("input");
    instruction.type = "text";
    instruction.className = "nbc-continue-instruction";
    instruction.dataset.field = "continue-instruction";
    instruction.placeholder = t("continue.instruction");
    instruction.setAttribute("aria-label", t("continue.instruction_label"));
    const error = div("nbc-action-error");
    error.setAttribute("role", "alert");
    error.hidden = true;
    instruction.addEventListener("keydown", (e) => {
      if (e.key === "Enter") go.click();
    });
    go.addEventListener("click", () => {
      const text = instruction.value.trim();
      go.disabled = true;
      error.hidden = true;
      this.actions.send({ kind: "continue", instruction: text === "" ? null : text }, (message) => {
        go.disabled = false;
        error.textContent = message;
        error.hidden = false;
      });
    });
    const row = div("nbc-continue-row");
    row.append(go, instruction);
    box.append(reason, row, error);
    this.endReason = reason;
    this.continueButton = go;
    this.continueInstruction = instruction;
    this.continueError = error;
    return box;
  }

  /** Continue sits under the offered message, or at the end of the list. @param {View} view */
  placeContinue(view) {
    const offer = view.continue_offer;
    const show = offer != null && !this.running() && !this.paused();
    this.continueBox.hidden = !show;
    this.continueButton.disabled = this.dead;
    if (!show) {
      this.continueInstruction.value = "";
      this.continueError.hidden = true;
      if (this.continueBox.parentElement !== this.el) this.listBox.after(this.continueBox);
      return;
    }
    const reason = offer.reason ?? "";
    this.continueBox.dataset.reason = reason;
    this.endReason.textContent = this.endReasonText(view);
    this.endReason.hidden = this.endReason.textContent === "";
    this.continueBox.dataset.messageId = offer.message_id ?? "";
    const anchor = offer.message_id ? this.list.node(offer.message_id) : null;
    if (anchor) anchor.el.after(this.continueBox);
    else this.list.el.append(this.continueBox);
  }

  /** Why the turn ended, in one sentence; an error's text only when no message shows it already. @param {View} view */
  endReasonText(view) {
    const reason = view.continue_offer?.reason ?? "";
    if (!END_REASONS.has(reason)) return "";
    const error = view.status?.error;
    if (reason === "error" && error && !(view.messages ?? []).some((m) => m.error === error)) {
      return t("end.error_detail", { error });
    }
    return t(`end.${reason.replace("-", "_")}`);
  }

  /** The kernel connection is gone (restart, shutdown): say so, and nothing can be clicked or sent any more. */
  setDead() {
    if (this.dead) return;
    this.dead = true;
    this.el.dataset.dead = "true";
    this.deadNotice.textContent = t("dead.kernel");
    this.deadNotice.hidden = false;
    for (const control of this.el.querySelectorAll("button, textarea, input")) {
      /** @type {HTMLButtonElement} */ (control).disabled = true;
    }
    this.renderComposer();
  }

  /** @param {string} message */
  showError(message) {
    this.errorLine.textContent = message;
    this.errorLine.hidden = false;
  }

  hideError() {
    this.errorLine.hidden = true;
  }

  dispose() {
    this.releaseKeys();
    this.follower.dispose();
    this.list.dispose();
    this.el.replaceChildren();
  }
}

/**
 * A visually hidden polite live region: finished replies are read out once (the log itself is not live, so a
 * streaming reply is not read token by token).
 */
class Announcer {
  constructor() {
    this.el = div("nbc-sr-only nbc-announcer");
    this.el.setAttribute("aria-live", "polite");
    this.el.setAttribute("aria-atomic", "true");
    this.el.dataset.field = "announcer";
  }

  /** @param {string} text */
  say(text) {
    // the same words twice are a change too: empty the region, then fill it on the next frame
    this.el.textContent = "";
    requestAnimationFrame(bound(() => (this.el.textContent = text)));
  }
}

/** @param {string} className */
function div(className) {
  const d = document.createElement("div");
  d.className = className;
  return d;
}
