// Each display of the widget imports its module anew (anywidget imports it from the widget's state), so the first
// reply a view draws runs the markdown libraries' code for the first time: drawn in one go, an 80 KB reply's script
// costs about three times what it costs the third time (benchmarks/markdown_stages.py), and while a fast reply
// streams, that is time the page lacks to receive and draw it. Once a view has the kernel's first snapshot, the
// page's idle time streams a generated reply of every kind of block through the same renderer (MarkdownStream, the
// skipped blocks' renders, code highlighting) into nodes that are never inserted, a step at a time, once per module
// (KaTeX is evaluated first, in an idle callback of its own: the caller's preloadKatex).
// A smaller warm-up (six rounds of a 600-character reply) made no difference: the engine optimizes code that ran
// often, not once.
import { whenIdle } from "./idle.js";
import { enhanceCodeBlocks, renderMarkdownFragment, sanitizeInside } from "./markdown.js";
import { AHEAD_CHARS, MarkdownStream } from "./streaming_markdown.js";
import reply from "./warm_up_reply.json" with { type: "json" };

/** Characters of the generated reply. */
export const WARM_UP_CHARS = 16_000;
/** Text each step adds, as deltas do: small ones (the long blocks are drawn in pieces while open), then a burst (a
 * reply faster than its drawing). */
const STEP_CHARS = [...Array(12).fill(300), 2_500];
/** Idle time a step leaves to the page. */
const SLACK_MS = 8;

/** A section of a reply with every kind of block the renderer draws (`{n}` its number: the sections differ, as a
 * reply's do), and long blocks (a code block, a table, a list: each a head, `count` lines with `{i}`, a tail) that a
 * fast reply draws a piece at a time while they are open. Data, not text anyone reads: warm_up_reply.json. */
const { section, long } = /** @type {{section: string, long: {head: string, line: string, count: number,
  tail: string}[]}} */ (reply);

/** @returns {string} about WARM_UP_CHARS characters of generated reply */
export function warmUpReply() {
  const numbered = (/** @type {string} */ text, /** @type {string} */ slot, /** @type {number} */ n) =>
    text.replaceAll(slot, String(n));
  let text = numbered(section, "{n}", 1);
  for (const block of long) {
    text += block.head;
    for (let i = 0; i < block.count; i += 1) text += numbered(block.line, "{i}", i);
    text += block.tail;
  }
  for (let n = 2; text.length < WARM_UP_CHARS; n += 1) text += numbered(section, "{n}", n);
  return text;
}

/**
 * The steps of the warm-up reply streamed as a fast reply is (STEP_CHARS deltas; blocks that AHEAD_CHARS of text
 * already follows are skipped, as in the message list).
 * @template R @param {(text: string, tokens?: import("marked").Token[]) => R} render
 * @returns {Generator<import("./streaming_markdown.js").StreamStep<R>>}
 */
export function* warmUpSteps(render) {
  const text = warmUpReply();
  const stream = new MarkdownStream(render);
  stream.ahead = AHEAD_CHARS;
  for (let end = 0, n = 0; ; n += 1) {
    end += STEP_CHARS[n % STEP_CHARS.length];
    const upTo = Math.min(end, text.length);
    stream.live = upTo < text.length;
    let step;
    do yield (step = stream.update(text.slice(0, upTo)));
    while (step.pending);
    if (upTo === text.length) return;
  }
}

/** @type {Promise<void> | null} */
let warm = null;

/** Warm the renderer up once per module, in idle time (nothing is drawn). @returns {Promise<void>} settled when warm */
export function warmUpRendering() {
  if (warm) return warm;
  if (typeof document === "undefined") return (warm = Promise.resolve());
  warm = new Promise((resolve) => {
    const steps = warmUpSteps(renderMarkdownFragment);
    const drawn = document.createElement("div");
    // steps while the idle period has time left for them (without idle callbacks: one step per task)
    const run = (/** @type {IdleDeadline|undefined} */ deadline) => {
      while (!deadline || deadline.timeRemaining() > SLACK_MS) {
        const next = steps.next();
        if (next.done) return resolve();
        drawStep(next.value, drawn);
        if (!deadline) break;
      }
      whenIdle(run);
    };
    whenIdle(run);
  });
  return warm;
}

/**
 * What the message list does with a step, into `drawn` (never inserted): skipped blocks rendered apart, finished
 * blocks and the tail highlighted. @param {import("./streaming_markdown.js").StreamStep<DocumentFragment>} step
 * @param {HTMLElement} drawn
 */
function drawStep(step, drawn) {
  if (step.skipped) drawn.append(renderMarkdownFragment(step.skipped.text, step.skipped.tokens));
  const list = step.list ?? step.closed;
  if (list) for (const piece of [...list.pieces.slice(-4), list.open]) drawn.append(sanitizeInside(list.inside, piece));
  for (const nodes of [...step.finished, ...(step.tail ? [step.tail] : [])]) {
    enhanceCodeBlocks(nodes, { cache: new Map(), insertCell: null });
    drawn.append(nodes);
  }
  if (drawn.childNodes.length > 200) drawn.replaceChildren();
}
