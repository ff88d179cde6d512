// The conversations of a chat, in the header: "New conversation", the list (title, last activity, a mark for one that
// waits for an approval or was interrupted) to switch between, rename, delete (asks first), clear (asks first), and
// export of the active one (copy / download Markdown, insert as notebook cells). The kernel owns the list: every
// control sends an action and the next snapshot is the truth; a refusal (e.g. "a reply is being written") is shown.
import { t } from "./i18n.js";
import { button, flash } from "./markdown.js";
import "./conversation_header.css";

/**
 * @typedef {{id: string, title: string|null, updated_at: string|null, state: string}} ConversationItem
 * @typedef {{active: string, items: ConversationItem[]}} ConversationsView
 * @typedef {(msg: {kind: string} & Record<string, any>, onError?: (error: string) => void) => unknown} Send
 */

const MARKS = { paused: "conversations.mark_paused", interrupted: "conversations.mark_interrupted",
  running: "conversations.mark_running" };

export class ConversationHeader {
  /**
   * @param {Send} send
   * @param {(error: string) => void} showError
   * @param {() => ((cells: {cell_type: string, source: string}[]) => boolean) | null} insertCells
   */
  constructor(send, showError, insertCells) {
    this.send = send;
    this.showError = showError;
    this.insertCells = insertCells;
    /** @type {ConversationsView | null} */
    this.view = null;
    /** @type {string | null} a row being renamed or asking to delete: re-renders wait for it */
    this.busyRow = null;
    /** @type {"copy" | "download"} what the next Markdown export is for */
    this.markdownFor = "copy";
    this.el = el("div", "nbc-conversations");
    this.el.setAttribute("role", "group");
    this.el.setAttribute("aria-label", t("conversations.label"));
    this.el.hidden = true;
    this.toggle = button(t("conversations.list"), "conversation-list");
    this.toggle.setAttribute("aria-expanded", "false");
    this.toggle.addEventListener("click", () => this.setOpen(this.panel.hidden));
    this.newButton = button(t("conversations.new"), "new-conversation");
    this.newButton.addEventListener("click", () => this.send({ kind: "new_conversation", title: null },
      (error) => this.showError(error)));
    this.panel = el("div", "nbc-conversation-panel");
    this.panel.hidden = true;
    this.list = el("ul", "nbc-conversation-list");
    this.list.setAttribute("aria-label", t("conversations.label"));
    this.tools = el("div", "nbc-conversation-tools");
    this.confirmLine = el("div", "nbc-conversation-confirm");
    this.confirmLine.hidden = true;
    this.tools.append(
      this.tool("conversations.clear", "clear-conversation", () => this.confirm(t("conversations.clear_confirm"),
        () => this.send({ kind: "clear_conversation" }, (error) => this.showError(error)))),
      this.tool("conversations.copy", "copy-markdown", () => this.exportMarkdown("copy")),
      this.tool("conversations.download", "download-markdown", () => this.exportMarkdown("download")),
      (this.cellsButton = this.tool("conversations.cells", "export-cells", () => this.send(
        { kind: "export_conversation", conversation_id: null, format: "cells" }, (error) => this.showError(error)))),
    );
    this.panel.append(this.list, this.confirmLine, this.tools);
    this.el.append(this.toggle, this.newButton, this.panel);
  }

  /** @param {string} key @param {string} action @param {() => void} onClick */
  tool(key, action, onClick) {
    const b = button(t(key), action);
    b.addEventListener("click", onClick);
    return b;
  }

  /** @param {boolean} open */
  setOpen(open) {
    this.panel.hidden = !open;
    this.toggle.setAttribute("aria-expanded", String(open));
    if (open) this.cellsButton.disabled = this.insertCells() === null;
  }

  /** @param {ConversationsView | null | undefined} view */
  render(view) {
    if (!view || !Array.isArray(view.items)) {
      this.el.hidden = true;
      return;
    }
    this.view = view;
    this.el.hidden = false;
    const active = view.items.find((item) => item.id === view.active);
    this.toggle.textContent = t("conversations.list_count",
      { title: active?.title ?? t("conversations.untitled"), count: String(view.items.length) });
    this.el.dataset.active = view.active;
    if (this.busyRow === null) this.renderList();
  }

  renderList() {
    const view = this.view;
    if (!view) return;
    this.list.replaceChildren(...view.items.map((item) => this.row(item, item.id === view.active)));
  }

