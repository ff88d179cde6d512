// The stored conversation goes to the kernel in `ready`. A long one is megabytes of JSON, mostly repeated structure
// (7.6 MB for 3,000 messages with tool results): sent as is, the page stringifies, encodes and sends it in one long
// task and the kernel connection takes ~0.3 s to carry it; gzip-compressed in the message's binary buffer it is ~1-3 %
// of that, compressed off the main thread (CompressionStream). The kernel unpacks it (notebook_chat/widget/
// chat_widget.py: `record_gzip`). A short record, or a browser without CompressionStream, sends it as JSON.

/** Records whose JSON is shorter than this go as they are. */
export const PACK_ABOVE = 64 * 1024;

/**
 * The record as gzip-compressed UTF-8 JSON (a promise), or null at once when it goes as it is (short, null, or no
 * CompressionStream). The record is read now, synchronously: a later change to it does not reach the result.
 * @param {unknown} record @returns {Promise<ArrayBuffer>|null}
 */
export function packRecord(record) {
  if (record === null || record === undefined || typeof CompressionStream !== "function") return null;
  const text = JSON.stringify(record);
  if (text.length < PACK_ABOVE) return null;
  const packed = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Response(packed).arrayBuffer();
}
