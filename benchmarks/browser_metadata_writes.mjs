// Browser time per `persist` write into the notebook metadata, at 10 and 1,000 messages and at 20 conversations x 200
// messages (js/widget/src/metadata.js against the real shared notebook model, @jupyter/ydoc's YNotebook, which
// JupyterLab's NotebookModel delegates getMetadata/setMetadata to).
//
// Run: node benchmarks/browser_metadata_writes.mjs   (after `cd js/widget && npm ci`)
// Prints the median and best time of one write:
//   streamed  a reply's streamed text grows (an append + the time stamp), as the kernel sends it every ~1 s
//   boundary  a write that is more than streamed text (the paused turn changes): it reaches the model at once
// "before": what the widget did up to this change for every write (read the section with getMetadata, apply the
// patch to a copy of the entry, setMetadata of the whole section); "after": metadata.js now (the page's copy, changed
// in place; the model gets it at a boundary, before a save, or FLUSH_AFTER_MS after a streamed write).

import { performance } from "node:perf_hooks";

import { connectNotebook } from "../js/widget/src/metadata.js";
import { applyWrite } from "../js/widget/src/patches.js";
import { openNotebook, publishPanel, viewElement } from "../js/widget/test/notebook_model.js";

const WRITES = 200;

function message(i) {
  const content = `Message ${i}: ` + "a sentence of about sixty characters, give or take a few. ".repeat(5);
  return { id: `m${i}`, role: i % 2 ? "assistant" : "user", content };
}

function section(conversations, messages) {
  const items = {};
  for (let c = 0; c < conversations; c++) {
    items[`c${c}`] = { version: 1, updated_at: "2026-12-01T10:00:00Z",
      messages: Array.from({ length: messages }, (_, i) => message(i)) };
  }
  return { version: 2, conversations: { k: { active: "c0", items, revision: "r-0" } } };
}

function streamed(n, at) {
  return { revision: `r-${n + 1}`, base: `r-${n}`, streaming: true, ops: [
    { op: "append", path: ["items", "c0", "messages", 1, "content"], at, text: "twenty more chars..." },
    { op: "set", path: ["items", "c0", "updated_at"], value: `2026-12-01T10:00:${String(n % 60).padStart(2, "0")}Z` }] };
}

function boundary(n) {
  return { revision: `r-${n + 1}`, base: `r-${n}`, ops: [
    { op: "set", path: ["items", "c0", "paused_turn"], value: n % 2 ? null : { version: 1, turn_id: `t${n}` } }] };
}

/** The widget's write before this change: the whole section read, a copy of the entry patched, the section written. */
function writeBefore(model, key, write) {
  const raw = model.getMetadata("notebook_chat");
  const conversations = { ...raw.conversations };
  conversations[key] = applyWrite(conversations[key] ?? null, write);
  model.setMetadata("notebook_chat", { ...raw, version: 2, conversations });
  if (!model.dirty) model.dirty = true;
}

async function measure(shape, kind, way) {
  const doc = openNotebook();
  publishPanel(doc.context);
  doc.model.setMetadata("notebook_chat", section(...shape));
  const handle = await connectNotebook({}, viewElement());
  let at = message(1).content.length;
  const times = [];
  for (let n = 0; n < WRITES; n++) {
    const write = kind === "streamed" ? streamed(n, at) : boundary(n);
    const start = performance.now();
    if (way === "before") writeBefore(doc.model, "k", write);
    else await handle.apply("k", write, { coalesce: write.streaming === true });
    times.push(performance.now() - start);
    if (kind === "streamed") at += write.ops[0].text.length;
  }
  handle.flush();
  const stored = doc.shared.getMetadata("notebook_chat").conversations.k;
  if (stored.revision !== `r-${WRITES}`) throw new Error(`${way} ${kind}: the model holds ${stored.revision}`);
  doc.dispose();
  times.sort((a, b) => a - b);
  return { median: times[times.length >> 1], best: times[0] };
}

const SHAPES = [["10 messages", [1, 10]], ["1,000 messages", [1, 1000]], ["20 x 200 messages", [20, 200]]];
console.log("browser time per persist write (ms, median / best of 200; real @jupyter/ydoc notebook model)");
console.log("shape               kind       before            after");
for (const [label, shape] of SHAPES) {
  for (const kind of ["streamed", "boundary"]) {
    const before = await measure(shape, kind, "before");
    const after = await measure(shape, kind, "after");
    const cell = (r) => `${r.median.toFixed(3)} / ${r.best.toFixed(3)}`.padEnd(18);
    console.log(`${label.padEnd(20)}${kind.padEnd(11)}${cell(before)}${cell(after)}`);
  }
}
