// One card per tool call: name, arguments, status, result/error/display; Approve / Deny while awaiting approval.
import { DICTIONARIES, t } from "./i18n.js";
import { button, codeElement, sanitize } from "./markdown.js";


/**
 * @typedef {{id: string, name: string, arguments: string, status: string, result?: string, error?: string,
 *   display?: Record<string, any>, edited_arguments?: string}} ToolCallView
 * @typedef {(msg: object, onError?: (error: string) => void) => void} SendAction
 */

export class ToolCard {
  /**
   * @param {ToolCallView} call @param {SendAction} send
   * @param {(card: HTMLElement) => void} [onPending] called when the card starts waiting for a decision
   */
  constructor(call, send, onPending) {
    this.send = send;
    this.onPending = onPending ?? (() => {});
    this.drawnStatus = "";
    this.call = call;
    this.signature = "";
    this.el = document.createElement("div");
    this.el.className = "nbc-tool";
    this.el.dataset.toolCallId = call.id;
    this.update(call);
  }

  /** A snapshot: redraw only when something changed; keep an edit in progress when the call still awaits. */
  /** @param {ToolCallView} call */
  update(call) {
    const signature = JSON.stringify(call);
    if (signature === this.signature) {
      this.setBusy(false);
      return;
    }
    const keepEdit =
      this.editor && call.status === "awaiting-approval" && this.call.arguments === call.arguments
        ? this.editor.value
        : null;
    this.call = call;
    this.signature = signature;
    this.draw(keepEdit);
  }

  /** @param {string} text streamed argument text */
  appendArgs(text) {
    this.call = { ...this.call, arguments: (this.call.arguments ?? "") + text };
    this.signature = "";
    if (this.argsEl) this.argsEl.append(text);
  }

  /** @param {string|null} keepEdit */
  draw(keepEdit) {
    const call = this.call;
    const el = this.el;
    el.dataset.status = call.status;
    el.replaceChildren();
    this.editor = null;
    this.argsEl = null;
    this.busy = false;
    this.buttons = [];
    this.validate = null;

    const head = div("nbc-tool-head");
    const name = div("nbc-tool-name");
    name.textContent = call.name || t("tool.unnamed");
    const badge = div("nbc-tool-status");
    badge.dataset.status = call.status;
    badge.textContent = `tool.status.${call.status}` in DICTIONARIES.en ? t(`tool.status.${call.status}`) : call.status;
    head.append(name, badge);
    el.append(head);
    el.setAttribute("role", "group");
    el.setAttribute("aria-label", t("tool.group", { name: name.textContent, status: badge.textContent }));

    if (call.status === "awaiting-approval") {
      el.append(...codePreviews(call.arguments));
      el.append(this.approvalForm(keepEdit ?? call.edited_arguments ?? call.arguments ?? "{}"));
      if (this.drawnStatus !== call.status) this.onPending(el);
    } else {
      const args = document.createElement("pre");
      args.className = "nbc-tool-args";
      args.textContent = call.edited_arguments ?? call.arguments ?? "";
      this.argsEl = args;
      const previews = call.status === "running" ? [] : codePreviews(call.edited_arguments ?? call.arguments);
      if (previews.length > 0) {
        const details = document.createElement("details");
        details.className = "nbc-tool-args-json";
        const summary = document.createElement("summary");
        summary.textContent = t("tool.arguments_json");
        details.append(summary, args);
        el.append(...previews, details);
      } else {
        el.append(args);
      }
      if (call.edited_arguments != null) el.append(note("nbc-tool-edited", t("tool.edited")));
    }
    if (call.result != null && call.result !== "") {
      const result = document.createElement("pre");
      result.className = "nbc-tool-result";
      result.textContent = call.result;
      el.append(result);
    }
    if (call.display) el.append(renderDisplay(call.display));
    if (call.error) el.append(note("nbc-tool-error", call.error));
    this.drawnStatus = call.status;
    this.actionError = note("nbc-action-error", "");
    this.actionError.hidden = true;
    el.append(this.actionError);
  }

