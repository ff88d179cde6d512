// How blocks put in without their layout are laid out a budget at a time (src/unlaid_blocks.js). A page of stand-in
// blocks whose layout costs a known, real time (a busy wait when their layout is read) stands for the browser.
// Run: cd js/widget && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { UnlaidBlocks } from "../src/unlaid_blocks.js";

/** Blocks that cost `ms` each to lay out, all laid out (what is dirty) when any block's layout is read. */
function page(count, ms) {
  const state = { dirty: 0, laidOut: 0 };
  const layout = () => {
    const until = performance.now() + state.dirty * ms;
    while (performance.now() < until);
    state.laidOut += state.dirty;
    state.dirty = 0;
  };
  const blocks = Array.from({ length: count }, () => {
    const classes = new Set();
    return {
      classList: {
        add: (name) => classes.add(name),
        remove: (name) => classes.delete(name) && (state.dirty += 1),
        get length() { return classes.size; },
      },
      removeAttribute() {},
      get offsetHeight() { layout(); return 20; },
    };
  });
  const list = { addEventListener() {}, removeEventListener() {} };
  return { state, blocks, list };
}

/** Reveal with `budget` until none is left: each call's time (ms) and the blocks it laid out. */
function revealAll(unlaid, state, budget) {
  const calls = [];
  while (unlaid.pending) {
    const before = state.laidOut;
    const started = performance.now();
    unlaid.reveal(budget);
    calls.push({ ms: performance.now() - started, blocks: state.laidOut - before });
  }
  return calls;
}

test("blocks that cost far more than a paragraph to lay out (math) are laid out within the budget from the first call",
  () => {
    const { state, blocks, list } = page(600, 0.5);
    const unlaid = new UnlaidBlocks(() => true, () => {});
    unlaid.add(blocks, list);
    const calls = revealAll(unlaid, state, 40);
    assert.equal(state.laidOut, 600);
    for (const call of calls) assert.ok(call.ms <= 40 * 1.5, JSON.stringify(calls));
  });

test("cheap blocks are laid out in large batches once their cost is known, not a few at a time", () => {
  const { state, blocks, list } = page(3000, 0.01);
  const unlaid = new UnlaidBlocks(() => true, () => {});
  unlaid.add(blocks, list);
  const calls = revealAll(unlaid, state, 40);
  assert.equal(state.laidOut, 3000);
  assert.ok(calls.length <= 3, JSON.stringify(calls)); // a first small batch tells the cost; then the rest
});
