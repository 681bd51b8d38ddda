// The board's geometry over many random double-six hands of every kind of board
// (no spinner, the first double, every double): every board of every hand is
// laid in the boxes the pages use and must keep every rule of
// layout-checks.mjs.  A file of its own so that node's test shards (and
// pytest's workers, tests/client/test_node.py) run the long sweeps side by side.

import { test } from "node:test";
import assert from "node:assert/strict";

import { MODES } from "./boards.mjs";
import { PHONE, DESKTOP, SMALL, checkHands } from "./layout-checks.mjs";

for (const mode of MODES) {
  test(`double-six, ${mode}: every board of 40 random hands on a phone, a desktop and a small box`, () => {
    const { layouts, openEnds, targets } = checkHands({ mode, maxPip: 6, hands: 40, seed: 6, boxes: [PHONE, DESKTOP, SMALL] });
    assert.ok(layouts > 40 * 3 * 10, `only ${layouts} layouts`);
    // Targets for nearly every open end (an empty side of a spinner of
    // every double may go without: its button plays there).
    const share = mode === "every-double" ? 0.85 : 1;
    assert.ok(targets >= share * openEnds, `${targets} targets for ${openEnds} open ends`);
  });
}
