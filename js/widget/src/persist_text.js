// A `persist` write may name streamed text the view already holds instead of carrying it again (the reply's deltas
// brought it; notebook_chat/widget/persist_text.py is the reference and describes the ops): `append_view` and
// `set_view` become plain `append` and `set` ops the moment the write arrives, from the view copy's text, before the
// write is queued behind earlier ones (later deltas may grow the copy meanwhile). Text the copy does not hold exactly
// makes the write fail as a PatchMismatch: the browser answers "stale" and the kernel sends the whole record.

import { PatchMismatch } from "./patches.js";

const FIELDS = new Set(["content", "reasoning_content"]);

/**
 * The write with its view references resolved (the same object when it has none).
 * @param {any} write a `persist` message @param {(id: string, field: string) => string|null} textOf the view's text
 * @returns {any}
 */
export function resolveViewText(write, textOf) {
  const ops = write?.ops;
  if (!Array.isArray(ops) || !ops.some((op) => op?.op === "append_view" || op?.op === "set_view")) return write;
  return { ...write, ops: ops.map((op) => resolved(op, textOf)) };
}

/** @param {any} op @param {(id: string, field: string) => string|null} textOf */
function resolved(op, textOf) {
  if (op?.op !== "append_view" && op?.op !== "set_view") return op;
  const { id, field, end } = op;
  const held = typeof id === "string" && FIELDS.has(field) ? textOf(id, field) : null;
  if (typeof held !== "string" || !Number.isInteger(end) || held.length !== end) {
    throw new PatchMismatch(`the view does not hold ${end} characters of ${field} of ${id}`);
  }
  if (op.op === "set_view") return { op: "set", path: op.path, value: held };
  if (!Number.isInteger(op.at) || op.at < 0 || op.at > end) throw new PatchMismatch("append_view: bad offset");
  return { op: "append", path: op.path, at: op.at, text: held.slice(op.at) };
}
