// What the server said a reply cost, and what the context budget left out of its request. Shown only when the
// kernel's view carries it: a server that reports no usage shows nothing, never zeros.
import { t } from "./i18n.js";

/**
 * @typedef {{prompt_tokens?: number, completion_tokens?: number, total_tokens?: number}} Usage
 */

/** @param {unknown} value @returns {value is number} */
function count(value) {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** One reply's tokens ("" when the server reported none). @param {Usage|null|undefined} usage */
export function usageText(usage) {
  if (!usage) return "";
  const { prompt_tokens: input, completion_tokens: output, total_tokens: total } = usage;
  if (count(input) && count(output)) return t("usage.reply", { input, output });
  if (count(total)) return t("usage.reply_total", { total });
  return "";
}

/** The note on a reply whose request left older turns out ("" when none were). @param {unknown} turns */
export function leftOutText(turns) {
  if (!count(turns) || turns === 0) return "";
  return turns === 1 ? t("reply.left_out_one") : t("reply.left_out", { n: turns });
}

/** The conversation's token total, or nothing when the server reported none. */
export class UsageTotal {
  constructor() {
    this.el = document.createElement("div");
    this.el.className = "nbc-usage-total";
    this.el.hidden = true;
  }

  /** @param {Usage|null|undefined} usage */
  render(usage) {
    this.el.hidden = !usage;
    if (!usage) return;
    this.el.textContent = t("usage.total", { input: usage.prompt_tokens ?? 0, output: usage.completion_tokens ?? 0 });
  }
}
