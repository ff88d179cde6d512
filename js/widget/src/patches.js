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
  if (write.base !== null && write.base !== undefined) {
    const held = isJsonObject(entry) ? (entry.revision ?? "") : null;
    if (held !== write.base) {
      throw new StaleCopy(`the copy is at revision ${JSON.stringify(held)}, the patch needs ${JSON.stringify(write.base)}`);
    }
  }
  if (!Array.isArray(write.ops)) throw new PatchMismatch("a write needs a list of ops");
  let doc = entry === undefined ? null : structuredClone(entry);
  for (const op of write.ops) doc = applyOp(doc, op);
  if (isJsonObject(doc)) doc.revision = write.revision;
  return doc;
}

/**
 * `doc` changed by `ops` in place (the new root is returned); PatchMismatch when an op does not fit (the document may
 * then be partly changed: the caller drops it).
 * @param {any} doc @param {any[]} ops
 */
export function applyOps(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchMismatch("a patch needs a list of ops");
  for (const op of ops) doc = applyOp(doc, op);
  return doc;
}

/** @param {any} doc @param {any} op @returns {any} the new root */
function applyOp(doc, op) {
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
      setChild(parent, last, structuredClone(op.value));
      break;
    case "delete":
      if (!isJsonObject(parent) || !Object.hasOwn(parent, last)) throw new PatchMismatch(`delete: no ${JSON.stringify(path)}`);
      delete parent[last];
      break;
    case "splice": {
      const items = child(parent, last, path);
      const { start, delete: count, insert } = op;
      if (!Array.isArray(items) || !Number.isInteger(start) || !Number.isInteger(count) || !Array.isArray(insert) ||
          start < 0 || count < 0 || start + count > items.length) {
        throw new PatchMismatch("splice: does not fit the list");
      }
      items.splice(start, count, ...structuredClone(insert));
      break;
    }
    case "append": {
      const text = child(parent, last, path);
      if (typeof text !== "string" || text.length !== op.at || typeof op.text !== "string") {
        throw new PatchMismatch(`append: the text at ${JSON.stringify(path)} is not ${op.at} long`);
      }
      setChild(parent, last, text + op.text);
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

function setChild(parent, key, value) {
  if (isJsonObject(parent) && typeof key === "string") parent[key] = value;
  else if (Array.isArray(parent) && Number.isInteger(key) && key >= 0 && key <= parent.length) parent[key] = value;
  else throw new PatchMismatch(`set: no place ${JSON.stringify(key)}`);
}

function isJsonObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
