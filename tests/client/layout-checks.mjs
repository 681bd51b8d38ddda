// What a good layout of a board is (services/muggins/client/static/layout.js),
// checked by the layout's node tests (layout*.test.mjs): the boxes the pages
// lay boards in, and every rule a layout must keep.

import assert from "node:assert/strict";

import { layoutBoard } from "../../services/muggins/client/static/layout.js";
import { random, randomHand } from "./boards.mjs";

// The table's board on a phone (390x844) and on a desktop (1280x800), as
// table.js asks for it (tiles of 26 px at least: their faces 24), and the
// final board of a hand's result (which may shrink below that).
export const PHONE = { width: 358, height: 344, minTile: 26, maxTile: 44 };
export const DESKTOP = { width: 848, height: 355, minTile: 26, maxTile: 44 };
export const SMALL = { width: 330, height: 220, minTile: 8, maxTile: 36 };

export const EPSILON = 1e-6;

export const overlap = (a, b) => a.x < b.x + b.width - EPSILON && b.x < a.x + a.width - EPSILON
  && a.y < b.y + b.height - EPSILON && b.y < a.y + a.height - EPSILON;

export const within = (r, width, height) => r.x >= -EPSILON && r.y >= -EPSILON
  && r.x + r.width <= width + EPSILON && r.y + r.height <= height + EPSILON;

// A tile's two halves as unit squares, each with the number it shows.
export function halves(placed) {
  const [first, second] = placed.tile;
  const { x, y, width, height } = placed;
  if (width >= height) {
    return [{ x, y, width: width / 2, height, n: first }, { x: x + width / 2, y, width: width / 2, height, n: second }];
  }
  return [{ x, y, width, height: height / 2, n: first }, { x, y: y + height / 2, width, height: height / 2, n: second }];
}

// The edge two rectangles share: its length, and whether it is a
// horizontal line ("y": one above the other) or a vertical one ("x"); null
// when they only meet at a corner or not at all.
export function shared(a, b) {
  const xs = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const ys = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const touchX = Math.abs(a.x + a.width - b.x) < EPSILON || Math.abs(b.x + b.width - a.x) < EPSILON;
  const touchY = Math.abs(a.y + a.height - b.y) < EPSILON || Math.abs(b.y + b.height - a.y) < EPSILON;
  if (touchX && ys > EPSILON) return { length: ys, axis: "x" };
  if (touchY && xs > EPSILON) return { length: xs, axis: "y" };
  return null;
}

// The axis of a rectangle's long sides' lines ("y": it lies flat).
export const longSides = (r) => (r.width > r.height ? "y" : "x");

export const onEdge = (point, r) => {
  const [px, py] = point;
  const inX = px >= r.x - EPSILON && px <= r.x + r.width + EPSILON;
  const inY = py >= r.y - EPSILON && py <= r.y + r.height + EPSILON;
  return (inX && inY) && (Math.abs(px - r.x) < EPSILON || Math.abs(px - r.x - r.width) < EPSILON
    || Math.abs(py - r.y) < EPSILON || Math.abs(py - r.y - r.height) < EPSILON);
};

