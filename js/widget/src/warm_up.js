// The first reply a page draws runs every library's code for the first time: measured on the 80 KB benchmark reply,
// lexing, rendering, sanitizing and highlighting cost 2–3× what they cost for the next reply, and KaTeX is evaluated
// at its first formula. A chat view warms them up once the page is idle after it is displayed: KaTeX in one idle
// callback, then a short reply with every kind of block drawn WARM_UP_ROUNDS times into a detached fragment (never
// inserted), as many rounds per idle callback as its idle time allows (one round costs ~10 ms cold, less warm).
import { preloadKatex } from "./katex_lazy.js";
import { enhanceCodeBlocks, renderMarkdownFragment } from "./markdown.js";
import { MarkdownStream } from "./streaming_markdown.js";

/** A short reply with a block of each kind the renderer draws (and a formula of each kind). */
export const WARM_UP_REPLY = [
  "## Result\n\nThe mean is **3.5**, see `df.mean()` and [the docs](https://example.com/); $x_i^2$ grows.\n\n",
  "- first *item*\n- second item\n\n  continued\n\n1. one\n2. two\n\n",
  "| column | value |\n|---|---:|\n| a | 1 |\n\n",
  "```python\ndef scaled(frame, scale=2):\n    \"\"\"Scale.\"\"\"\n    return frame.assign(value=frame['value'] * scale)  # x\n```\n\n",
  "> A quote.\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n",
].join("");

/** Rounds of WARM_UP_REPLY: one runs each function once; the engine optimizes code that ran many times. */
export const WARM_UP_ROUNDS = 6;
/** Idle time a round leaves to the page. */
const SLACK_MS = 8;

/** @type {Promise<void> | null} */
let warm = null;

/** Warm the renderer up once per page, in idle time (nothing is drawn). @returns {Promise<void>} settled when warm */
export function warmUpRendering() {
  if (warm) return warm;
  if (typeof document === "undefined") return (warm = Promise.resolve());
  preloadKatex();
  const idle = globalThis.requestIdleCallback ?? ((/** @type {() => void} */ fn) => setTimeout(fn, 0));
  warm = new Promise((resolve) => {
    let left = WARM_UP_ROUNDS;
    const round = (/** @type {IdleDeadline|undefined} */ deadline) => {
      do {
        renderDetached(WARM_UP_REPLY);
        left -= 1;
      } while (left > 0 && (deadline?.timeRemaining() ?? 0) > SLACK_MS);
      if (left > 0) idle(round);
      else resolve();
    };
    idle(() => idle(round)); // after KaTeX's idle callback
  });
  return warm;
}

/**
 * Stream `text` in two halves through the message list's renderer, into nodes that are never inserted.
 * @param {string} text @returns {DocumentFragment} the finished blocks' nodes
 */
export function renderDetached(text) {
  const stream = new MarkdownStream(renderMarkdownFragment);
  stream.live = true;
  const out = document.createDocumentFragment();
  for (const upTo of [Math.floor(text.length / 2), text.length]) {
    const step = stream.update(text.slice(0, upTo));
    for (const nodes of [...step.finished, ...(step.tail ? [step.tail] : [])]) {
      enhanceCodeBlocks(nodes, { cache: new Map(), insertCell: null });
      out.append(nodes);
    }
  }
  return out;
}
