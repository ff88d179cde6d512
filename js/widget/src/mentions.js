// @-mentions in the composer: typing "@" asks the kernel for matching variables ("complete_mentions"; DataFrames
// first, with their shape) and shows them in a listbox under the input; ArrowUp/Down choose, Enter or Tab insert,
// Esc closes. A "this turn only" toggle shows while the text mentions something: pressed, the message's mentions
// are sent for its own turn and never stored ("temp_mentions" on the send action). And the chips a user message
// shows, one per mention it recorded.
import { bound, t } from "./i18n.js";
import { PopupListbox } from "./listbox.js";
import "./mentions.css";

const TRIGGER = /(?:^|[^\w@.])@(\w*)$/;
const MENTION = /(?:^|[^\w@.])@[A-Za-z_]/;

/** @typedef {{name: string, label: string, dataframe?: boolean}} MentionOption */

export class MentionMenu {
  /**
   * @param {HTMLTextAreaElement} input
   * @param {(msg: {kind: string} & Record<string, any>) => unknown} send
   * @param {HTMLElement} box where the listbox goes (the composer)
   */
  constructor(input, send, box) {
    this.input = input;
    this.send = send;
    /** @type {string|null} */
    this.prefix = null;
    // the same popup listbox as the slash-command menu (listbox.js): arrows, Enter/Tab, Esc
    this.menu = new PopupListbox(input, {
      label: t("mentions.label"),
      className: "nbc-mentions",
      onPick: (option) => this.pick(option.value),
    });
    this.list = this.menu.el;
    box.prepend(this.list);
    this.once = document.createElement("button");
    this.once.type = "button";
    this.once.className = "nbc-button nbc-mention-once";
    this.once.textContent = t("mentions.once");
    this.once.title = t("mentions.once_title");
    this.once.setAttribute("aria-pressed", "false");
    this.once.hidden = true;
    this.once.addEventListener("click", () => {
      this.once.setAttribute("aria-pressed", String(!this.onlyThisTurn()));
      this.close(); // a click here is not a pick: Enter back in the composer sends instead of choosing an option
      this.input.focus();
    });
    box.append(this.once);
    input.addEventListener("input", () => this.typed());
    input.addEventListener("keydown", (e) => this.menu.key(e), { capture: true });
    input.addEventListener("blur", () => setTimeout(bound(() => this.close()), 150));
  }

  typed() {
    this.once.hidden = !MENTION.test(this.input.value);
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const match = TRIGGER.exec(before);
    if (!match) return this.close();
    this.prefix = match[1];
    this.send({ kind: "complete_mentions", prefix: match[1] });
  }

  /** The kernel's answer. @param {{prefix: string, options: MentionOption[]}} msg */
  show(msg) {
    if (msg.prefix !== this.prefix) return; // typed on since: a newer answer follows
    const options = Array.isArray(msg.options) ? msg.options : [];
    this.menu.show(options.map((option) => ({ value: option.name, label: `@${option.name}`,
      detail: option.label ?? "" })));
  }

  /** @param {string} name */
  pick(name) {
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret).replace(/@\w*$/, `@${name} `);
    this.input.value = before + this.input.value.slice(caret);
    this.input.setSelectionRange(before.length, before.length);
    this.input.dispatchEvent(new Event("input")); // drafts keep it; the menu closes (no "@" before the caret)
    this.close();
  }

  onlyThisTurn() {
    return this.once.getAttribute("aria-pressed") === "true";
  }

  /** The send action's mention fields for `text`; the toggle is per message, so it is released. @param {string} text */
  sendFields(text) {
    const temp = this.onlyThisTurn() && MENTION.test(text);
    this.once.setAttribute("aria-pressed", "false");
    this.once.hidden = true;
    return temp ? { temp_mentions: true } : {};
  }

  close() {
    this.prefix = null;
    if (this.menu.open) this.menu.close();
  }
}

/** The (empty) chip row of a message. */
export function mentionChips() {
  const row = document.createElement("div");
  row.className = "nbc-mention-chips";
  row.setAttribute("role", "group"); // aria-label needs a role (axe: aria-prohibited-attr)
  row.setAttribute("aria-label", t("mentions.chips"));
  row.hidden = true;
  return row;
}

/** @param {HTMLElement} row @param {{name: string, label?: string, temp?: boolean}[] | undefined} mentions */
export function renderChips(row, mentions) {
  const items = Array.isArray(mentions) ? mentions : [];
  row.hidden = items.length === 0;
  row.replaceChildren(...items.map((mention) => {
    const chip = document.createElement("span");
    chip.className = "nbc-mention-chip";
    chip.dataset.name = mention.name;
    chip.dataset.temp = String(mention.temp === true);
    chip.textContent = `@${mention.name}`;
    chip.title = [mention.label, mention.temp ? t("mentions.temp") : ""].filter((x) => x).join(" · ");
    return chip;
  }));
}
