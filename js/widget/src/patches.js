// Applies the kernel's `persist` writes to the entry a notebook stores under a chat's key: versioned patches
// (docs/widget-protocol.md "Persist writes"; the reference is notebook_chat/persistence/patches.py). A patch that
// does not fit the copy is refused whole (the entry is left as it was) and the kernel sends the whole record.

/** A patch for another revision than the one the copy holds. */
export class StaleCopy extends Error {}

/** A patch whose ops do not fit the copy. */
export class PatchMismatch extends Error {}

/**
 * The entry after one write, a new object (the given entry is not changed); null when the write deletes it.
 * @param {any} entry the stored entry (null/undefined when there is none)
 * @param {{revision: string, base: string|null, ops: any[]}} write
 */
export function applyWrite(entry, write) {
  checkBase(entry, write);
  return applyWriteInPlace(entry === undefined || entry === null ? null : structuredClone(entry), write);
}

/**
 * The entry after one write, changed in place: the work is what the write changed, not the entry's size. Returns
 * the entry (a new object only when the write sets the whole entry; null when it deletes it). A write that is stale
 * or does not fit throws and leaves the entry exactly as it was (each change is undone).
 * @param {any} entry the stored entry (null/undefined when there is none)
 * @param {{revision: string, base: string|null, ops: any[]}} write
 */
export function applyWriteInPlace(entry, write) {
  checkBase(entry, write);
  if (!Array.isArray(write.ops)) throw new PatchMismatch("a write needs a list of ops");
  /** @type {(() => void)[]} */
  const undo = [];
  let doc = entry === undefined ? null : entry;
  try {
    for (const op of write.ops) doc = applyOp(doc, op, undo);
  } catch (err) {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]();
    throw err;
  }
  if (isJsonObject(doc)) doc.revision = write.revision;
  return doc;
}

function checkBase(entry, write) {
  if (write.base !== null && write.base !== undefined) {
    const held = isJsonObject(entry) ? (entry.revision ?? "") : null;
    if (held !== write.base) {
      throw new StaleCopy(`the copy is at revision ${JSON.stringify(held)}, the patch needs ${JSON.stringify(write.base)}`);
    }
  }
}

/**
 * `doc` changed by `ops` in place (the new root is returned); PatchMismatch when an op does not fit (the document may
 * then be partly changed: the caller drops it).
 * @param {any} doc @param {any[]} ops
 */
export function applyOps(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchMismatch("a patch needs a list of ops");
  for (const op of ops) doc = applyOp(doc, op, null);
  return doc;
}

/**
 * @param {any} doc @param {any} op @param {(() => void)[] | null} undo gets, per change, the step that takes it back
 * @returns {any} the new root
 */
function applyOp(doc, op, undo) {
  const path = op?.path;
  if (!Array.isArray(path)) throw new PatchMismatch("an op needs a path list");
  if (path.length === 0) {
    if (op.op === "set") return structuredClone(op.value);
    if (op.op === "delete") return null;
  }
  const parent = walk(doc, path.slice(0, -1));
  const last = path[path.length - 1];
  switch (op.op) {
    case "set":
      setChild(parent, last, structuredClone(op.value), undo);
      break;
    case "delete":
      if (!isJsonObject(parent) || !Object.hasOwn(parent, last)) throw new PatchMismatch(`delete: no ${JSON.stringify(path)}`);
      if (undo) {
        const held = parent[last];
        undo.push(() => { parent[last] = held; });
      }
      delete parent[last];
      break;
    case "splice": {
      const items = child(parent, last, path);
      const { start, delete: count, insert } = op;
      if (!Array.isArray(items) || !Number.isInteger(start) || !Number.isInteger(count) || !Array.isArray(insert) ||
          start < 0 || count < 0 || start + count > items.length) {
        throw new PatchMismatch("splice: does not fit the list");
      }
      const removed = items.splice(start, count, ...structuredClone(insert));
      if (undo) undo.push(() => { items.splice(start, insert.length, ...removed); });
      break;
    }
    case "append": {
      const text = child(parent, last, path);
      if (typeof text !== "string" || text.length !== op.at || typeof op.text !== "string") {
        throw new PatchMismatch(`append: the text at ${JSON.stringify(path)} is not ${op.at} long`);
      }
      setChild(parent, last, text + op.text, undo);
      break;
    }
    default:
      throw new PatchMismatch(`unknown op ${JSON.stringify(op.op)}`);
  }
  return doc;
}

function walk(doc, path) {
  let node = doc;
  for (const step of path) node = child(node, step, path);
  return node;
}

function child(node, step, path) {
  if (isJsonObject(node) && typeof step === "string" && Object.hasOwn(node, step)) return node[step];
  if (Array.isArray(node) && Number.isInteger(step) && step >= 0 && step < node.length) return node[step];
  throw new PatchMismatch(`${JSON.stringify(path)} does not exist`);
}

function setChild(parent, key, value, undo = null) {
  const fits = (isJsonObject(parent) && typeof key === "string") ||
    (Array.isArray(parent) && Number.isInteger(key) && key >= 0 && key <= parent.length);
  if (!fits) throw new PatchMismatch(`set: no place ${JSON.stringify(key)}`);
  if (undo) {
    const had = Array.isArray(parent) ? key < parent.length : Object.hasOwn(parent, key);
    const held = parent[key];
    undo.push(() => {
      if (had) parent[key] = held;
      else if (Array.isArray(parent)) parent.length = key;
      else delete parent[key];
    });
  }
  parent[key] = value;
}

function isJsonObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
