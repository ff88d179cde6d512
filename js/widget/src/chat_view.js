// The whole widget view: header, message list, Continue, status line, inline error, input box.
import { ActionSender } from "./actions.js";
import { button } from "./markdown.js";
import { MessageList } from "./message_list.js";

const STATUS_TEXT = {
  requesting: "Requesting…",
  completing: "Streaming…",
  streaming: "Streaming…",
  "calling-tools": "Calling tools…",
  pausing: "Waiting for approval…",
};

/**
 * @typedef {{request_state: string, processing_state?: string|null, error?: string|null}} Status
 * @typedef {{messages: import("./message_list.js").MessageView[], status: Status,
 *   continue_offer: {message_id: string|null}|null, notice?: string|null}} View
 */

export class ChatView {
  /** @param {HTMLElement} el @param {(msg: object) => void} post */
  constructor(el, post) {
    this.el = el;
    this.actions = new ActionSender(post);
    /** @type {((code: string) => void) | null} */
    this.insertCell = null;
    /** @type {View|null} */
    this.view = null;
    const send = this.actions.send.bind(this.actions);

    el.classList.add("nbc-root");
    el.dataset.state = "idle";
    this.header = div("nbc-header");
    this.title = div("nbc-title");
    this.storage = div("nbc-storage");
    this.storage.hidden = true;
    this.notice = div("nbc-notice");
    this.notice.hidden = true;
    this.header.append(this.title, this.storage);

    this.list = new MessageList({ send, insertCell: () => this.insertCell });
    this.continueBox = this.buildContinue();
    this.status = div("nbc-status");
    this.errorLine = div("nbc-error");
    this.errorLine.hidden = true;
    this.composer = this.buildComposer();
    el.append(this.header, this.notice, this.list.el, this.continueBox, this.status, this.errorLine, this.composer);
    this.onKey = (/** @type {KeyboardEvent} */ e) => {
      if (e.key === "Escape" && this.running()) {
        e.preventDefault();
        this.stop();
      }
    };
    el.addEventListener("keydown", this.onKey);
    this.renderStatus({ request_state: "idle" });
  }

  /** Kernel→browser custom message. @param {any} msg */
  handle(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.kind === "snapshot") this.applySnapshot(msg.view);
    else if (msg.kind === "delta") this.list.applyDelta(msg.ops ?? []);
    else if (msg.kind === "action_result") this.actions.result(msg, (error) => this.showError(error));
  }

  /** @param {View} view */
  applySnapshot(view) {
    this.view = view;
    this.list.reconcile(view.messages ?? []);
    this.renderStatus(view.status ?? { request_state: "idle" });
    this.placeContinue(view);
    this.viewNotice = view.notice ?? "";
    this.renderNotice();
  }

  /** @param {string} text */
  setHeader(text) {
    this.title.textContent = text;
  }

  /** @param {string} text the `notice` trait */
  setNotice(text) {
    this.traitNotice = text;
    this.renderNotice();
  }

  renderNotice() {
    const parts = [this.traitNotice, this.viewNotice].filter((t) => t);
    const text = [...new Set(parts)].join(" ");
    this.notice.textContent = text;
    this.notice.hidden = text === "";
  }

  /** @param {{available: boolean, insertCellBelow?: (code: string) => void}} bridge */
  setBridge(bridge) {
    this.el.dataset.notebook = String(bridge.available);
    this.storage.hidden = bridge.available;
    this.storage.textContent = bridge.available ? "" : "not saved in notebook metadata";
    this.storage.title = bridge.available
      ? ""
      : "No notebook document is reachable from this view; the kernel keeps the conversation in its own store.";
    const insert = bridge.available && typeof bridge.insertCellBelow === "function" ? bridge.insertCellBelow : null;
    if (insert !== this.insertCell) {
      this.insertCell = insert ? (code) => insert.call(bridge, code) : null;
      this.list.refreshAll();
    }
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
    this.el.dataset.state = state;
    this.status.dataset.state = state;
    this.status.dataset.phase = phase;
    let text = "";
    if (state === "processing") text = STATUS_TEXT[/** @type {keyof typeof STATUS_TEXT} */ (phase)] ?? (phase || "Working…");
    else if (state === "paused") text = "Waiting for approval";
    else if (state === "error") text = `Error: ${status.error ?? "the request failed"}`;
    else if (state === "aborted") text = "Stopped";
    this.status.textContent = text;
    this.status.hidden = text === "";
    const busy = state === "processing" || state === "paused";
    this.input.disabled = busy;
    this.sendButton.disabled = busy;
    this.stopButton.hidden = !busy;
    this.stopButton.disabled = false;
  }

  buildComposer() {
    const box = div("nbc-composer");
    const input = document.createElement("textarea");
    input.className = "nbc-input";
    input.dataset.field = "input";
    input.rows = 2;
    input.placeholder = "Message (Enter to send, Shift+Enter for a new line, Esc to stop)";
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input = input;
    this.sendButton = button("Send", "send");
    this.sendButton.addEventListener("click", () => this.submit());
    this.stopButton = button("Stop", "stop");
    this.stopButton.hidden = true;
    this.stopButton.addEventListener("click", () => this.stop());
    box.append(input, this.sendButton, this.stopButton);
    return box;
  }

  submit() {
    const text = this.input.value;
    if (text.trim() === "" || this.input.disabled) return;
    this.input.value = "";
    this.input.disabled = true;
    this.sendButton.disabled = true;
    this.hideError();
    this.actions.send({ kind: "send", text }, (error) => {
      if (this.input.value === "") this.input.value = text;
      this.renderStatus(this.view?.status ?? { request_state: "idle" });
      this.showError(error);
    });
  }

  stop() {
    this.stopButton.disabled = true;
    this.actions.send({ kind: "stop" }, (error) => {
      this.stopButton.disabled = false;
      this.showError(error);
    });
  }

  buildContinue() {
    const box = div("nbc-continue");
    box.hidden = true;
    const go = button("Continue", "continue");
    const instruction = document.createElement("input");
    instruction.type = "text";
    instruction.className = "nbc-continue-instruction";
    instruction.dataset.field = "continue-instruction";
    instruction.placeholder = "Optional instruction";
    const error = div("nbc-action-error");
    error.hidden = true;
    instruction.addEventListener("keydown", (e) => {
      e.stopPropagation();
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
    box.append(go, instruction, error);
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
    this.continueButton.disabled = false;
    if (!show) {
      this.continueInstruction.value = "";
      this.continueError.hidden = true;
      if (this.continueBox.parentElement !== this.el) this.list.el.after(this.continueBox);
      return;
    }
    this.continueBox.dataset.messageId = offer.message_id ?? "";
    const anchor = offer.message_id ? this.list.node(offer.message_id) : null;
    if (anchor) anchor.el.after(this.continueBox);
    else this.list.el.append(this.continueBox);
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
    this.el.removeEventListener("keydown", this.onKey);
    this.list.dispose();
    this.el.replaceChildren();
  }
}

/** @param {string} className */
function div(className) {
  const d = document.createElement("div");
  d.className = className;
  return d;
}
