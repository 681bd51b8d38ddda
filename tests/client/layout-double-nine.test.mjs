// The board's geometry over many random double-nine hands of every kind of board
// (no spinner, the first double, every double): every board of every hand is
// laid in the boxes the pages use and must keep every rule of
// layout-checks.mjs.  A file of its own so that node's test shards (and
// pytest's workers, tests/client/test_node.py) run the long sweeps side by side.

import { test } from "node:test";
import assert from "node:assert/strict";

import { MODES } from "./boards.mjs";
import { PHONE, DESKTOP, checkHands } from "./layout-checks.mjs";

for (const mode of MODES) {
  test(`double-nine, ${mode}: every board of 8 random hands on a phone and a desktop`, () => {
    const { layouts } = checkHands({ mode, maxPip: 9, hands: 8, seed: 9, boxes: [PHONE, DESKTOP] });
    assert.ok(layouts > 8 * 2 * 20, `only ${layouts} layouts`);
  });
}
