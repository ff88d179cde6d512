// The page's copy of metadata["notebook_chat"] (js/widget/src/metadata.js) against the real shared notebook model
// (@jupyter/ydoc): writes cost what changed, a save never misses one, one view of a chat writes per notebook.

import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { FLUSH_AFTER_MS, connectNotebook } from "../src/metadata.js";
import { PatchMismatch, StaleCopy, applyWriteInPlace } from "../src/patches.js";
import { openNotebook, publishPanel, viewElement } from "./notebook_model.js";

const opened = [];
afterEach(() => {
  while (opened.length) opened.pop().dispose();
});

function notebook(options) {
  const doc = openNotebook(options);
  opened.push(doc);
  publishPanel(doc.context);
  return doc;
}

const message = (i) => ({ id: `m${i}`, role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(20) });

function entryOf(count, revision = "r-1") {
  return { active: "c1", items: { c1: { version: 1, messages: Array.from({ length: count }, (_, i) => message(i)) } },
    revision };
}

/** A notebook whose chat "k" holds `count` messages at revision r-1, and a handle on it (one view). */
async function chatOf(count, options = {}) {
  const doc = notebook(options);
  doc.model.setMetadata("notebook_chat", { version: 2, conversations: { k: entryOf(count) } });
  doc.calls.getMetadata = doc.calls.setMetadata = 0;
  const handle = await connectNotebook({}, viewElement());
  return { doc, handle };
}

const streamed = (n, at, text) => ({ revision: `r-${n + 1}`, base: `r-${n}`, streaming: true, ops: [
  { op: "append", path: ["items", "c1", "messages", 1, "content"], at, text },
  { op: "set", path: ["items", "c1", "updated_at"], value: `2026-12-01T10:00:0${n}Z` }] });

test("a streamed write is applied in the page's copy: the notebook model is neither read nor written, yet dirty", async () => {
  const { doc, handle } = await chatOf(1000);
  handle.read("k"); // the view's ready read the section once
  doc.calls.getMetadata = 0;
  const before = message(1).content.length;
  for (let n = 1; n <= 5; n++) {
    await handle.apply("k", streamed(n, before + (n - 1) * 4, "more"), { coalesce: true });
  }
  assert.deepEqual(doc.calls, { getMetadata: 0, setMetadata: 0 });
  assert.equal(doc.model.dirty, true);
  assert.equal(handle.read("k").items.c1.messages[1].content, message(1).content + "more".repeat(5));
});

test("a write that is more than streamed text reaches the notebook model at once, with the streamed ones before it", async () => {
  const { doc, handle } = await chatOf(10);
  const at = message(1).content.length;
  await handle.apply("k", streamed(1, at, "A"), { coalesce: true });
  await handle.apply("k", { revision: "r-3", base: "r-2", ops: [{ op: "set", path: ["items", "c1", "paused_turn"], value: null }] });
  assert.equal(doc.calls.setMetadata, 1);
  const stored = doc.shared.getMetadata("notebook_chat").conversations.k;
  assert.equal(stored.revision, "r-3");
  assert.equal(stored.items.c1.messages[1].content, message(1).content + "A");
  assert.equal(stored.items.c1.paused_turn, null);
});

test("a save writes every applied write: the page's copy goes into the model before the save reads it", async () => {
  const { doc, handle } = await chatOf(10);
  await handle.apply("k", streamed(1, message(1).content.length, " saved"), { coalesce: true });
  const saved = await doc.context.save();
  assert.equal(saved.conversations.k.items.c1.messages[1].content, message(1).content + " saved");
  assert.equal(saved.conversations.k.revision, "r-2");
  assert.equal(doc.model.dirty, false);
});

test("a write applied while a save runs keeps the notebook dirty after the save", async () => {
  const { doc, handle } = await chatOf(10);
  const saving = doc.context.save();
  await handle.apply("k", streamed(1, message(1).content.length, " late"), { coalesce: true });
  await saving;
  assert.equal(doc.model.dirty, true);
});