  /** @param {ConversationItem} item @param {boolean} active */
  row(item, active) {
    const title = item.title ?? t("conversations.untitled");
    const li = el("li", "nbc-conversation");
    li.dataset.conversationId = item.id;
    li.dataset.state = item.state;
    if (active) li.setAttribute("aria-current", "true");
    const open = button("", "switch-conversation");
    open.classList.add("nbc-conversation-open");
    const name = el("span", "nbc-conversation-title");
    name.textContent = title;
    const when = el("span", "nbc-conversation-time");
    when.textContent = formatTime(item.updated_at);
    open.append(name, when);
    const mark = MARKS[/** @type {keyof typeof MARKS} */ (item.state)];
    if (mark) {
      const badge = el("span", "nbc-conversation-mark");
      badge.textContent = t(mark);
      open.append(badge);
    }
    open.setAttribute("aria-label", [title, when.textContent, mark ? t(mark) : ""].filter(Boolean).join(", "));
    open.addEventListener("click", () => {
      if (active) return;
      this.send({ kind: "switch_conversation", conversation_id: item.id }, (error) => this.showError(error));
    });
    const rename = button(t("conversations.rename"), "rename-conversation");
    rename.setAttribute("aria-label", t("conversations.rename_named", { title }));
    rename.addEventListener("click", () => this.startRename(li, item, title));
    const remove = button(t("conversations.delete"), "delete-conversation");
    remove.setAttribute("aria-label", t("conversations.delete_named", { title }));
    remove.addEventListener("click", () => {
      this.busyRow = item.id;
      this.confirm(t("conversations.delete_confirm", { title }), () => this.send(
        { kind: "delete_conversation", conversation_id: item.id }, (error) => this.showError(error)));
    });
    li.append(open, rename, remove);
    return li;
  }

  /** @param {HTMLElement} li @param {ConversationItem} item @param {string} title */
  startRename(li, item, title) {
    this.busyRow = item.id;
    const input = document.createElement("input");
    input.type = "text";
    input.className = "nbc-conversation-rename";
    input.dataset.field = "conversation-title";
    input.value = item.title ?? "";
    input.placeholder = title;
    input.setAttribute("aria-label", t("conversations.rename_named", { title }));
    const done = (/** @type {boolean} */ commit) => {
      if (this.busyRow !== item.id) return;
      this.busyRow = null;
      const text = input.value.trim();
      if (commit && text !== "" && text !== item.title) {
        this.send({ kind: "rename_conversation", conversation_id: item.id, title: text },
          (error) => this.showError(error));
      }
      this.renderList();
    };
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        done(true);
      } else if (event.key === "Escape") {
        event.stopPropagation(); // Esc here cancels the rename; it must not stop the running turn
        done(false);
      }
    });
    input.addEventListener("blur", () => done(true));
    li.replaceChildren(input);
    input.focus();
    input.select();
  }

  /** Ask before something that can't be undone. @param {string} question @param {() => void} action */
  confirm(question, action) {
    const text = el("span", "nbc-conversation-question");
    text.textContent = question;
    const yes = button(t("conversations.confirm_yes"), "confirm");
    const no = button(t("conversations.confirm_no"), "cancel");
    const close = () => {
      this.confirmLine.hidden = true;
      this.confirmLine.replaceChildren();
      this.busyRow = null;
      this.renderList();
    };
    yes.addEventListener("click", () => {
      close();
      action();
    });
    no.addEventListener("click", close);
    this.confirmLine.replaceChildren(text, yes, no);
    this.confirmLine.hidden = false;
    no.focus();
  }

  /** @param {"copy" | "download"} purpose */
  exportMarkdown(purpose) {
    this.markdownFor = purpose;
    this.send({ kind: "export_conversation", conversation_id: null, format: "markdown" },
      (error) => this.showError(error));
  }

  /** The kernel's answer to export_conversation. @param {{format: string, content: any}} msg */
  handleExport(msg) {
    if (msg.format === "cells") {
      const insert = this.insertCells();
      if (!insert || !Array.isArray(msg.content) || !insert(msg.content)) this.showError(t("conversations.cells_failed"));
      return;
    }
    const text = typeof msg.content === "string" ? msg.content : "";
    if (this.markdownFor === "download") {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([text], { type: "text/markdown" }));
      link.download = `${fileName(this.activeTitle())}.md`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
      return;
    }
    navigator.clipboard.writeText(text).then(
      () => flash(/** @type {HTMLButtonElement} */ (this.tools.querySelector("[data-action=copy-markdown]")),
        t("code.copied"), 1500),
      () => this.showError(t("code.copy_failed")),
    );
  }

  activeTitle() {
    const view = this.view;
    return view?.items.find((item) => item.id === view.active)?.title ?? "conversation";
  }
}

/** @param {string} tag @param {string} className */
function el(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}

/** @param {string | null} stamp ISO-8601 */
function formatTime(stamp) {
  if (!stamp) return "";
  const when = new Date(stamp);
  return Number.isNaN(when.getTime()) ? "" : when.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

/** @param {string} title */
function fileName(title) {
  return title.replace(/[^\p{L}\p{N} _-]+/gu, "").trim().slice(0, 60) || "conversation";
}
