// After a failed turn: Retry / Retry with a shorter history next to the error, Remove / Edit on the rejected message.
// Sends the "retry", "remove_message" and "edit_and_resend" actions; the kernel's next snapshot is the truth.
import { t } from "./i18n.js";
import { button } from "./markdown.js";

export class RecoveryBar {
  /** @param {(msg: {kind: string} & Record<string, any>, onError?: (error: string) => void) => unknown} send */
  constructor(send) {
    this.send = send;
    this.el = document.createElement("div");
    this.el.className = "nbc-recovery";
    this.el.hidden = true;
    this.el.setAttribute("role", "group");
    this.el.setAttribute("aria-label", t("recovery.label"));
    this.error = document.createElement("div");
    this.error.className = "nbc-action-error";
    this.error.hidden = true;
    this.editor = document.createElement("textarea");
    this.editor.className = "nbc-recovery-editor";
    this.editor.setAttribute("aria-label", t("recovery.edit_label"));
    this.editor.hidden = true;
    const retry = this.action("retry.button", "retry", () => ({ kind: "retry", shorter: false }));
    const shorter = this.action("recovery.shorter", "retry-shorter", () => ({ kind: "retry", shorter: true }));
    const remove = this.action("recovery.remove", "remove-message",
      () => ({ kind: "remove_message", message_id: this.messageId }));
    const edit = button(t("recovery.edit"), "edit-message");
    const resend = this.action("recovery.resend", "resend-message",
      () => ({ kind: "edit_and_resend", message_id: this.messageId, text: this.editor.value }));
    resend.hidden = true;
    edit.addEventListener("click", () => {
      this.editor.hidden = false;
      resend.hidden = false;
      this.editor.value = this.messageText;
      this.editor.focus();
    });
    this.resend = resend;
    const row = document.createElement("div");
    row.className = "nbc-recovery-row";
    row.append(retry, shorter, remove, edit);
    this.el.append(row, this.editor, resend, this.error);
    this.messageId = "";
    this.messageText = "";
  }

  /** @param {string} label @param {string} name @param {() => {kind: string} & Record<string, any>} build */
  action(label, name, build) {
    const control = button(t(label), name);
    control.addEventListener("click", () => {
      this.error.hidden = true;
      this.send(build(), (message) => {
        this.error.textContent = message;
        this.error.hidden = false;
      });
    });
    return control;
  }

  /**
   * @param {{message_id: string|null}|null|undefined} offer
   * @param {{id: string, content?: string}[]} messages
   * @param {(id: string) => {el: HTMLElement}|null|undefined} node
   * @param {boolean} busy
   */
  render(offer, messages, node, busy) {
    const show = !!offer && !busy;
    const changed = (offer?.message_id ?? "") !== this.messageId;
    this.el.hidden = !show;
    if (!show || changed) {
      this.editor.hidden = true;
      this.resend.hidden = true;
      this.error.hidden = true;
    }
    if (!show || !offer) return;
    this.messageId = offer.message_id ?? "";
    this.messageText = messages.find((m) => m.id === this.messageId)?.content ?? "";
    const anchor = this.messageId ? node(this.messageId) : null;
    if (anchor) anchor.el.after(this.el);
  }
}
