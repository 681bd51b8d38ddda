// The board's layout time, as the table page lays it: every board of random
// hands, each laid from the one before it (layoutBoard's `previous`), in the
// page's phone and desktop boxes.  Run by bench_layout.py:
//   node layout_times.mjs HANDS LAYOUT.js [BEFORE.js]
// prints one JSON line per preset's pips and box, with the times of each
// layout module given (both timed in the same run, board by board) and, with
// two, on how many boards their layouts differ.

import { pathToFileURL } from "node:url";
import { random, randomHand, MODES } from "../client/boards.mjs";
import { PHONE, DESKTOP } from "../client/layout-checks.mjs";

const [hands, ...modules] = process.argv.slice(2);
const layouts = await Promise.all(modules.map((path) => import(pathToFileURL(path).href)));
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

for (const maxPip of [6, 9]) {
  for (const [box, size] of [["phone", PHONE], ["desktop", DESKTOP]]) {
    const times = layouts.map(() => []);
    let boards = 0;
    let differ = 0;
    for (const mode of MODES) {
      const next = random(7 + maxPip);
      for (let hand = 0; hand < Number(hands); hand++) {
        const previous = layouts.map(() => null);
        for (const board of randomHand(next, { maxPip, mode })) {
          boards += 1;
          // Each board's first turn alternates, so that a collection the one
          // left behind falls on either as often.
          const order = layouts.map((_, i) => i);
          if (boards % 2) order.reverse();
          for (const i of order) {
            const start = performance.now();
            previous[i] = layouts[i].layoutBoard(board, { ...size, previous: previous[i] });
            times[i].push(performance.now() - start);
          }
          if (layouts.length > 1 && JSON.stringify(previous[0]) !== JSON.stringify(previous[1])) differ += 1;
        }
      }
    }
    console.log(JSON.stringify({
      pips: maxPip, box, boards, differ,
      modules: times.map((xs) => ({ median: percentile(xs, 0.5), p95: percentile(xs, 0.95), max: Math.max(...xs) })),
    }));
  }
}
