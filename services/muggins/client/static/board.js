// Domino tiles and the board, drawn as SVG from the geometry layout.js
// works out (where every tile goes, in world units: half a tile is 1 x 1).
//
// drawBoard measures the box it draws in, asks layout.js for the biggest
// tiles that fit (never under `minTile` CSS px: past that the drawing grows
// taller than its frame, which scrolls to the last move and the chosen end),
// and draws: the tiles, the last one highlighted, and for a tile that fits
// more than one end a target beside each of those ends (never over a tile),
// the tile shown where it would go.  It draws again when its box changes
// size.

import { tileText } from "./i18n.js";
import { DEFAULT_MAX_TILE, layoutBoard } from "./layout.js";

const SVG = "http://www.w3.org/2000/svg";

function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

const P = { a: 0.25, b: 0.5, c: 0.75 };
const PIPS = {
  0: [],
  1: [[P.b, P.b]],
  2: [[P.a, P.a], [P.c, P.c]],
  3: [[P.a, P.a], [P.b, P.b], [P.c, P.c]],
  4: [[P.a, P.a], [P.c, P.a], [P.a, P.c], [P.c, P.c]],
  5: [[P.a, P.a], [P.c, P.a], [P.b, P.b], [P.a, P.c], [P.c, P.c]],
  6: [[P.a, P.a], [P.a, P.b], [P.a, P.c], [P.c, P.a], [P.c, P.b], [P.c, P.c]],
  7: [[P.a, P.a], [P.a, P.b], [P.a, P.c], [P.b, P.b], [P.c, P.a], [P.c, P.b], [P.c, P.c]],
  8: [[P.a, P.a], [P.a, P.b], [P.a, P.c], [P.b, P.a], [P.b, P.c], [P.c, P.a], [P.c, P.b], [P.c, P.c]],
  9: [[P.a, P.a], [P.a, P.b], [P.a, P.c], [P.b, P.a], [P.b, P.b], [P.b, P.c], [P.c, P.a], [P.c, P.b], [P.c, P.c]],
};

// One half: pips (or a numeral above 9) in the unit square at (x, y).
function half(group, number, x, y) {
  const pips = PIPS[number];
  if (pips === undefined) {
    const text = svgElement("text", { x: x + 0.5, y: y + 0.68, "text-anchor": "middle", "font-size": 0.5, class: "numeral" });
    text.textContent = String(number);
    group.append(text);
    return;
  }
  for (const [px, py] of pips) group.append(svgElement("circle", { cx: x + px, cy: y + py, r: 0.085, class: "pip" }));
}

// A tile in a rectangle: `first` on the left (or top), `second` on the right (or bottom).
export function drawTile(parent, first, second, x, y, width, height, extra = {}) {
  const group = svgElement("g", { class: "tile", "data-tile": `${Math.min(first, second)}-${Math.max(first, second)}`, ...extra });
  group.append(svgElement("rect", { x: x + 0.03, y: y + 0.03, width: width - 0.06, height: height - 0.06, rx: 0.12, class: "face" }));
  if (width >= height) {
    group.append(svgElement("line", { x1: x + width / 2, y1: y + 0.12, x2: x + width / 2, y2: y + height - 0.12, class: "divider" }));
    half(group, first, x, y);
    half(group, second, x + width / 2, y);
  } else {
    group.append(svgElement("line", { x1: x + 0.12, y1: y + height / 2, x2: x + width - 0.12, y2: y + height / 2, class: "divider" }));
    half(group, first, x, y);
    half(group, second, x, y + height / 2);
  }
  parent.append(group);
  return group;
}

// A stand-alone upright tile (for a hand): an <svg> element, named as
// players say the tile ("6-1", as every page names it) unless `label` says otherwise.
export function tileSvg(tile, label = tileText(tile)) {
  const svg = svgElement("svg", { viewBox: "0 0 1 2", class: "tile-svg", role: "img", "aria-label": label });
  drawTile(svg, tile[0], tile[1], 0, 0, 1, 2);
  return svg;
}

// What each board was last drawn with, to draw it again when its box changes
// size, and the geometry of that box and layout, reused while neither changes.
const drawn = new WeakMap();
const watching = typeof ResizeObserver === "function"
  ? new ResizeObserver((entries) => {
    for (const entry of entries) {
      const svg = entry.target.matches("svg") ? entry.target : entry.target.querySelector(":scope > svg");
      const last = svg && drawn.get(svg);
      if (!last) continue;
      const { width, height } = boxOf(svg, last.options.frame);
      if (width !== last.width || height !== last.height) drawBoard(svg, last.layout, { ...last.options, animate: false });
    }
  })
  : null;

