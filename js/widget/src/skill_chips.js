// The skill chips above the messages: every available skill, which ones are active, and — in manual mode — a toggle
// per skill that sends a "skill" action. The kernel's next snapshot is the truth; a failed toggle shows its reason.
import { t } from "./i18n.js";
import "./skill_chips.css";

/**
 * @typedef {{name: string, description: string, active: boolean}} SkillItem
 * @typedef {{mode: string, toggle: boolean, items: SkillItem[]}} SkillsView
 */

export class SkillChips {
  /**
   * @param {(msg: {kind: string} & Record<string, any>, onError?: (error: string) => void) => unknown} send
   * @param {(error: string) => void} showError
   */
  constructor(send, showError) {
    this.send = send;
    this.showError = showError;
    this.el = document.createElement("div");
    this.el.className = "nbc-skills";
    this.el.setAttribute("role", "group");
    this.el.setAttribute("aria-label", t("skills.label"));
    this.el.hidden = true;
    this.label = document.createElement("span");
    this.label.className = "nbc-skills-label";
    this.label.textContent = t("skills.label");
    /** @type {Map<string, HTMLButtonElement>} */
    this.chips = new Map();
  }

  /** @param {SkillsView | null | undefined} view */
  render(view) {
    const items = view?.items ?? [];
    this.el.hidden = items.length === 0;
    const names = items.map((item) => item.name);
    if (names.join("\n") !== [...this.chips.keys()].join("\n")) this.rebuild(names);
    this.el.dataset.mode = view?.mode ?? "";
    for (const item of items) this.update(/** @type {HTMLButtonElement} */ (this.chips.get(item.name)), item, !!view?.toggle);
  }

  /** @param {string[]} names */
  rebuild(names) {
    this.chips = new Map(names.map((name) => [name, this.chip(name)]));
    this.el.replaceChildren(this.label, ...this.chips.values());
  }

  /** @param {string} name */
  chip(name) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "nbc-skill";
    chip.dataset.skill = name;
    chip.textContent = name;
    chip.addEventListener("click", () => {
      if (chip.getAttribute("aria-disabled") === "true" || chip.disabled) return;
      chip.disabled = true;
      const active = chip.dataset.active !== "true";
      this.send({ kind: "skill", name, active }, (error) => {
        chip.disabled = false;
        this.showError(error);
      });
    });
    return chip;
  }

  /** @param {HTMLButtonElement} chip @param {SkillItem} item @param {boolean} toggle */
  update(chip, item, toggle) {
    chip.disabled = false;
    chip.dataset.active = String(item.active);
    chip.setAttribute("aria-pressed", String(item.active));
    chip.setAttribute("aria-disabled", String(!toggle));
    const state = item.active ? t("skills.active") : t("skills.inactive");
    const action = toggle ? ` (${item.active ? t("skills.turn_off") : t("skills.turn_on")})` : "";
    chip.title = `${item.description}\n${state}${action}`;
  }
}
