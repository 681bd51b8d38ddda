// Domino tiles and the layout, drawn as SVG.
//
// World units: one half-tile is a 1 x 1 square, so a tile is 2 x 1 along its
// line and a double lies crosswise (1 along, 2 across).  Each arm grows from
// its root; after RUN tiles it turns clockwise, so the arms of a spinner make
// a pinwheel instead of running off the screen, and the SVG's viewBox is the
// bounding box of everything: the layout always fits its frame as it grows.

const SVG = "http://www.w3.org/2000/svg";
const RUN = 6;

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

// A stand-alone upright tile (for a hand): an <svg> element.
export function tileSvg(tile, label) {
  const svg = svgElement("svg", { viewBox: "0 0 1 2", class: "tile-svg", role: "img", "aria-label": label ?? `${tile[0]}-${tile[1]}` });
  drawTile(svg, tile[0], tile[1], 0, 0, 1, 2);
  return svg;
}

const clockwise = ([dx, dy]) => [-dy, dx];
const counterClockwise = ([dx, dy]) => [dy, -dx];
const add = (p, d, k = 1) => [p[0] + d[0] * k, p[1] + d[1] * k];

// A rectangle from `start`, `length` along `dir`, `thickness` across it.
function rectangle(start, dir, length, thickness) {
  const end = add(start, dir, length);
  if (dir[1] === 0) {
    return { x: Math.min(start[0], end[0]), y: start[1] - thickness / 2, width: length, height: thickness };
  }
  return { x: start[0] - thickness / 2, y: Math.min(start[1], end[1]), width: thickness, height: length };
}

// Where every tile goes: [{tile: [first, second], x, y, width, height, spinner}],
// and every arm's open end: {arm, point, dir}.
export function arrange(layout) {
  const placed = [];
  const ends = {};
  if (!layout || !layout.lead) return { placed, ends };
  const spinners = layout.spinner_places || [];
  const spinnerAt = (arm, position) => spinners.find((s) => s.arm === arm && s.position === position);
  const isSpinner = (tile) => (layout.spinners || []).some((s) => s[0] === tile[0] && s[1] === tile[1]);
  const lead = layout.lead;
  const starts = {};
  if (lead[0] === lead[1]) {
    placed.push({ tile: [lead[0], lead[1]], x: -0.5, y: -1, width: 1, height: 2, spinner: isSpinner(lead) });
    starts[0] = { point: [-0.5, 0], dir: [-1, 0] };
    starts[1] = { point: [0.5, 0], dir: [1, 0] };
    const own = spinnerAt(-1, 0);
    if (own) {
      starts[own.short_arms[0]] = { point: [0, -1], dir: [0, -1] };
      starts[own.short_arms[1]] = { point: [0, 1], dir: [0, 1] };
    }
  } else {
    // The lead's high half starts arm 0 (left), its low half arm 1 (right).
    placed.push({ tile: [lead[1], lead[0]], x: -1, y: -0.5, width: 2, height: 1, spinner: false });
    starts[0] = { point: [-1, 0], dir: [-1, 0] };
    starts[1] = { point: [1, 0], dir: [1, 0] };
  }
  const arms = layout.arms || [];
  const done = new Set();
  const walk = (arm) => {
    if (done.has(arm) || !starts[arm] || !arms[arm]) return;
    done.add(arm);
    let cursor = starts[arm].point;
    let dir = starts[arm].dir;
    let run = 0;
    let lastWasDouble = false;
    arms[arm].tiles.forEach(([inner, outer], position) => {
      const double = inner === outer;
      if (!double && !lastWasDouble && run >= RUN) {
        const turned = clockwise(dir);
        cursor = add(add(cursor, dir, -0.5), turned, 0.5);
        dir = turned;
        run = 0;
      }
      const length = double ? 1 : 2;
      const box = rectangle(cursor, dir, length, double ? 2 : 1);
      // Drawing order is left-to-right / top-to-bottom: flip when growing the other way.
      const forward = dir[0] > 0 || dir[1] > 0;
      const tile = double ? [inner, outer] : forward ? [inner, outer] : [outer, inner];
      const spinner = spinnerAt(arm, position);
      placed.push({ tile, ...box, spinner: Boolean(spinner) });
      if (spinner) {
        // Its first short arm is the one people call "up": drawn toward the
        // top of the screen (toward the left when the arm runs up or down),
        // whichever way the arm it lies on grows.
        const centre = add(cursor, dir, 0.5);
        const [up, down] = [counterClockwise(dir), clockwise(dir)]
          .sort((a, b) => (a[1] - b[1]) || (a[0] - b[0]));
        starts[spinner.short_arms[0]] = { point: add(centre, up, 1), dir: up };
        starts[spinner.short_arms[1]] = { point: add(centre, down, 1), dir: down };
      }
      cursor = add(cursor, dir, length);
      run += 1;
      lastWasDouble = double;
    });
    ends[arm] = { arm, point: cursor, dir, open: arms[arm].open };
    for (const place of spinners) {
      if (place.arm === arm) place.short_arms.forEach(walk);
    }
  };
  walk(0);
  walk(1);
  for (const place of spinners) if (place.arm === -1) place.short_arms.forEach(walk);
  return { placed, ends };
}