// Everything wrong with one layout, in words (empty: nothing).
export function problems(board, g, box) {
  const found = [];
  const tileCount = 1 + board.arms.reduce((sum, arm) => sum + arm.tiles.length, 0);
  if (g.tiles.length !== tileCount) found.push(`${g.tiles.length} tiles drawn of ${tileCount}`);
  if (g.unit < box.minTile - EPSILON) found.push(`a tile's shorter side is ${g.unit} px, under ${box.minTile}`);
  if (g.unit > box.maxTile + EPSILON) found.push(`a tile's shorter side is ${g.unit} px, over ${box.maxTile}`);
  const boxW = box.width / g.unit;
  const boxH = box.height / g.unit;
  if (g.width < boxW - EPSILON || g.height < boxH - EPSILON) found.push("the drawing is smaller than the box");
  if (!g.overflow && (Math.abs(g.width - boxW) > EPSILON || Math.abs(g.height - boxH) > EPSILON)) {
    found.push("the drawing is bigger than the box without saying so (overflow)");
  }
  const byPlace = new Map(g.tiles.map((t) => [`${t.arm}/${t.index}`, t]));
  for (const t of g.tiles) {
    if (!within(t, g.width, g.height)) found.push(`tile ${t.tile} (arm ${t.arm}) is outside the drawing`);
    const long = Math.max(t.width, t.height);
    const short = Math.min(t.width, t.height);
    if (Math.abs(long - 2) > EPSILON || Math.abs(short - 1) > EPSILON) found.push(`tile ${t.tile} is not 2 x 1`);
  }
  for (let i = 0; i < g.tiles.length; i++) {
    for (let j = i + 1; j < g.tiles.length; j++) {
      if (overlap(g.tiles[i], g.tiles[j])) found.push(`tiles ${g.tiles[i].tile} and ${g.tiles[j].tile} overlap`);
    }
  }
  // Each tile is joined to the one before it on its arm (or to its root),
  // its inner half against a half that shows the same number.
  const places = board.spinner_places || [];
  const rootOf = (arm) => {
    if (arm === 0 || arm === 1) return byPlace.get("-1/0");
    const place = places.find((p) => p.short_arms.includes(arm));
    return place.arm === -1 ? byPlace.get("-1/0") : byPlace.get(`${place.arm}/${place.position}`);
  };
  board.arms.forEach((arm, armNumber) => {
    arm.tiles.forEach(([inner], index) => {
      const t = byPlace.get(`${armNumber}/${index}`);
      const before = index === 0 ? rootOf(armNumber) : byPlace.get(`${armNumber}/${index - 1}`);
      if (!t || !before) {
        found.push(`arm ${armNumber} tile ${index} or the tile before it is missing`);
        return;
      }
      const own = halves(t).filter((h) => h.n === inner);
      if (t.link) {
        // Started further out along its line: the link runs from the root's edge to the tile's.
        const start = [t.link.x1, t.link.y1];
        const end = [t.link.x2, t.link.y2];
        if (!onEdge(start, before) || !own.some((h) => onEdge(end, h))) {
          found.push(`arm ${armNumber} tile ${index}'s link does not join it to its root`);
        }
        return;
      }
      const theirs = halves(before).filter((h) => h.n === inner);
      if (!own.some((a) => theirs.some((b) => shared(a, b)))) {
        found.push(`arm ${armNumber} tile ${index} (${t.tile}) is not joined to the ${before.tile} before it`);
      }
      // A double lies across its line: its long side against the tile before.
      const edge = shared(t, before);
      if (t.tile[0] === t.tile[1] && edge && edge.axis !== longSides(t)) {
        found.push(`double ${t.tile} on arm ${armNumber} is not across`);
      }
    });
  });
  // A spinner's short arms start at its ends (its short sides).
  for (const place of places) {
    const spinner = place.arm === -1 ? byPlace.get("-1/0") : byPlace.get(`${place.arm}/${place.position}`);
    for (const arm of place.short_arms) {
      const first = byPlace.get(`${arm}/0`);
      if (!first || first.link) continue;
      const edge = shared(first, spinner);
      if (!edge || edge.axis === longSides(spinner)) {
        found.push(`arm ${arm} does not start at an end of its spinner ${spinner.tile}`);
      }
    }
  }
  // The targets: beside their ends, off every tile and off each other, inside the drawing.
  const ends = Object.values(g.ends);
  for (const end of ends) {
    const arm = board.arms[end.arm];
    if (!arm || arm.open === null) found.push(`a target for arm ${end.arm}, which is not open`);
    for (const area of [end.place, end.target]) {
      if (!within(area, g.width, g.height)) found.push(`arm ${end.arm}'s target is outside the drawing`);
      for (const t of g.tiles) if (overlap(area, t)) found.push(`arm ${end.arm}'s target covers tile ${t.tile}`);
    }
  }
  for (let i = 0; i < ends.length; i++) {
    for (let j = i + 1; j < ends.length; j++) {
      if (overlap(ends[i].target, ends[j].target)) found.push(`the targets of arms ${ends[i].arm} and ${ends[j].arm} overlap`);
    }
  }
  return found;
}

export function checkHands({ mode, maxPip, hands, seed, boxes }) {
  const next = random(seed);
  let layouts = 0;
  const counts = { openEnds: 0, targets: 0 };
  for (let hand = 0; hand < hands; hand++) {
    for (const board of randomHand(next, { maxPip, mode })) {
      for (const box of boxes) {
        const g = layoutBoard(board, box);
        const wrong = problems(board, g, box);
        assert.deepEqual(wrong, [], `${mode} double-${maxPip}, box ${JSON.stringify(box)}:\n${JSON.stringify(board)}`);
        counts.openEnds += board.arms.filter((arm) => arm.open !== null).length;
        counts.targets += Object.keys(g.ends).length;
        layouts += 1;
      }
    }
  }
  return { layouts, ...counts };
}
