// Which messages of a long conversation the list draws (src/history_window.js). Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ASK_BELOW, FILLED_ABOVE, FILL_BUDGET_MS, FIRST_PAINT, FRAME_BUDGET_MS, HistoryWindow,
} from "../src/history_window.js";

const conversation = (count, prefix = "m") => Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}` }));
const ids = (messages) => messages.map((m) => m.id);
const none = () => false;

test("a conversation arriving into an empty list draws only its latest messages, whatever its length", () => {
  for (const count of [FIRST_PAINT + 1, 100, 1000, 3000]) {
    const window = new HistoryWindow();
    const shown = window.split(conversation(count), none);
    assert.deepEqual(ids(shown), ids(conversation(count)).slice(count - FIRST_PAINT));
    assert.equal(window.remaining, count - FIRST_PAINT);
  }
});

test("a short conversation is drawn whole", () => {
  for (const count of [0, 1, FIRST_PAINT]) {
    const window = new HistoryWindow();
    assert.equal(window.split(conversation(count), none).length, count);
    assert.equal(window.remaining, 0);
  }
});

test("older messages come newest first, a slice at a time, each slice in conversation order, until none wait", () => {
  const window = new HistoryWindow({ firstPaint: 10, slice: 4 });
  const messages = conversation(23);
  const drawn = new Set(ids(window.split(messages, none)));
  const slices = [];
  while (window.remaining) {
    const slice = window.take();
    slices.push(ids(slice));
    for (const m of slice) drawn.add(m.id);
  }
  assert.deepEqual(slices, [["m9", "m10", "m11", "m12"], ["m5", "m6", "m7", "m8"], ["m1", "m2", "m3", "m4"], ["m0"]]);
  assert.equal(drawn.size, 23);
  assert.deepEqual(window.take(), []);
});

test("every message is drawn exactly once and in order, for any slice size and first paint", () => {
  for (const firstPaint of [1, 3, 12]) {
    for (const slice of [1, 2, 5, 8, 50]) {
      for (const count of [0, 1, 7, 40, 301]) {
        const window = new HistoryWindow({ firstPaint, slice });
        let list = ids(window.split(conversation(count), none));
        while (window.remaining) list = [...ids(window.take()), ...list];
        assert.deepEqual(list, ids(conversation(count)), `first ${firstPaint}, slice ${slice}, ${count} messages`);
      }
    }
  }
});

test("a later snapshot keeps drawing from the first drawn message and what is older keeps waiting", () => {
  const window = new HistoryWindow({ firstPaint: 5 });
  const messages = conversation(50);
  const drawn = new Set(ids(window.split(messages, none)));
  for (const m of window.take(3)) drawn.add(m.id);
  const grown = [...messages, { id: "new1" }, { id: "new2" }];
  const shown = window.split(grown, (id) => drawn.has(id));
  assert.deepEqual(ids(shown), [...ids(messages).slice(42), "new1", "new2"]);
  assert.equal(window.remaining, 42);
  assert.deepEqual(ids(window.take(2)), ["m40", "m41"]);
});

test("a snapshot of another conversation (nothing of it drawn) starts from its latest messages again", () => {
  const window = new HistoryWindow({ firstPaint: 5 });
  const drawn = new Set(ids(window.split(conversation(50), none)));
  const other = conversation(30, "o");
  const shown = window.split(other, (id) => drawn.has(id));
  assert.deepEqual(ids(shown), ["o25", "o26", "o27", "o28", "o29"]);
  assert.equal(window.remaining, 25);
});

test("a cleared conversation leaves nothing waiting", () => {
  const window = new HistoryWindow({ firstPaint: 5 });
  window.split(conversation(50), none);
  assert.deepEqual(window.split([], none), []);
  assert.equal(window.remaining, 0);
  assert.equal(window.wantsOlder(0, 500), false);
});

test("older messages are wanted only while some wait and the reader is near the top of what is drawn", () => {
  const window = new HistoryWindow({ firstPaint: 5, nearTop: 1.5 });
  window.split(conversation(50), none);
  assert.equal(window.wantsOlder(0, 600), true);
  assert.equal(window.wantsOlder(899, 600), true);
  assert.equal(window.wantsOlder(900, 600), false);
  assert.equal(window.wantsOlder(0, 0), false); // a list that is not laid out (hidden) draws nothing
  while (window.remaining) window.take();
  assert.equal(window.wantsOlder(0, 600), false);
});

test("a frame may spend the first paint's budget until the list's box is filled, then only a smooth frame's", () => {
  const window = new HistoryWindow();
  const height = 700;
  assert.equal(window.budget(0, height), FILL_BUDGET_MS); // nothing above the view yet: the box is being filled
  assert.equal(window.budget(height * FILLED_ABOVE - 1, height), FILL_BUDGET_MS);
  assert.equal(window.budget(height * FILLED_ABOVE, height), FRAME_BUDGET_MS);
  assert.equal(window.budget(10 * height, height), FRAME_BUDGET_MS);
  assert.ok(FILL_BUDGET_MS < 50 && FRAME_BUDGET_MS < FILL_BUDGET_MS); // neither is near a long task
});

test("a first paint draws the latest message straight away and takes older ones one at a time", () => {
  const window = new HistoryWindow();
  assert.deepEqual(ids(window.split(conversation(1000), none)), ["m999"]);
  assert.deepEqual(ids(window.take()), ["m998"]);
  assert.equal(window.remaining, 998);
});

test("the messages the kernel holds before the window are asked for once few wait undrawn, and not twice", () => {
  const window = new HistoryWindow();
  window.split(conversation(ASK_BELOW + 5), none);
  assert.equal(window.wantsHeld(100, false), false); // enough wait here
  window.take(5);
  assert.equal(window.wantsHeld(100, false), true);
  assert.equal(window.wantsHeld(100, true), false); // asked already: the answer is on its way
  assert.equal(window.wantsHeld(0, false), false); // the kernel holds none: the window is the whole conversation
});