// What a board drawn with `options` (drawBoard's, defaults filled in) in
// the box and layout of `key` shows: drawn again with the same, it is left
// as it is.
function shownWith(key, options) {
  const { targets, endLabel, last, animate, pending, chosen, marked, onTarget, onChoose } = options;
  return JSON.stringify([key, targets, pending, chosen, last, animate,
    targets.map((arm) => endLabel(arm)), marked, Boolean(onTarget), Boolean(onChoose)]);
}

/**
 * The end chosen now on a board drawn with targets, its colour changed in
 * place by the caller (a redraw would lose the pointer and the focus): kept
 * with what the board shows, so that a redraw for a new box shows it too and
 * a draw with it leaves the board as it is.
 */
export function showsChosen(svg, chosen) {
  const last = drawn.get(svg);
  if (!last) return;
  last.options = { ...last.options, chosen };
  if (last.shown !== null) last.shown = shownWith(last.key, last.options);
}

// The box a board is laid in (CSS px): its scrolling frame's, or its own.
function boxOf(svg, frame) {
  const holder = frame ?? svg;
  const width = holder.clientWidth || holder.getBoundingClientRect().width;
  const height = holder.clientHeight || holder.getBoundingClientRect().height;
  return { width: Math.floor(width), height: Math.floor(height) };
}

const sameTile = (a, b) => Boolean(a && b) && Math.min(...a) === Math.min(...b) && Math.max(...a) === Math.max(...b);

// The pending tile as it would lie at an end: the half that matches the
// open number against the end, so a player sees the tile where it goes.
function ghostHalves(tile, open, dir) {
  const outer = tile[0] === open ? tile[1] : tile[0];
  return dir[0] > 0 || dir[1] > 0 ? [open, outer] : [outer, open];
}

/**
 * Draw `layout` (a board as the server's views carry it, or null) into `svg`
 * (emptied first).  Options: `targets` the arms to offer for the `pending`
 * tile, each a target that calls onTarget(arm) when clicked, tapped or
 * chosen with Enter (the arm's end tile, when it ends that arm alone, too);
 * `chosen` the arm chosen now (drawn in the chosen end's colour);
 * `endLabel(arm)` the end's name for screen readers and tooltips; `last` the
 * tile played last (highlighted, sliding in when `animate`); `frame` the
 * element that scrolls the board when it is taller than the box (its size
 * is the box); `minTile` and `maxTile` the tiles' shorter side in CSS px;
 * `marked` tiles to mark as a seat's last play ({seat, tile}: the class
 * `seat-last`, `data-last-seat`); `onChoose(arm)` called when an offered
 * end is pointed at or focused.
 *
 * A board drawn again with what it shows now (the same layout, box and
 * options) is left as it is: the table page draws for every message, and
 * rebuilding the same board each time was most of a move's drawing.
 */
