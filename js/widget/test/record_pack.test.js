// A long stored record goes to the kernel gzip-compressed (src/record_pack.js). Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { PACK_ABOVE, packRecord } from "../src/record_pack.js";

const record = (count) => ({ active: "main", items: { main: { messages: Array.from({ length: count },
  (_, i) => ({ id: `m${i}`, role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(20) })) } } });

test("a long record is packed as gzip-compressed JSON that unpacks to the same record", async () => {
  const long = record(2000);
  const packed = await packRecord(long);
  assert.ok(packed instanceof ArrayBuffer);
  assert.ok(packed.byteLength < JSON.stringify(long).length / 10);
  assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(packed)).toString("utf8")), long);
});

test("a short record, or none, goes as it is", () => {
  assert.ok(JSON.stringify(record(10)).length < PACK_ABOVE);
  assert.equal(packRecord(record(10)), null);
  assert.equal(packRecord(null), null);
});

test("the record is read when packing starts: a later change does not reach the packed text", async () => {
  const long = record(2000);
  const packing = packRecord(long);
  long.items.main.messages.length = 0;
  const packed = await packing;
  assert.ok(packed !== null);
  assert.equal(JSON.parse(gunzipSync(Buffer.from(packed)).toString("utf8")).items.main.messages.length, 2000);
});
