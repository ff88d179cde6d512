// The stored conversation goes to the kernel in `ready`. A long one is megabytes of JSON, mostly repeated structure
// (7.6 MB for 3,000 messages with tool results): sent as is, the page stringifies, encodes and sends it in one long
// task and the kernel connection takes ~0.3 s to carry it; gzip-compressed in the message's binary buffer it is ~1-3 %
// of that (CompressionStream). Its JSON is made, encoded and compressed a slice at a time, a task each (in one go it
// took the page ~0.11 s to stringify and ~0.05 s to encode, tasks that froze the page while the chat first showed). The kernel unpacks it (notebook_chat/widget/
// chat_widget.py: `record_gzip`). A short record, or a browser without CompressionStream, sends it as JSON.

/** Records whose JSON (UTF-8 bytes) is shorter than this go as they are. */
export const PACK_ABOVE = 64 * 1024;
/** Milliseconds of stringifying per task (then the slice is encoded as UTF-8 in the same task). */
export const SLICE_MS = 8;
/** Bytes of JSON compressed per task. */
const COMPRESS_BYTES = 256 * 1024;
/** Containers this deep in the record (its messages: entry → items → record → messages → a message) are
 * stringified whole, one piece each; those above them are walked, so a slice can end between their parts. */
const WHOLE_BELOW = 4;
/** Times the record is read again when it changed while its slices were made, before it is stringified in one go. */
const RETRIES = 2;

/**
 * The record `read` gives, as gzip-compressed UTF-8 JSON; null when it goes as it is (short, none, or no
 * CompressionStream): the caller copies it then. A record that changed while its slices were made (`read` gives
 * another object, or the same one at another `revision`: a write applied to it) is read again, so what is packed is
 * one version of it.
 * @param {() => unknown} read the record, as the page holds it now (not a copy)
 * @param {{sliceMs?: number, yieldTask?: () => Promise<void>}} [options]
 * @returns {Promise<ArrayBuffer|null>}
 */
export async function packRecord(read, { sliceMs = SLICE_MS, yieldTask = nextTask } = {}) {
  if (typeof CompressionStream !== "function") return null;
  const encoder = new TextEncoder();
  /** @type {Uint8Array[] | null} */
  let chunks = null;
  for (let attempt = 0; chunks === null; attempt += 1) {
    const record = read();
    if (record === null || record === undefined) return null;
    if (attempt > RETRIES) {
      chunks = [encoder.encode(JSON.stringify(record))];
      break;
    }
    const revision = revisionOf(record);
    const made = await jsonInSlices(record, sliceMs, yieldTask, (slice) => encoder.encode(slice));
    if (read() === record && revisionOf(record) === revision) chunks = made;
  }
  if (chunks.reduce((size, chunk) => size + chunk.length, 0) < PACK_ABOVE) return null;
  return compressed(chunks, yieldTask);
}

/**
 * `chunks` gzip-compressed, COMPRESS_BYTES at a time, a task each (the compressor works on the page's thread: 7 MB
 * at once was a task of ~60 ms). @param {Uint8Array[]} chunks @param {() => Promise<void>} yieldTask
 * @returns {Promise<ArrayBuffer>}
 */
async function compressed(chunks, yieldTask) {
  const compressor = new CompressionStream("gzip");
  const result = new Response(compressor.readable).arrayBuffer();
  const writer = compressor.writable.getWriter();
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += COMPRESS_BYTES) {
      await writer.write(chunk.subarray(at, at + COMPRESS_BYTES));
      await yieldTask();
    }
  }
  await writer.close();
  return result;
}

/**
 * JSON.stringify(value), made in slices of about `sliceMs` milliseconds with `yieldTask` awaited between them; each
 * slice is given to `finish` in its own task (as UTF-8, say: the encoding of megabytes at once was a long task too).
 * @template [T=string]
 * @param {unknown} value @param {number} sliceMs @param {() => Promise<void>} yieldTask
 * @param {(slice: string) => T} [finish]
 * @returns {Promise<T[]>} the JSON, in slices
 */
export async function jsonInSlices(value, sliceMs, yieldTask, finish = (slice) => /** @type {any} */ (slice)) {
  /** @type {T[]} */
  const slices = [];
  let pieces = [];
  let started = performance.now();
  for (const piece of jsonPieces(value, 0)) {
    pieces.push(piece);
    if (performance.now() - started < sliceMs) continue;
    slices.push(finish(pieces.join("")));
    pieces = [];
    await yieldTask();
    started = performance.now();
  }
  slices.push(finish(pieces.join("")));
  return slices;
}

/**
 * The pieces of JSON.stringify(value), in order: containers above WHOLE_BELOW are walked (what JSON.stringify leaves
 * out of an object, or writes as null in an array, the same), the rest stringified whole.
 * @param {unknown} value @param {number} depth @returns {Generator<string>}
 */
function* jsonPieces(value, depth) {
  const walked = depth < WHOLE_BELOW && typeof value === "object" && value !== null
    && typeof (/** @type {any} */ (value).toJSON) !== "function";
  if (!walked) {
    yield /** @type {string} */ (JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) yield ",";
      if (omitted(value[i])) yield "null";
      else yield* jsonPieces(value[i], depth + 1);
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const [key, item] of Object.entries(/** @type {object} */ (value))) {
    if (omitted(item)) continue;
    yield `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonPieces(item, depth + 1);
  }
  yield "}";
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). @param {unknown} value */
function omitted(value) {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** @param {unknown} record */
function revisionOf(record) {
  return typeof record === "object" && record !== null ? /** @type {any} */ (record).revision : undefined;
}

/** A promise resolved in a later task (the page may draw and handle input first); not clamped as nested timers are. */
function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve(undefined);
    };
    channel.port2.postMessage(null);
  });
}
