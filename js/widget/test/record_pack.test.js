// A long stored record goes to the kernel gzip-compressed, its JSON made a slice at a time (src/record_pack.js).
// Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { PACK_ABOVE, jsonInSlices, packRecord } from "../src/record_pack.js";

const record = (count) => ({ active: "main", items: { main: { messages: Array.from({ length: count },
  (_, i) => ({ id: `m${i}`, role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(20) })) } } });
const unpacked = (packed) => JSON.parse(gunzipSync(Buffer.from(packed)).toString("utf8"));

test("a long record is packed as gzip-compressed JSON that unpacks to the same record", async () => {
  const long = record(2000);
  const packed = await packRecord(() => long);
  assert.ok(packed instanceof ArrayBuffer);
  assert.ok(packed.byteLength < JSON.stringify(long).length / 10);
  assert.deepEqual(unpacked(packed), long);
});

test("a short record, or none, goes as it is", async () => {
  assert.ok(JSON.stringify(record(10)).length < PACK_ABOVE);
  assert.equal(await packRecord(() => record(10)), null);
  assert.equal(await packRecord(() => null), null);
});

test("a long record's JSON is made in many tasks, none stringifying it all", async () => {
  const long = record(2000);
  let tasks = 0;
  const slices = await jsonInSlices(long, 0, async () => { tasks += 1; });
  assert.ok(tasks >= 2000, `${tasks} tasks`); // a slice of no time: a message per task at most
  assert.equal(slices.length, tasks + 1);
  assert.ok(Math.max(...slices.map((slice) => slice.length)) < 1000);
  assert.equal(slices.join(""), JSON.stringify(long));
});

test("a write applied to the record while its slices are made: the record is packed as the write left it", async () => {
  const long = { ...record(2000), revision: "r1" };
  let tasks = 0;
  const packed = await packRecord(() => long, { sliceMs: 0, yieldTask: async () => {
    tasks += 1;
    if (tasks === 10) { // a write changes the record in place (patches.js: applyWriteInPlace sets its revision)
      long.items.main.messages.push({ id: "late", role: "user", content: "a late message" });
      long.revision = "r2";
    }
  } });
  const got = unpacked(packed);
  assert.equal(got.revision, "r2");
  assert.equal(got.items.main.messages.length, 2001);
  assert.deepEqual(got, long);
});

test("a record replaced while its slices are made: the new one is packed", async () => {
  let held = record(2000);
  const replacement = { ...record(1500), revision: "new" };
  let tasks = 0;
  const packed = await packRecord(() => held, { sliceMs: 0, yieldTask: async () => {
    tasks += 1;
    if (tasks === 5) held = replacement;
  } });
  assert.deepEqual(unpacked(packed), replacement);
});

test("a record that keeps changing is packed in one go after the retries, as it is then", async () => {
  const long = { ...record(2000), revision: 0 };
  let reads = 0;
  const packed = await packRecord(() => { reads += 1; long.revision += 1; return long; }, { sliceMs: 0 });
  assert.equal(reads, 7); // read and checked thrice, then read for the one go
  assert.deepEqual(unpacked(packed), long);
});

/** Values of every kind JSON.stringify treats apart, nested at every depth (deterministic: a seeded generator). */
function corpus(seed) {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const leaves = [0, -1.5, 1e21, NaN, Infinity, true, false, null, "", "text", "quote \" slash \\ line\n",
    "\u2028\u2029 \ud83d\ude00 中文", "\ud800", undefined, () => 1, Symbol("s"), new Date(0), { toJSON: () => "own" }];
  const make = (depth) => {
    const pick = random();
    if (depth > 6 || pick < 0.4) return leaves[Math.floor(random() * leaves.length)];
    const size = Math.floor(random() * 5);
    if (pick < 0.7) return Array.from({ length: size }, () => make(depth + 1));
    const object = {};
    for (let i = 0; i < size; i += 1) object[random() < 0.2 ? String(i) : `key ${Math.floor(random() * 100)}`] = make(depth + 1);
    return object;
  };
  return make(0);
}

test("the JSON made in slices is JSON.stringify's, whatever the value holds", async () => {
  for (let seed = 1; seed <= 400; seed += 1) {
    const value = corpus(seed);
    const slices = await jsonInSlices(value, 0, async () => {});
    const whole = JSON.stringify(value);
    if (whole === undefined) continue; // a function or symbol at the root: never a stored record
    assert.equal(slices.join(""), whole, `seed ${seed}`);
  }
});