  /** @param {string} initial */
  approvalForm(initial) {
    const form = div("nbc-tool-approval");
    const editor = document.createElement("textarea");
    editor.className = "nbc-tool-args-editor";
    editor.dataset.field = "arguments";
    editor.spellcheck = false;
    editor.value = initial;
    editor.setAttribute("aria-label", t("tool.arguments_editable"));
    editor.rows = Math.min(12, Math.max(2, initial.split("\n").length));
    this.editor = editor;
    const invalid = note("nbc-tool-args-invalid", "");
    invalid.hidden = true;

    const approve = button(t("tool.approve"), "approve");
    const deny = button(t("tool.deny"), "deny");
    const actions = div("nbc-tool-actions");
    actions.append(approve, deny);

    const denyForm = div("nbc-deny-form");
    denyForm.hidden = true;
    const reason = document.createElement("input");
    reason.type = "text";
    reason.className = "nbc-deny-reason";
    reason.dataset.field = "deny-reason";
    reason.placeholder = t("tool.deny_reason");
    reason.setAttribute("aria-label", t("tool.deny_reason_label"));
    const confirm = button(t("tool.deny_confirm"), "deny-confirm");
    const cancel = button(t("tool.deny_cancel"), "deny-cancel");
    denyForm.append(reason, confirm, cancel);

    const validate = () => {
      const problem = argumentsProblem(editor.value);
      invalid.textContent = problem ?? "";
      invalid.hidden = problem === null;
      approve.disabled = problem !== null || this.busy === true;
      approve.dataset.invalid = String(problem !== null);
    };
    editor.addEventListener("input", validate);
    reason.addEventListener("keydown", (e) => {
      if (e.key === "Enter") confirm.click();
      if (e.key === "Escape") {
        e.preventDefault(); // Esc here closes the form; it does not stop the turn
        cancel.click();
      }
    });

    approve.addEventListener("click", () => {
      if (argumentsProblem(editor.value) !== null) return;
      const edited = editor.value.trim() === (this.call.arguments ?? "").trim() ? null : editor.value;
      this.act({ kind: "approve", tool_call_id: this.call.id, arguments: edited });
    });
    deny.addEventListener("click", () => {
      denyForm.hidden = false;
      actions.hidden = true;
      reason.focus();
    });
    cancel.addEventListener("click", () => {
      denyForm.hidden = true;
      actions.hidden = false;
    });
    confirm.addEventListener("click", () => {
      const text = reason.value.trim();
      this.act({ kind: "deny", tool_call_id: this.call.id, reason: text === "" ? null : text });
    });
    this.buttons = [approve, deny, confirm, cancel];
    this.validate = validate;
    form.append(editor, invalid, actions, denyForm);
    validate();
    return form;
  }

  /** @param {object} msg */
  act(msg) {
    this.setBusy(true);
    if (this.actionError) this.actionError.hidden = true;
    this.send(msg, (error) => {
      this.setBusy(false);
      if (this.actionError) {
        this.actionError.textContent = error;
        this.actionError.hidden = false;
      }
    });
  }

  /** Buttons stay disabled after a click until the next snapshot (no double send). @param {boolean} busy */
  setBusy(busy) {
    this.busy = busy;
    for (const b of this.buttons ?? []) b.disabled = busy;
    if (!busy && this.validate) this.validate();
  }
}

/** @param {string} text @returns {string|null} why the text can't be sent as arguments, or null */
export function argumentsProblem(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return t("tool.invalid_json", { error: /** @type {Error} */ (err).message });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return t("tool.not_object");
  }
  return null;
}

const CODE_LANGUAGES = { code: "python", python: "python", sql: "sql", query: "sql", script: "bash", command: "bash" };

/**
 * Multi-line string arguments (code, SQL, a script) drawn as highlighted code, so what would run is readable
 * instead of one escaped JSON line.
 * @param {string|undefined} argumentsText @returns {HTMLElement[]}
 */
function codePreviews(argumentsText) {
  let value;
  try {
    value = JSON.parse(argumentsText ?? "");
  } catch {
    return [];
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const previews = [];
  for (const [key, text] of Object.entries(value)) {
    if (typeof text !== "string" || !(text.includes("\n") || key in CODE_LANGUAGES)) continue;
    const box = div("nbc-tool-code");
    box.dataset.argument = key;
    const label = div("nbc-tool-code-label");
    label.textContent = key;
    box.append(label, codeElement(text, CODE_LANGUAGES[/** @type {keyof typeof CODE_LANGUAGES} */ (key)] ?? "plaintext"));
    previews.push(box);
  }
  return previews;
}

/**
 * A tool's display (a mime bundle): every image (a base64 string or a list of them), else sanitized HTML/SVG, and
 * the full text output (shown to the user even when the model only got a truncated version).
 * @param {Record<string, any>} bundle
 */
function renderDisplay(bundle) {
  const box = div("nbc-tool-display");
  let rich = false;
  for (const mime of ["image/png", "image/jpeg", "image/gif"]) {
    const images = Array.isArray(bundle[mime]) ? bundle[mime] : [bundle[mime]];
    for (const data of images) {
      if (typeof data !== "string") continue;
      const img = document.createElement("img");
      img.src = `data:${mime};base64,${data.replace(/\s/g, "")}`;
      img.alt = t("tool.image_alt");
      box.append(img);
      rich = true;
    }
  }
  if (!rich) {
    for (const mime of ["text/html", "image/svg+xml"]) {
      if (typeof bundle[mime] === "string") {
        const html = div("nbc-tool-html");
        html.innerHTML = sanitize(bundle[mime]);
        box.append(html);
        rich = true;
        break;
      }
    }
  }
  const text = typeof bundle["text/plain"] === "string" ? bundle["text/plain"] : null;
  if (text !== null || !rich) {
    const pre = document.createElement("pre");
    pre.textContent = text ?? JSON.stringify(bundle);
    if (rich) {
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = t("tool.full_text");
      details.append(summary, pre);
      box.append(details);
    } else {
      box.append(pre);
    }
  }
  return box;
}

/** @param {string} className */
function div(className) {
  const d = document.createElement("div");
  d.className = className;
  return d;
}

/** @param {string} className @param {string} text */
function note(className, text) {
  const d = div(className);
  d.textContent = text;
  return d;
}
