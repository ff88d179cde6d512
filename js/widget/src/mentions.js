// @-mentions in the composer: typing "@" asks the kernel for matching variables ("complete_mentions"; DataFrames
// first, with their shape) and shows them in a listbox under the input; ArrowUp/Down choose, Enter or Tab insert,
// Esc closes. And the chips a user message shows, one per mention it recorded.
import { t } from "./i18n.js";
import "./mentions.css";

const TRIGGER = /(?:^|[^\w@.])@(\w*)$/;

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
    this.prefix = null;
    /** @type {MentionOption[]} */
    this.options = [];
    this.active = 0;
    this.list = document.createElement("ul");
    this.list.className = "nbc-mentions";
    this.list.id = `nbc-mentions-${Math.random().toString(36).slice(2, 8)}`;
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("aria-label", t("mentions.label"));
    this.list.hidden = true;
    box.prepend(this.list);
    input.setAttribute("aria-controls", this.list.id);
    input.addEventListener("input", () => this.typed());
    input.addEventListener("keydown", (e) => this.key(e), { capture: true });
    input.addEventListener("blur", () => setTimeout(() => this.close(), 150));
  }

  typed() {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const match = TRIGGER.exec(before);
    if (!match) return this.close();
    this.prefix = match[1];
    this.send({ kind: "complete_mentions", prefix: match[1] });
  }

  /** The kernel's answer. @param {{prefix: string, options: MentionOption[]}} msg */
  show(msg) {
    if (msg.prefix !== this.prefix) return; // typed on since: a newer answer follows
    this.options = Array.isArray(msg.options) ? msg.options : [];
    this.active = 0;
    this.list.replaceChildren(...this.options.map((option, index) => this.item(option, index)));
    this.list.hidden = this.options.length === 0;
    this.input.setAttribute("aria-expanded", String(!this.list.hidden));
  }

  /** @param {MentionOption} option @param {number} index */
  item(option, index) {
    const li = document.createElement("li");
    li.className = "nbc-mention-option";
    li.setAttribute("role", "option");
    li.dataset.name = option.name;
    li.setAttribute("aria-selected", String(index === this.active));
    const name = document.createElement("span");
    name.className = "nbc-mention-name";
    name.textContent = `@${option.name}`;
    const label = document.createElement("span");
    label.className = "nbc-mention-label";
    label.textContent = option.label ?? "";
    li.append(name, label);
    li.addEventListener("mousedown", (e) => {
      e.preventDefault(); // keep the focus in the input
      this.pick(index);
    });
    return li;
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    if (this.list.hidden || e.isComposing) return;
    const moves = { ArrowDown: 1, ArrowUp: -1 };
    if (e.key in moves) {
      this.active = (this.active + moves[/** @type {"ArrowDown"|"ArrowUp"} */ (e.key)] + this.options.length)
        % this.options.length;
      for (const [index, li] of [...this.list.children].entries()) {
        li.setAttribute("aria-selected", String(index === this.active));
      }
    } else if (e.key === "Enter" || e.key === "Tab") {
      this.pick(this.active);
    } else if (e.key === "Escape") {
      this.close();
    } else {
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
  }

  /** @param {number} index */
  pick(index) {
    const option = this.options[index];
    if (!option) return;
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret).replace(/@\w*$/, `@${option.name} `);
    this.input.value = before + this.input.value.slice(caret);
    this.input.setSelectionRange(before.length, before.length);
    this.input.dispatchEvent(new Event("input")); // drafts keep it; the menu closes (no "@" before the caret)
    this.close();
  }

  close() {
    this.prefix = null;
    this.list.hidden = true;
    this.input.setAttribute("aria-expanded", "false");
  }
}

/** The (empty) chip row of a message. */
export function mentionChips() {
  const row = document.createElement("div");
  row.className = "nbc-mention-chips";
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
