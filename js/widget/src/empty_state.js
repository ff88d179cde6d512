// What an empty chat can do: the model it talks to, its tools (marking those that ask before they run), and the
// suggested prompts (`Chat(prompts=[...])`) as chips; a click sends the prompt. Hidden once a message exists.
import { t } from "./i18n.js";
import { button } from "./markdown.js";

export class EmptyState {
  /** @param {(text: string) => void} usePrompt */
  constructor(usePrompt) {
    this.usePrompt = usePrompt;
    this.el = document.createElement("div");
    this.el.className = "nbc-empty";
    this.signature = "";
  }

  /**
   * @param {{provider: string, tools: Record<string, {description?: string, approval?: boolean}>,
   *   prompts: string[], empty: boolean}} state
   */
  render(state) {
    this.el.hidden = !state.empty;
    const signature = JSON.stringify([state.provider, state.tools, state.prompts]);
    if (!state.empty || signature === this.signature) return;
    this.signature = signature;
    const intro = line("nbc-empty-intro", state.provider ? t("empty.intro", { provider: state.provider })
      : t("empty.intro_plain"));
    const names = Object.keys(state.tools ?? {});
    const tools = line("nbc-empty-tools", names.length === 0 ? t("empty.no_tools") : t("empty.tools"));
    if (names.length > 0) {
      const list = document.createElement("ul");
      list.className = "nbc-empty-tool-list";
      for (const name of names) {
        const info = state.tools[name] ?? {};
        const item = document.createElement("li");
        item.dataset.tool = name;
        item.dataset.approval = String(info.approval === true);
        const code = document.createElement("code");
        code.textContent = name;
        item.append(code);
        if (info.approval) item.append(` ${t("empty.needs_approval")}`);
        const summary = (info.description ?? "").split("\n")[0].trim();
        if (summary) item.append(` — ${summary}`);
        list.append(item);
      }
      tools.append(list);
    }
    this.el.replaceChildren(intro, tools);
    const prompts = (state.prompts ?? []).filter((p) => typeof p === "string" && p.trim() !== "");
    if (prompts.length > 0) {
      const chips = document.createElement("div");
      chips.className = "nbc-prompts";
      for (const prompt of prompts) {
        const chip = button(prompt, "prompt");
        chip.classList.add("nbc-prompt-chip");
        chip.addEventListener("click", () => this.usePrompt(prompt));
        chips.append(chip);
      }
      this.el.append(chips);
    }
  }
}

/** @param {string} className @param {string} text */
function line(className, text) {
  const d = document.createElement("div");
  d.className = className;
  d.textContent = text;
  return d;
}
