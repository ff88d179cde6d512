// One card per tool call: name, status badge and the tool's description; labelled Arguments and Result sections; who
// decided and when. While the call awaits approval, every code-like string argument (code, SQL, a script, any
// multi-line text) is edited as code in its own field and the rest as JSON; Approve / Deny below.
import { DICTIONARIES, t } from "./i18n.js";
import { button, codeElement, sanitize } from "./markdown.js";

const CODE_LANGUAGES = { code: "python", python: "python", sql: "sql", query: "sql", script: "bash", command: "bash" };

/**
 * @typedef {{id: string, name: string, arguments: string, status: string, result?: string, error?: string,
 *   display?: Record<string, any>, edited_arguments?: string, reason?: string, stopped?: boolean,
 *   decided_by?: "user"|"code", decided_at?: number}} ToolCallView
 * @typedef {(msg: object, onError?: (error: string) => void) => void} SendAction
 * @typedef {{description?: string, approval?: boolean}} ToolInfo
 */

export class ToolCard {
  /**
   * @param {ToolCallView} call @param {SendAction} send
   * @param {(card: HTMLElement) => void} [onPending] called when the card starts waiting for a decision
   * @param {(name: string) => ToolInfo|null} [toolInfo] the tool's description (from the kernel's tool table)
   */
  constructor(call, send, onPending, toolInfo) {
    this.send = send;
    this.onPending = onPending ?? (() => {});
    this.toolInfo = toolInfo ?? (() => null);
    this.drawnStatus = "";
    this.call = call;
    this.signature = "";
    /** @type {Map<string, HTMLTextAreaElement>} argument editors while pending ("" = the JSON of the rest) */
    this.editors = new Map();
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
    const keep = this.editors.size > 0 && call.status === "awaiting-approval" && this.call.arguments === call.arguments
      ? new Map([...this.editors].map(([key, editor]) => [key, editor.value]))
      : null;
    this.call = call;
    this.signature = signature;
    this.draw(keep);
  }

  /** @param {string} text streamed argument text */
  appendArgs(text) {
    this.call = { ...this.call, arguments: (this.call.arguments ?? "") + text };
    this.signature = "";
    if (this.argsEl) this.argsEl.append(text);
  }

  /** @param {Map<string, string>|null} keep editor values to carry over */
  draw(keep) {
    const call = this.call;
    const el = this.el;
    el.dataset.status = call.status;
    el.dataset.stopped = String(call.stopped === true);
    el.replaceChildren();
    this.editors = new Map();
    this.argsEl = null;
    this.busy = false;
    this.buttons = [];
    this.validate = null;

    const head = div("nbc-tool-head");
    const name = div("nbc-tool-name");
    name.textContent = call.name || t("tool.unnamed");
    const badge = div("nbc-tool-status");
    const shown = call.stopped ? "stopped" : call.status;
    badge.dataset.status = shown;
    badge.textContent = `tool.status.${shown}` in DICTIONARIES.en ? t(`tool.status.${shown}`) : shown;
    head.append(name, badge);
    el.append(head);
    el.setAttribute("role", "group");
    el.setAttribute("aria-label", t("tool.group", { name: name.textContent, status: badge.textContent }));
    const description = (this.toolInfo(call.name)?.description ?? "").trim();
    if (description) {
      const line = note("nbc-tool-description", description.split("\n")[0]);
      line.title = description;
      el.append(line);
    }

    if (call.status === "awaiting-approval") {
      el.append(this.approvalForm(call.edited_arguments ?? call.arguments ?? "{}", keep));
      if (this.drawnStatus !== call.status) this.onPending(el);
    } else {
      el.append(this.argumentsSection(call));
      const decision = decisionText(call);
      if (decision) el.append(note("nbc-tool-decision", decision));
      if (call.edited_arguments != null) el.append(note("nbc-tool-edited", t("tool.edited")));
    }
    if (call.result != null && call.result !== "") {
      const result = document.createElement("pre");
      result.className = "nbc-tool-result";
      result.textContent = call.result;
      el.append(section("result", t("tool.result"), result));
    }
    if (call.display) el.append(section("output", t("tool.output"), renderDisplay(call.display)));
    if (call.error) el.append(note("nbc-tool-error", call.error));
    this.drawnStatus = call.status;
    this.actionError = note("nbc-action-error", "");
    this.actionError.hidden = true;
    el.append(this.actionError);
  }

  /** Read-only arguments: code-like strings drawn as code (the JSON folded away), else the JSON. */
  /** @param {ToolCallView} call */
  argumentsSection(call) {
    const text = call.edited_arguments ?? call.arguments ?? "";
    const args = document.createElement("pre");
    args.className = "nbc-tool-args";
    args.textContent = text;
    this.argsEl = args;
    const previews = call.status === "running" && text === call.arguments ? [] : codePreviews(text);
    if (previews.length === 0) return section("arguments", t("tool.arguments"), args);
    const details = document.createElement("details");
    details.className = "nbc-tool-args-json";
    const summary = document.createElement("summary");
    summary.textContent = t("tool.arguments_json");
    details.append(summary, args);
    return section("arguments", t("tool.arguments"), ...previews, details);
  }