export function drawBoard(svg, layout, given = {}) {
  const {
    targets = [], onTarget = null, endLabel = (arm) => String(arm), last = null, animate = false,
    pending = null, chosen = null, frame = null,
    minTile = frame ? 24 : 6, maxTile = DEFAULT_MAX_TILE, marked = [], onChoose = null,
  } = given;
  // Kept with the drawing, its defaults filled in: what it shows (shownWith)
  // and what a redraw for a new box draws with.
  const options = {
    targets, onTarget, endLabel, last, animate, pending, chosen, frame, minTile, maxTile, marked, onChoose,
  };
  let { width, height } = boxOf(svg, frame);
  const sized = width > 0 && height > 0;
  if (!sized) {
    // Not on screen yet (a result being built): a guess, drawn again once it has a size.
    width = 600;
    height = 320;
  }
  const before = drawn.get(svg);
  const key = JSON.stringify([layout, width, height, minTile, maxTile]);
  // Laid after what this board showed before (the same hand a turn earlier):
  // the tiles already there keep their places, the board only shrinks or moves.
  // (a board laid in a guessed box is always drawn again)
  const shown = sized ? shownWith(key, options) : null;
  if (shown !== null && before?.shown === shown) return before.geometry;
  const geometry = before?.key === key ? before.geometry
    : layoutBoard(layout, { width, height, minTile, maxTile, previous: before?.geometry ?? null });
  if (watching && !before) watching.observe(frame ?? svg);
  drawn.set(svg, { layout, options, key, shown, geometry, width: sized ? width : 0, height: sized ? height : 0 });

  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${geometry.width} ${geometry.height}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.dataset.unit = geometry.unit.toFixed(2);
  svg.dataset.overflow = geometry.overflow ? "true" : "false";
  // How loosely this board had to be laid (layout.js, `attempt`): above 0 an
  // end may be left without a target, and its button alone plays there.
  svg.dataset.level = String(geometry.history?.level ?? 0);
  if (frame) {
    // Exactly the box, or taller (and the frame scrolls): one world unit is `unit` px.
    svg.style.width = `${geometry.width * geometry.unit}px`;
    svg.style.height = `${geometry.height * geometry.unit}px`;
  }
  const offered = targets.filter((arm) => geometry.ends[arm]);
  // A tile that ends one offered arm alone is a place to tap too.
  const endTiles = new Map();
  for (const arm of offered) {
    const tiles = geometry.tiles.filter((t) => t.arm === arm);
    const end = tiles.length ? tiles[tiles.length - 1] : null;
    if (end && !offered.some((other) => other !== arm && geometry.tiles.filter((t) => t.arm === other).pop() === end)) {
      endTiles.set(end, arm);
    }
  }
  let lastPlaced = null;
  for (const placed of geometry.tiles) {
    if (placed.link) {
      svg.append(svgElement("line", { x1: placed.link.x1, y1: placed.link.y1, x2: placed.link.x2, y2: placed.link.y2, class: "link" }));
    }
    const extra = { "data-arm": placed.arm, "data-index": placed.index };
    if (placed.spinner) extra["data-spinner"] = "true";
    const group = drawTile(svg, placed.tile[0], placed.tile[1], placed.x, placed.y, placed.width, placed.height, extra);
    if (placed.spinner) group.classList.add("spinner");
    const mark = marked.find((m) => sameTile(m.tile, placed.tile));
    if (mark) {
      group.classList.add("seat-last");
      group.setAttribute("data-last-seat", String(mark.seat));
    }
    if (sameTile(placed.tile, last)) {
      lastPlaced = placed;
      group.classList.add("last");
      if (animate) group.classList.add("arriving");
    }
    const arm = endTiles.get(placed);
    if (arm !== undefined && onTarget) {
      group.classList.add("end-tile");
      group.dataset.end = String(arm);
      group.addEventListener("click", () => onTarget(arm));
    }
  }
  const places = [];
  for (const arm of offered) {
    const end = geometry.ends[arm];
    const target = svgElement("g", { class: `end-target${arm === chosen ? " chosen" : ""}`, "data-end": arm, tabindex: 0, role: "button", "aria-label": endLabel(arm) });
    const title = svgElement("title");
    title.textContent = endLabel(arm);
    target.append(title);
    const area = end.target;
    target.append(svgElement("rect", { x: area.x, y: area.y, width: area.width, height: area.height, rx: 0.3, class: "hit" }));
    const place = end.place;
    if (pending && place.width !== place.height) {
      const [first, second] = ghostHalves(pending, end.open, end.dir);
      const ghost = drawTile(target, first, second, place.x, place.y, place.width, place.height);
      // A picture of where the tile would go, not a tile on the board.
      ghost.setAttribute("class", "ghost");
      ghost.removeAttribute("data-tile");
    }
    target.append(svgElement("rect", { x: place.x + 0.04, y: place.y + 0.04, width: place.width - 0.08, height: place.height - 0.08, rx: 0.14, class: "outline" }));
    if (onChoose) {
      target.addEventListener("pointerenter", () => onChoose(arm));
      target.addEventListener("focus", () => onChoose(arm));
    }
    if (onTarget) {
      target.addEventListener("click", () => onTarget(arm));
      target.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          event.stopPropagation();
          onTarget(arm);
        }
      });
    }
    svg.append(target);
    places.push({ arm, ...place });
  }
  if (frame && geometry.overflow) {
    // Taller than its frame: the last move and the open ends in view when
    // they fit in it together, else the chosen end (else the last move).
    const ends = Object.values(geometry.ends).map((end) => end.place);
    const together = around([lastPlaced, ...ends].filter(Boolean));
    const fits = together && together.height * geometry.unit <= frame.clientHeight
      && together.width * geometry.unit <= frame.clientWidth;
    const focus = fits ? together : places.find((p) => p.arm === chosen) ?? lastPlaced ?? places[0];
    if (focus) showInFrame(frame, focus, geometry.unit);
  }
  return geometry;
}

// The rectangle around `rects` (null when there are none).
function around(rects) {
  if (!rects.length) return null;
  const x = Math.min(...rects.map((r) => r.x));
  const y = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.width));
  const bottom = Math.max(...rects.map((r) => r.y + r.height));
  return { x, y, width: right - x, height: bottom - y };
}

// Scroll `frame` so that `rect` (world units) is in view, when it is not yet.
function showInFrame(frame, rect, unit) {
  const top = rect.y * unit;
  const bottom = (rect.y + rect.height) * unit;
  const left = rect.x * unit;
  const right = (rect.x + rect.width) * unit;
  const margin = Math.min(unit, Math.max(0, (frame.clientHeight - (bottom - top)) / 2));
  if (top - margin < frame.scrollTop || bottom + margin > frame.scrollTop + frame.clientHeight) {
    frame.scrollTop = Math.max(0, (top + bottom) / 2 - frame.clientHeight / 2);
  }
  if (left - margin < frame.scrollLeft || right + margin > frame.scrollLeft + frame.clientWidth) {
    frame.scrollLeft = Math.max(0, (left + right) / 2 - frame.clientWidth / 2);
  }
}
