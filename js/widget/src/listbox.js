// A popup listbox under a text input (WAI-ARIA listbox with aria-activedescendant): the focus stays in the input,
// ArrowUp/Down move the active option, Enter or Tab pick it, Esc closes. The input keeps its textbox role (a
// textarea may not be a combobox), so it gets aria-autocomplete, aria-controls (the open popup's id) and aria-activedescendant while
// an option is active. Used by the composer's slash-command menu.

/** @typedef {{value: string, label: string, detail?: string}} ListOption */

let counter = 0;

export class PopupListbox {
  /**
   * @param {HTMLInputElement|HTMLTextAreaElement} input
   * @param {{label: string, className: string, onPick: (option: ListOption) => void}} options
   */
  constructor(input, { label, className, onPick }) {
    this.input = input;
    this.onPick = onPick;
    this.id = `nbc-listbox-${++counter}-${Math.random().toString(36).slice(2, 6)}`;
    /** @type {ListOption[]} */
    this.options = [];
    this.active = 0;
    this.el = document.createElement("ul");
    this.el.className = `nbc-listbox ${className}`;
    this.el.id = this.id;
    this.el.setAttribute("role", "listbox");
    this.el.setAttribute("aria-label", label);
    this.el.hidden = true;
    input.setAttribute("aria-autocomplete", "list");
  }

  get open() {
    return !this.el.hidden;
  }

  /** @param {ListOption[]} options shown (an empty list closes the popup) */
  show(options) {
    const keep = this.open ? this.options[this.active]?.value : undefined;
    this.options = options;
    const index = options.findIndex((option) => option.value === keep);
    this.active = index >= 0 ? index : 0;
    this.el.replaceChildren(...options.map((option, i) => this.item(option, i)));
    this.el.hidden = options.length === 0;
    if (this.open) this.input.setAttribute("aria-controls", this.id); // one input may own several popups
    this.mark();
  }

  /** @param {ListOption} option @param {number} index */
  item(option, index) {
    const li = document.createElement("li");
    li.className = "nbc-listbox-option";
    li.id = `${this.id}-${index}`;
    li.setAttribute("role", "option");
    li.dataset.value = option.value;
    const name = document.createElement("span");
    name.className = "nbc-listbox-label";
    name.textContent = option.label;
    li.append(name);
    if (option.detail) {
      const detail = document.createElement("span");
      detail.className = "nbc-listbox-detail";
      detail.textContent = option.detail;
      li.append(detail);
    }
    li.addEventListener("mousedown", (e) => {
      e.preventDefault(); // the focus stays in the input
      this.active = index;
      this.pick();
    });
    return li;
  }

  mark() {
    for (const [index, li] of [...this.el.children].entries()) {
      li.setAttribute("aria-selected", String(index === this.active));
    }
    if (this.open) this.input.setAttribute("aria-activedescendant", `${this.id}-${this.active}`);
    else this.input.removeAttribute("aria-activedescendant");
    /** @type {HTMLElement|undefined} */ (this.el.children[this.active])?.scrollIntoView?.({ block: "nearest" });
  }

  /** A key in the input; true when the popup used it (the caller then stops it). @param {KeyboardEvent} e */
  key(e) {
    if (!this.open || e.isComposing) return false;
    const count = this.options.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      this.active = (this.active + (e.key === "ArrowDown" ? 1 : -1) + count) % count;
      this.mark();
    } else if (e.key === "Enter" || e.key === "Tab") {
      if (e.shiftKey) return false;
      this.pick();
    } else if (e.key === "Escape") {
      this.close();
    } else {
      return false;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
    return true;
  }

  pick() {
    const option = this.options[this.active];
    this.close();
    if (option) this.onPick(option);
  }

  close() {
    this.el.hidden = true;
    this.options = [];
    this.el.replaceChildren();
    this.mark();
  }
}