test("a write waiting for the page's idle time is in a save that starts before it ran, and the notebook is clean", async () => {
  const { doc, handle } = await chatOf(10);
  handle.whenIdle(() => handle.apply("k", streamed(1, message(1).content.length, " waited"), { coalesce: false }));
  const saved = await doc.context.save();
  assert.equal(saved.conversations.k.items.c1.messages[1].content, message(1).content + " waited");
  assert.equal(doc.model.dirty, false);
});

test("a write queued for idle time makes the notebook dirty at once: closing it before the write asks to save", async () => {
  const { doc, handle } = await chatOf(10);
  await doc.context.save();
  assert.equal(doc.model.dirty, false);
  handle.whenIdle(() => {}, { writes: true });
  assert.equal(doc.model.dirty, true);
});

test("a write that arrives while a save runs keeps the notebook dirty after the save, though it waits for idle time", async () => {
  const { doc, handle } = await chatOf(10);
  const saving = doc.context.save();
  handle.whenIdle(() => handle.apply("k", streamed(1, message(1).content.length, " late"), { coalesce: true }),
    { writes: true });
  await saving;
  assert.equal(doc.model.dirty, true);
});

test("a task queued for idle time that does not write leaves the notebook clean", async () => {
  const { doc, handle } = await chatOf(10);
  await doc.context.save();
  handle.whenIdle(() => {});
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(doc.model.dirty, false);
});

test("tasks queued for idle time run later, once, in the order they were queued, whichever view queued them", async () => {
  const { handle } = await chatOf(1);
  const other = await connectNotebook({}, viewElement());
  const ran = [];
  handle.whenIdle(() => ran.push(1));
  other.whenIdle(() => ran.push(2));
  handle.whenIdle(() => ran.push(3));
  assert.deepEqual(ran, []);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(ran, [1, 2, 3]);
});

test("a queued task that throws does not keep the ones after it from running", async () => {
  const { handle } = await chatOf(1);
  const ran = [];
  const warn = console.warn;
  console.warn = () => {};
  try {
    handle.whenIdle(() => { throw new Error("broken"); });
    handle.whenIdle(() => ran.push("after"));
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(ran, ["after"]);
});

test("a streamed write reaches the notebook model by itself after FLUSH_AFTER_MS", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { doc, handle } = await chatOf(10);
  await handle.apply("k", streamed(1, message(1).content.length, "!"), { coalesce: true });
  t.mock.timers.tick(FLUSH_AFTER_MS - 1);
  assert.equal(doc.calls.setMetadata, 0);
  t.mock.timers.tick(1);
  assert.equal(doc.calls.setMetadata, 1);
  assert.equal(doc.shared.getMetadata("notebook_chat").conversations.k.revision, "r-2");
});

test("a change of the section from elsewhere drops the page's copy: a patch for the old revision is refused", async () => {
  const { doc, handle } = await chatOf(10);
  await handle.apply("k", streamed(1, message(1).content.length, "x"), { coalesce: false });
  doc.shared.setMetadata("notebook_chat", { version: 2, conversations: { k: entryOf(3, "elsewhere") } });
  assert.throws(() => handle.apply("k", streamed(2, message(1).content.length + 1, "y"), { coalesce: true }), StaleCopy);
  assert.equal(handle.read("k").revision, "elsewhere");
});

test("two chats of one notebook keep each other's writes (one copy per notebook, shared by its views)", async () => {
  const { doc, handle } = await chatOf(10);
  const other = await connectNotebook({}, viewElement());
  await other.apply("j", { revision: "j-1", base: null, ops: [{ op: "set", path: [], value: entryOf(2, "") }] });
  await handle.apply("k", streamed(1, message(1).content.length, "k"), { coalesce: true });
  await other.apply("j", { revision: "j-2", base: "j-1", ops: [{ op: "set", path: ["active"], value: "c1" }] });
  const stored = doc.shared.getMetadata("notebook_chat").conversations;
  assert.deepEqual([stored.k.revision, stored.j.revision], ["r-2", "j-2"]);
});