  /** @param {string} initial the arguments' JSON text @param {Map<string, string>|null} keep */
  approvalForm(initial, keep) {
    const form = div("nbc-tool-approval");
    const parsed = parseObject(initial);
    const codeKeys = parsed ? Object.keys(parsed).filter((key) => isCodeLike(key, parsed[key])) : [];
    const fields = [];
    for (const key of codeKeys) {
      const editor = textArea("nbc-tool-code-editor", keep?.get(key) ?? /** @type {string} */ (parsed?.[key]));
      editor.dataset.field = "argument";
      editor.dataset.argument = key;
      this.editors.set(key, editor);
      fields.push(labelled(key, editor));
    }
    const rest = parsed ? Object.fromEntries(Object.entries(parsed).filter(([key]) => !codeKeys.includes(key))) : null;
    const restText = rest ? JSON.stringify(rest, null, 2) : initial;
    const json = textArea("nbc-tool-args-editor", keep?.get("") ?? restText);
    json.dataset.field = "arguments";
    json.setAttribute("aria-label", t("tool.arguments_editable"));
    this.editors.set("", json);
    if (codeKeys.length === 0) fields.push(json);
    else if (Object.keys(rest ?? {}).length > 0) fields.push(labelled(t("tool.other_arguments"), json));

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

    /** @returns {{args: Record<string, unknown>|null, problem: string|null}} */
    const collect = () => {
      const problem = argumentsProblem(json.value);
      if (problem !== null) return { args: null, problem };
      const values = /** @type {Record<string, unknown>} */ (JSON.parse(json.value));
      for (const key of codeKeys) values[key] = /** @type {HTMLTextAreaElement} */ (this.editors.get(key)).value;
      // the model's key order first, so an unchanged form compares equal
      const ordered = /** @type {Record<string, unknown>} */ ({});
      for (const key of Object.keys(parsed ?? {})) if (key in values) ordered[key] = values[key];
      return { args: { ...ordered, ...values }, problem: null };
    };
    const validate = () => {
      const { problem } = collect();
      invalid.textContent = problem ?? "";
      invalid.hidden = problem === null;
      approve.disabled = problem !== null || this.busy === true;
      approve.dataset.invalid = String(problem !== null);
    };
    for (const editor of this.editors.values()) editor.addEventListener("input", validate);
    reason.addEventListener("keydown", (e) => {
      if (e.key === "Enter") confirm.click();
      if (e.key === "Escape") {
        e.preventDefault(); // Esc here closes the form; it does not stop the turn
        cancel.click();
      }
    });

    approve.addEventListener("click", () => {
      const { args } = collect();
      if (args === null) return;
      const original = parseObject(this.call.arguments ?? "");
      const unchanged = original !== null && JSON.stringify(args) === JSON.stringify(original);
      const edited = unchanged || (original === null && json.value.trim() === (this.call.arguments ?? "").trim())
        ? null : JSON.stringify(args);
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
      deny.focus();
    });
    confirm.addEventListener("click", () => {
      const text = reason.value.trim();
      this.act({ kind: "deny", tool_call_id: this.call.id, reason: text === "" ? null : text });
    });
    this.buttons = [approve, deny, confirm, cancel];
    this.validate = validate;
    form.append(section("arguments", t("tool.arguments_editable"), ...fields), invalid, actions, denyForm);
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
  if (value === null || typeof value !== "object" || Array.isArray(value)) return t("tool.not_object");
  return null;
}

/** "Approved by you · 10:52", "Denied from code · 10:52: reason", "Not run: the turn was stopped…". */
/** @param {ToolCallView} call @returns {string} */
export function decisionText(call) {
  if (call.stopped) return t("tool.stopped");
  if (!call.decided_by) return call.status === "denied" && call.reason ? t("tool.denied_reason", { reason: call.reason }) : "";
  const who = call.decided_by === "user" ? t("tool.by_user") : t("tool.by_code");
  const when = typeof call.decided_at === "number" ? clock(call.decided_at) : "";
  const params = { who, when, reason: call.reason ?? "" };
  if (call.status === "denied") return t(call.reason ? "tool.denied_line_reason" : "tool.denied_line", params);
  return t("tool.approved_line", params);
}

/** @param {number} seconds epoch */
function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** @param {string} key @param {unknown} value */
function isCodeLike(key, value) {
  return typeof value === "string" && (value.includes("\n") || key in CODE_LANGUAGES);
}

/** @param {string} text @returns {Record<string, unknown>|null} */
function parseObject(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Code-like string arguments drawn as highlighted code, so what would run is readable instead of one escaped line.
 * @param {string|undefined} argumentsText @returns {HTMLElement[]}
 */
function codePreviews(argumentsText) {
  const value = parseObject(argumentsText ?? "");
  if (value === null) return [];
  const previews = [];
  for (const [key, text] of Object.entries(value)) {
    if (!isCodeLike(key, text)) continue;
    const box = div("nbc-tool-code");
    box.dataset.argument = key;
    const label = div("nbc-tool-code-label");
    label.textContent = key;
    const lang = CODE_LANGUAGES[/** @type {keyof typeof CODE_LANGUAGES} */ (key)] ?? "plaintext";
    box.append(label, codeElement(/** @type {string} */ (text), lang));
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

/** A labelled part of the card. @param {string} name @param {string} label @param {...Node} children */
function section(name, label, ...children) {
  const box = div("nbc-tool-section");
  box.dataset.section = name;
  const title = div("nbc-tool-section-label");
  title.textContent = label;
  box.append(title, ...children);
  return box;
}

/** @param {string} label @param {HTMLElement} field */
function labelled(label, field) {
  const box = div("nbc-tool-field");
  const title = document.createElement("label");
  title.className = "nbc-tool-code-label";
  title.textContent = label;
  field.setAttribute("aria-label", label);
  box.append(title, field);
  return box;
}

/** @param {string} className @param {string} value */
function textArea(className, value) {
  const editor = document.createElement("textarea");
  editor.className = className;
  editor.spellcheck = false;
  editor.value = value;
  editor.rows = Math.min(14, Math.max(2, value.split("\n").length));
  return editor;
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