// Draw the layout into `svg` (emptied first).  `targets`: arms to offer as
// drop places, each clickable (calls onTarget(arm)).
// `last`: the tile played last, highlighted (and sliding in when `animate`).
export function drawBoard(svg, layout, { targets = [], onTarget = null, endLabel = (arm) => String(arm), last = null, animate = false } = {}) {
  svg.replaceChildren();
  const { placed, ends } = arrange(layout);
  const isLast = (tile) => last && Math.min(...tile) === Math.min(...last) && Math.max(...tile) === Math.max(...last);
  let box = placed.length ? { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity }
    : { minX: -6, minY: -3.5, maxX: 6, maxY: 3.5 };
  const grow = (x, y, w, h) => {
    box = { minX: Math.min(box.minX, x), minY: Math.min(box.minY, y), maxX: Math.max(box.maxX, x + w), maxY: Math.max(box.maxY, y + h) };
  };
  for (const p of placed) {
    const group = drawTile(svg, p.tile[0], p.tile[1], p.x, p.y, p.width, p.height, p.spinner ? { "data-spinner": "true" } : {});
    if (p.spinner) group.classList.add("spinner");
    if (isLast(p.tile)) {
      group.classList.add("last");
      if (animate) group.classList.add("arriving");
    }
    grow(p.x, p.y, p.width, p.height);
  }
  for (const arm of targets) {
    const end = ends[arm];
    if (!end) continue;
    const centre = add(end.point, end.dir, 1);
    const target = svgElement("g", { class: "end-target", "data-end": arm, tabindex: 0, role: "button", "aria-label": endLabel(arm) });
    // Wide enough for its word ("izquierda" too).
    const width = Math.max(2.2, 0.3 * String(endLabel(arm)).length + 0.6);
    target.append(svgElement("rect", { x: centre[0] - width / 2, y: centre[1] - 0.7, width, height: 1.4, rx: 0.35 }));
    const text = svgElement("text", { x: centre[0], y: centre[1] + 0.17, "text-anchor": "middle", "font-size": 0.48 });
    text.textContent = endLabel(arm);
    target.append(text);
    if (onTarget) {
      target.addEventListener("click", () => onTarget(arm));
      target.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") onTarget(arm); });
    }
    svg.append(target);
    grow(centre[0] - width / 2 - 0.1, centre[1] - 1.2, width + 0.2, 2.4);
  }
  // At least this much table shows, around what is on it: a lone lead is a
  // tile, not a billboard, and stays in the middle.
  const widen = (low, high, least) => {
    const missing = Math.max(0, least - (high - low)) / 2;
    return [low - missing, high + missing];
  };
  [box.minX, box.maxX] = widen(box.minX, box.maxX, 12);
  [box.minY, box.maxY] = widen(box.minY, box.maxY, 7);
  const margin = 0.6;
  svg.setAttribute("viewBox", `${box.minX - margin} ${box.minY - margin} ${box.maxX - box.minX + 2 * margin} ${box.maxY - box.minY + 2 * margin}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  return { placed, ends };
}