// -- one writer -------------------------------------------------------------------------------------------------

test("of two views of one chat in one notebook the first writes; when it goes, the other does", async () => {
  await chatOf(1);
  const first = await connectNotebook({}, viewElement());
  const second = await connectNotebook({}, viewElement());
  let promoted = 0;
  const a = first.claimWriter("w1", () => {});
  const b = second.claimWriter("w1", () => { promoted += 1; });
  assert.deepEqual([a.writer(), b.writer()], [true, false]);
  a.release();
  assert.deepEqual([b.writer(), promoted], [true, 1]);
});

test("views of two different chat widgets in one notebook each write", async () => {
  const { handle } = await chatOf(1);
  assert.deepEqual([handle.claimWriter("w1", () => {}).writer(), handle.claimWriter("w2", () => {}).writer()],
    [true, true]);
});

test("a notebook owns a chat when it holds the cell that made it, or the chat came from no cell", async () => {
  const { handle } = await chatOf(1, { cellIds: ["cell-a", "cell-b"] });
  assert.equal(handle.owns("k", "a-cell-of-another-notebook"), false); // its own chat "k" is not the visitor's
  assert.equal(handle.owns("new", "cell-b"), true);
  assert.equal(handle.owns("new", ""), true);
  assert.equal(handle.owns("new", "a-cell-of-another-notebook"), false);
});

test("the view that takes over skips a write its predecessor already applied", async () => {
  const { doc, handle } = await chatOf(10);
  const write = streamed(1, message(1).content.length, "once");
  await handle.apply("k", write, { coalesce: false });
  assert.equal(await handle.apply("k", write, { coalesce: false }), "r-2");
  assert.equal(doc.shared.getMetadata("notebook_chat").conversations.k.items.c1.messages[1].content,
    message(1).content + "once");
});

// -- in place, all or nothing -------------------------------------------------------------------------------------

const FITTING = {
  "set a new key": { op: "set", path: ["items", "c1", "title"], value: "T" },
  "set an existing key": { op: "set", path: ["active"], value: "c2" },
  "append to a list": { op: "set", path: ["items", "c1", "messages", 2], value: message(9) },
  "delete a key": { op: "delete", path: ["items", "c1", "version"] },
  "splice": { op: "splice", path: ["items", "c1", "messages"], start: 0, delete: 1, insert: [message(7), message(8)] },
  "append text": { op: "append", path: ["items", "c1", "messages", 1, "content"], at: message(1).content.length, text: "+" },
};
const NOT_FITTING = {
  "append at the wrong length": { op: "append", path: ["items", "c1", "messages", 0, "content"], at: 1, text: "x" },
  "a missing path": { op: "set", path: ["items", "nope", "title"], value: "x" },
  "a splice out of range": { op: "splice", path: ["items", "c1", "messages"], start: 5, delete: 9, insert: [] },
  "delete of a missing key": { op: "delete", path: ["items", "c1", "missing"] },
  "an unknown op": { op: "explode", path: ["items"] },
};

test("a write whose later op does not fit leaves the entry exactly as it was, whatever the earlier ops changed", () => {
  for (const [done, fitting] of Object.entries(FITTING)) {
    for (const [failed, bad] of Object.entries(NOT_FITTING)) {
      const entry = entryOf(2);
      const before = structuredClone(entry);
      assert.throws(() => applyWriteInPlace(entry, { revision: "r-2", base: "r-1", ops: [fitting, bad] }),
        PatchMismatch, `${done} then ${failed}`);
      assert.deepEqual(entry, before, `${done} then ${failed}`);
    }
  }
});

test("a write that fits changes the entry in place and stamps its revision", () => {
  const entry = entryOf(2);
  const same = applyWriteInPlace(entry, { revision: "r-2", base: "r-1", ops: Object.values(FITTING) });
  assert.equal(same, entry);
  assert.equal(entry.revision, "r-2");
  assert.equal(entry.items.c1.title, "T");
});
