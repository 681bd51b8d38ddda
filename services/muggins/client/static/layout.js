// The board's geometry: where every tile of a layout goes in a box.  Pure (no
// DOM, no clock): node's test runner checks it over many random hands
// (tests/client/layout*.test.mjs) and board.js only draws what it returns.
//
// World units: half a tile is 1 x 1, so a tile is 2 x 1 along its line and a
// double lies across it (1 along, 2 across).  `unit` is how many CSS pixels
// one world unit takes: the shorter side of every tile.
//
// How the line is laid, as on a real table: the lead (or the spinner) sits
// near the middle; each arm runs straight from its root until the box's edge
// (or another arm) stops it, turns a corner and snakes back one row further
// out, so the layout fills the felt instead of shrinking to a thread.  The
// long line's left arm snakes upward and its right arm downward; the lead
// spinner's short arms run up and down a column kept free for them, then
// turn clockwise and snake back toward the middle.  Doubles lie across their
// line, corners included; a spinner and the tile after it lie straight,
// because its sides are its short arms, and every open end keeps room for
// its next tile (the target a player taps to play there).
//
// The tiles keep the biggest size from `maxTile` down to `minTile` at which
// everything fits in the box.  Past `minTile` they stay that size and the
// drawing grows taller than the box (the page scrolls it), or wider too
// when a board of many spinners cannot be laid in its width.
//
// From one turn to the next the board keeps its shape: given the layout it
// returned for the board before (`previous`), the tiles both boards hold
// keep their places relative to each other and the new ones are laid at
// the ends (an arm turns where it meets the edge, and keeps that turn);
// when they no longer fit, the whole board shrinks a step, or grows taller
// than the box at the smallest size.  The one trade-off: when keeping the
// tiles where they are would make the board scroll (the shape it grew into
// wastes felt that a fresh search would use, mostly on a phone, where the
// sizes between the biggest and `minTile` are few), the board is laid
// afresh, each tile trying its old place first.  The node tests count how
// often that happens (a few turns in a hundred on a phone, none on a
// desktop for a line without spinners).

// Clearance between tiles that do not touch by design (world units).
const GAP = 0.5;
// Between the tiles and the box's edges.
const MARGIN = 0.3;
// The sizes tried, from the biggest down: each this much of the one before.
const STEP = 0.88;
// Where the lead may sit, as fractions of the box, tried in this order: an
// arm that holds most of the tiles gets more room on its side.
const PLACES = [
  [0.5, 0.5], [0.5, 0.38], [0.5, 0.62], [0.4, 0.5], [0.6, 0.5],
  [0.38, 0.38], [0.62, 0.62], [0.38, 0.62], [0.62, 0.38],
  [0.5, 0.25], [0.5, 0.75], [0.25, 0.5], [0.75, 0.5],
];
// Placements tried per attempt (with backtracking) before it gives up.
const BUDGET = 800;
// A tile needs at least this much felt (world units squared): 2 of its own,
// and its share of the room between rows.
const ROOM_PER_TILE = 3.6;
// How much taller than the box the drawing may grow.
const TALLER = [1.25, 1.5, 1.75, 2, 2.5, 3, 4, 6, 8];
const EPSILON = 1e-9;

// The least table that shows (world units), whatever lies on it.
const TABLE = [12, 8];

export const DEFAULT_MIN_TILE = 24;
export const DEFAULT_MAX_TILE = 48;

// Screen directions (y grows downward).
const clockwise = ([x, y]) => [-y, x];
const counterClockwise = ([x, y]) => [y, -x];
const add = (p, d, k = 1) => [p[0] + d[0] * k, p[1] + d[1] * k];
const negate = ([x, y]) => [-x, -y];
const horizontal = (d) => d[1] === 0;

// A rectangle from `start`, `length` along `dir`, `thickness` across it.
function along(start, dir, length, thickness) {
  const end = add(start, dir, length);
  if (horizontal(dir)) {
    return { x0: Math.min(start[0], end[0]), x1: Math.max(start[0], end[0]),
      y0: start[1] - thickness / 2, y1: start[1] + thickness / 2 };
  }
  return { x0: start[0] - thickness / 2, x1: start[0] + thickness / 2,
    y0: Math.min(start[1], end[1]), y1: Math.max(start[1], end[1]) };
}

// Whether two rectangles come closer than `gap` (0: whether they overlap).
function near(a, b, gap = 0) {
  return a.x0 < b.x1 + gap - EPSILON && b.x0 < a.x1 + gap - EPSILON
    && a.y0 < b.y1 + gap - EPSILON && b.y0 < a.y1 + gap - EPSILON;
}

function pad(rect, by) {
  return { x0: rect.x0 - by, y0: rect.y0 - by, x1: rect.x1 + by, y1: rect.y1 + by };
}

const isDouble = (tile) => tile[0] === tile[1];
// A tile's place on the board: its arm and its number on it from the root.
const placeKey = (arm, index) => `${arm}/${index}`;
// Onto the half-unit grid, so that tiles still meet exactly once moved.
const onGrid = (v) => Math.round(v * 2) / 2;

// One of the places a tile may take (see `options`): `pick` its number
// among them, `flip` a spinner's short arms the other way round.  Every
// field is there from the start, though the search sets `pick` later: a
// field added to an object changes its shape, and objects of many shapes
// slow the search down (bench layout).
const option = (rect, c, d, thick, phase, a, row, link, pick = 0, flip = false) =>
  ({ rect, c, d, thick, phase, a, row, link, pick, flip });

// A spinner's `choice` with its short arms the other way round.
const flipped = (choice, pick) => option(choice.rect, choice.c, choice.d, choice.thick,
  choice.phase, choice.a, choice.row, choice.link, pick, true);

// The places a tile may go from an arm's open end, best first.  `state`:
// where the arm's end is (`c`, the middle of its open edge), which way it
// grows (`d`), how thick its last tile is across `d`, and where it is in its
// snake (`phase`: "line" along a row, "stem" a spinner's short arm running
// up or down, "corner" just turned toward `a`, the way its rows advance).
function options(state, double, straightOnly, detach = false) {
  const straight = () => {
    const length = double ? 1 : 2;
    const thickness = double ? 2 : 1;
    return option(along(state.c, state.d, length, thickness), add(state.c, state.d, length),
      state.d, thickness, state.phase, state.a, state.row);
  };
  // A corner: the new tile leaves the last one's outer half sideways, toward
  // `t`.  A double lies across its new way, over the outer half's middle
  // (or, `flush`, no further out than the last tile: at the box's edge).
  const turn = (t, phase, a, row, flush = false) => {
    const start = add(add(state.c, state.d, flush ? -1 : -0.5), t, state.thick / 2);
    const length = double ? 1 : 2;
    const thickness = double ? 2 : 1;
    return option(along(start, t, length, thickness), add(start, t, length), t, thickness, phase, a, row);
  };
  if (straightOnly) {
    if (!detach || double) return [straight()];
    // A short arm that cannot start at its spinner's end starts further out
    // along the same line, joined to it by a link.
    return [straight(), ...[1, 2, 3, 4, 6, 8, 12].map((k) => {
      const start = add(state.c, state.d, k);
      return option(along(start, state.d, 2, 1), add(start, state.d, 2), state.d, 1,
        state.phase, state.a, state.row, { from: state.c, to: start, length: k });
    })];
  }
  if (state.phase === "stem") {
    // Up (or down) until stopped, then clockwise into a row that snakes back
    // toward the middle.
    const back = negate(state.d);
    return [straight(), turn(clockwise(state.d), "line", back, null),
      turn(counterClockwise(state.d), "line", back, null)];
  }
  if (state.phase === "corner") {
    // Just turned toward `a`: back along the row it came from, one row further out.
    return [turn(negate(state.row), "line", state.a, null), straight(),
      turn(state.row, "line", state.a, null)];
  }
  const line = [straight(), turn(state.a, "corner", state.a, state.d),
    turn(negate(state.a), "corner", negate(state.a), state.d)];
  if (double) line.push(turn(state.a, "corner", state.a, state.d, true));
  return line;
}

// What every try of a board shares.  Above all each arm's tiles in the order
// they are laid: round by round (the first tile of every arm, then the
// second...), a spinner's short arms from the round after it; roughly the
// order they were played in, so that no arm takes the room the others need
// next to the middle.
function schedule(board) {
  const arms = board.arms || [];
  const places = board.spinner_places || [];
  const start = new Map([[0, 0], [1, 0]]);
  const steps = [];
  const lead = places.find((p) => p.arm === -1);
  if (lead) lead.short_arms.forEach((arm) => start.set(arm, 0));
  // Spinners come in the order they were played, so a spinner's own arm
  // has its start before the spinner is met.
  for (const place of places) {
    if (place.arm === -1 || !start.has(place.arm)) continue;
    for (const arm of place.short_arms) start.set(arm, start.get(place.arm) + place.position + 1);
  }
  // The arm each short arm grows from, and the spinners by where they lie.
  const parent = new Map();
  const spinnerAt = new Map();
  for (const place of places) {
    for (const arm of place.short_arms) parent.set(arm, place.arm);
    if (place.arm !== -1) spinnerAt.set(placeKey(place.arm, place.position), place);
  }
  // Each step with its place's key and the spinner laid there, if any
  // (found once here, not at every try of the step).
  for (const [arm, first] of start) {
    const tiles = arms[arm]?.tiles ?? [];
    tiles.forEach((tile, index) => {
      const key = placeKey(arm, index);
      steps.push({ arm, index, time: first + index, tile, key, spinner: spinnerAt.get(key) });
    });
  }
  steps.sort((p, q) => p.time - q.time || p.arm - q.arm);
  return { board, steps, armOrder: [...start.keys()].filter((arm) => arms[arm]), parent, spinnerAt };
}

// One try: the lead at (lx, ly) in a W x H box.  The laid tiles and each
// open end's place for a next tile, or null when something does not fit.
//
// `level` 0 is the table as it should look.  A few boards of every-double
// games hold spinners so close together that their arms cannot all run
// straight out of them; for those each level gives a little more: 1 lets
// any spinner but the lead open the other way round and leaves an end
// without a place for its target (its button still plays there), 2 keeps
// only the first tile's room of the lead spinner's columns, 3 lets the tile
// after a spinner turn a corner and tiles that are not joined touch (they
// never overlap), and 4 lets a tile that must start at a spinner start
// further out along its line, joined to it by a link.
//
// `guide` (from an earlier drawing of this board, see `follow`): `forced`
// the place (its number among the tile's options) each tile already on the
// board must take again, `preferred` the place a tile had the last time it
// lay there (tried first).  A `thorough` plan blames more tiles when one
// has no place left (see below): slower, but it does not give a board up
// for want of a tile to blame.
function attempt(plan, W, H, lx, ly, budget, level = 0, guide = null) {
  const { board, steps, armOrder, parent, thorough = false } = plan;
  const arms = board.arms || [];
  const places = board.spinner_places || [];
  const lead = board.lead;
  const inside = (r) => r.x0 >= MARGIN - EPSILON && r.y0 >= MARGIN - EPSILON
    && r.x1 <= W - MARGIN + EPSILON && r.y1 <= H - MARGIN + EPSILON;
  // Laid tiles: {rect, anchor (the number of the tile it is joined to), arm, index, tile, spinner}.
  const laid = [];
  // Room kept for an arm's next tile (a spinner's short arms, the tile after
  // a spinner): {rect, arm, by (the tile that kept it), hard}.  Hard when the
  // arm holds tiles or its open end needs the room; else it gives way to a
  // tile that has no other place (a spinner, or the first tile of a short arm).
  const kept = [];
  // Room kept for an arm is free to the arms that grow out of it (a
  // spinner in a kept column opens sideways).
  const mayUse = (arm, owner) => {
    for (let at = arm; at !== undefined && at !== -1; at = parent.get(at)) if (at === owner) return true;
    return false;
  };
  const hasTiles = (arm) => Boolean(arms[arm]?.tiles?.length);
  // An arm must have room for its next tile (then that tile lands without
  // moving the others); an empty side of a spinner of every double may wait
  // (its button plays there; the next board makes room).
  const needsPlace = (arm) => level === 0 && (hasTiles(arm) || arm < 4);
  const gap = level < 3 ? GAP : 0;

  // Whether `rect`, joined to tile number `anchor`, fits for `arm`.  When it
  // does not, the laid tiles whose moving might make room go into
  // `culprits` (the search jumps back to the latest of them).
  const fits = (rect, anchor, arm, rigid, culprits) => {
    if (!inside(rect)) {
      culprits.add(anchor); // this arm should have turned sooner
      return false;
    }
    const joinedTo = laid[anchor]?.anchor;
    for (let i = 0; i < laid.length; i++) {
      const other = laid[i];
      // Clear of it by the gap: clear of it whatever it is (most tiles; the
      // search spends most of its time here).
      if (!near(rect, other.rect, gap)) continue;
      // Its neighbours may touch it (never overlap it); any other tile keeps its distance.
      const neighbour = i === anchor || i === joinedTo || other.anchor === anchor;
      if (!neighbour || near(rect, other.rect, 0)) {
        culprits.add(i).add(anchor);
        return false;
      }
    }
    for (const room of kept) {
      if ((room.hard || !rigid) && !mayUse(arm, room.arm) && near(rect, room.rect)) {
        culprits.add(room.by).add(anchor);
        return false;
      }
    }
    return true;
  };

  // The lead, and the start of every arm that grows from it.
  const leadDouble = isDouble(lead);
  const leadSpinner = places.find((p) => p.arm === -1);
  const leadRect = leadDouble
    ? { x0: lx - 0.5, x1: lx + 0.5, y0: ly - 1, y1: ly + 1 }
    : { x0: lx - 1, x1: lx + 1, y0: ly - 0.5, y1: ly + 0.5 };
  laid.push({ rect: leadRect, anchor: -1, arm: -1, index: 0,
    tile: leadDouble ? [lead[0], lead[1]] : [lead[1], lead[0]], spinner: Boolean(leadSpinner) });
  const half = leadDouble ? 0.5 : 1;
  const thick = leadDouble ? 2 : 1;
  const state = new Map();
  const afterSpinner = level < 3;
  state.set(0, { c: [lx - half, ly], d: [-1, 0], thick, anchor: 0, phase: "line", a: [0, -1], row: null,
    straightOnly: Boolean(leadSpinner) && afterSpinner });
  state.set(1, { c: [lx + half, ly], d: [1, 0], thick, anchor: 0, phase: "line", a: [0, 1], row: null,
    straightOnly: Boolean(leadSpinner) && afterSpinner });
  if (leadSpinner) {
    const [up, down] = leadSpinner.short_arms;
    state.set(up, { c: [lx, ly - 1], d: [0, -1], thick: 1, anchor: 0, phase: "stem", a: null, row: null, straightOnly: true });
    state.set(down, { c: [lx, ly + 1], d: [0, 1], thick: 1, anchor: 0, phase: "stem", a: null, row: null, straightOnly: true });
    // Their whole columns, to the box's edges: the long line's rows stop short of them.
    const reach = level < 2 ? H : 2;
    kept.push({ arm: up, by: 0, hard: hasTiles(up), rect: { x0: lx - 1, x1: lx + 1, y0: Math.max(0, ly - 1 - reach), y1: ly - 1 } });
    kept.push({ arm: down, by: 0, hard: hasTiles(down), rect: { x0: lx - 1, x1: lx + 1, y0: ly + 1, y1: ly + 1 + reach } });
  }

  // A spinner just laid at `rect` (growing along `d`): its short arms start
  // at its two ends, the first one ("up") toward the top of the screen (to
  // the left when its arm runs up or down; the other way round when
  // `flip`), and the room for their first tiles is kept.  False (the tiles
  // in the way in `culprits`) when an arm that holds tiles has no room there.
  const openSpinner = (place, rect, d, number, flip, culprits) => {
    const centre = [(rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2];
    // The tile after it on its arm goes straight on: room for it first.
    const after = arms[place.arm]?.tiles?.[place.position + 1];
    if (after && afterSpinner) {
      const double = isDouble(after);
      const room = along(add(centre, d, 0.5), d, double ? 1 : 2, double ? 2 : 1);
      if (!fits(room, number, place.arm, true, culprits)) return false;
      kept.push({ arm: place.arm, by: number, rect: room, hard: true });
    }
    const sides = [counterClockwise(d), clockwise(d)].sort((p, q) => (p[1] - q[1]) || (p[0] - q[0]));
    if (flip) sides.reverse();
    for (let k = 0; k < 2; k++) {
      const arm = place.short_arms[k];
      const side = sides[k];
      const start = add(centre, side, 1);
      const first = arms[arm]?.tiles?.[0];
      const double = first ? isDouble(first) : false;
      const room = along(start, side, double ? 1 : 2, double ? 2 : 1);
      if (first || (needsPlace(arm) && arms[arm]?.open !== null && arms[arm]?.open !== undefined)) {
        // Tiles to lay there, or an open end that must show where the next one goes.
        if (!fits(room, number, arm, true, culprits)) return false;
        kept.push({ arm, by: number, rect: room, hard: true });
      } else if (!laid.some((other, i) => i !== number && near(room, other.rect, 0))) {
        kept.push({ arm, by: number, rect: room, hard: false });
      }
      state.set(arm, { c: start, d: side, thick: 1, anchor: number,
        phase: horizontal(side) ? "line" : "stem", a: horizontal(side) ? clockwise(side) : null,
        row: null, straightOnly: true });
    }
    return true;
  };

  // The first place a next tile could take at each open end (where a
  // player's target goes), each clear of the tiles and of the places before
  // it; null when an arm that should grow has none.
  const endPlaces = (culprits) => {
    const taken = [];
    const found = {};
    const clear = (rect, arm, anchor) => {
      if (!inside(rect)) {
        culprits.add(anchor);
        return false;
      }
      for (let i = 0; i < laid.length; i++) {
        if (near(rect, laid[i].rect, i === anchor ? 0 : gap / 2)) {
          culprits.add(i).add(anchor);
          return false;
        }
      }
      for (const room of kept) {
        if (room.hard && !mayUse(arm, room.arm) && near(rect, room.rect)) {
          culprits.add(room.by).add(anchor);
          return false;
        }
      }
      if (taken.some((other) => near(rect, other, gap / 2))) {
        culprits.add(anchor);
        return false;
      }
      return true;
    };
    // The ends with one way to go (a spinner's, a short arm's) before those
    // that may turn, so that a turning end's place does not take theirs.
    const rigidFirst = [...armOrder].sort((p, q) => Number(Boolean(state.get(q)?.straightOnly)) - Number(Boolean(state.get(p)?.straightOnly)));
    for (const arm of rigidFirst) {
      const end = state.get(arm);
      const open = arms[arm]?.open;
      if (!end || open === null || open === undefined) continue;
      const needed = needsPlace(arm);
      let place = options(end, false, end.straightOnly).find((choice) => clear(choice.rect, arm, end.anchor));
      if (!place && !needed) {
        // No room for a whole tile: a square beside the end will do for a target.
        const square = along(end.c, end.d, 1, 1);
        if (clear(square, arm, end.anchor)) place = { rect: square, d: end.d };
      }
      if (!place) {
        if (needed) return null;
        continue;
      }
      taken.push(place.rect);
      found[arm] = { rect: place.rect, d: place.d };
    }
    return found;
  };

  // Depth-first over the steps: each tile takes its first place that fits.
  // When none does, the search jumps back to the latest tile among those in
  // the way (conflict-directed backjumping: the tiles of other arms laid in
  // between had nothing to do with it), which tries its next place.
  const frames = [];
  const undo = (k) => {
    const frame = frames[k];
    laid.pop();
    kept.length = frame.kept;
    state.set(steps[k].arm, frame.from);
  };
  let k = 0;
  for (;;) {
    let culprits;
    if (k === steps.length) {
      culprits = new Set();
      const ends = endPlaces(culprits);
      if (ends) return { laid, ends, W, H, level };
      // (an end without room: back to the latest tile in its way)
    } else {
      const step = steps[k];
      let frame = frames[k];
      if (!frame) {
        const from = state.get(step.arm);
        if (!from) return null; // an arm whose root was never laid: not a board we know
        const spinner = step.spinner;
        const rigid = from.straightOnly || Boolean(spinner);
        let choices = options(from, isDouble(step.tile), rigid, level >= 4 && !spinner && laid[from.anchor]?.spinner);
        // Numbered in place (options makes them afresh each call).
        for (let pick = 0; pick < choices.length; pick++) choices[pick].pick = pick;
        // A spinner of every double (its arms are "arm 5", "arm 6": no up or
        // down to keep) may open the other way round when its arms would
        // run into a neighbour's.
        if (spinner && (spinner.short_arms[0] > 3 || level > 0)) choices.push(flipped(choices[0], choices.length));
        const key = step.key;
        const forced = guide?.forced.get(key);
        if (forced !== undefined) {
          choices = choices.filter((choice) => choice.pick === forced);
          if (!choices.length) return null; // that place is not among this level's options
        } else if (guide?.preferred.has(key)) {
          const preferred = guide.preferred.get(key);
          choices.sort((p, q) => Number(q.pick === preferred) - Number(p.pick === preferred));
        }
        frame = { from, spinner, rigid, tried: 0, kept: kept.length, choices, culprits: new Set() };
        frames[k] = frame;
      }
      let placed = false;
      while (frame.tried < frame.choices.length) {
        const choice = frame.choices[frame.tried++];
        if (--budget.left < 0) return null;
        if (!fits(choice.rect, frame.from.anchor, step.arm, frame.rigid, frame.culprits)) continue;
        if (choice.link && !fits(along(choice.link.from, choice.d, choice.link.length, 0.2),
          frame.from.anchor, step.arm, true, frame.culprits)) continue;
        const number = laid.length;
        const [inner, outer] = step.tile;
        const forward = choice.d[0] > 0 || choice.d[1] > 0;
        laid.push({ rect: choice.rect, anchor: frame.from.anchor, arm: step.arm, index: step.index,
          tile: forward ? [inner, outer] : [outer, inner], spinner: Boolean(frame.spinner), link: choice.link,
          pick: choice.pick });
        if (frame.spinner) {
          const culprits = new Set();
          if (!openSpinner(frame.spinner, choice.rect, choice.d, number, choice.flip, culprits)) {
            laid.pop();
            kept.length = frame.kept;
            culprits.delete(number);
            for (const culprit of culprits) frame.culprits.add(culprit);
            frame.culprits.add(frame.from.anchor);
            continue;
          }
        }
        state.set(step.arm, { c: choice.c, d: choice.d, thick: choice.thick, anchor: number, phase: choice.phase,
          a: choice.a, row: choice.row, straightOnly: Boolean(frame.spinner) && afterSpinner });
        placed = true;
        break;
      }
      if (placed) {
        k += 1;
        continue;
      }
      culprits = frame.culprits;
      // Out of places: where this tile may go hangs on the tile it joins (a
      // straight-only arm has one place, fixed by it), so in a `thorough`
      // search that tile is to blame too.  The quick search blames only the
      // tiles in the way: a run of straight-only tiles can then blame nobody,
      // and it gives up a board that can be laid (seen once in 900 hands
      // with spinners of every double: the whole set on the board).
      if (thorough) culprits.add(frame.from.anchor);
      frames[k] = undefined;
    }
    // Laid tile n was laid by step n - 1 (the lead is tile 0 and moves for nobody).
    let target = -1;
    for (const culprit of culprits) target = Math.max(target, culprit - 1);
    if (target < 0 || target >= k) return null;
    for (let back = k - 1; back > target; back--) {
      undo(back);
      frames[back] = undefined;
    }
    undo(target);
    for (const culprit of culprits) if (culprit - 1 < target) frames[target].culprits.add(culprit);
    k = target;
  }
}

// A target's area: its place, grown into the free felt around it (never over
// a tile or another target) so that a finger finds it.
function targetArea(place, laid, others, W, H) {
  for (const by of [0.6, 0.4, 0.2, 0]) {
    const grown = pad(place, by);
    if (grown.x0 < 0 || grown.y0 < 0 || grown.x1 > W || grown.y1 > H) continue;
    if (laid.some((tile) => near(grown, tile.rect, 0.05))) continue;
    if (others.some((other) => near(grown, other, 0.05))) continue;
    return grown;
  }
  return place;
}

// The scales tried, in CSS pixels per world unit, biggest first.
function ladder(minTile, maxTile) {
  const sizes = [];
  for (let size = maxTile; size > minTile + 0.5; size *= STEP) sizes.push(size);
  sizes.push(minTile);
  return sizes;
}

/**
 * Where every tile of `board` (a layout as the server's views carry it:
 * lead, arms with their tiles as [inner, outer] from the root, spinner_places)
 * goes in a box of `width` x `height` CSS pixels.
 *
 * `previous`: what this function returned for the board drawn there before
 * (the same hand a turn earlier, or a step later in a replay).  The tiles
 * both boards hold keep their places relative to each other: the new ones
 * are laid at the ends, and when they do not fit the whole board shrinks
 * (or grows taller than the box) instead of turning its arms another way;
 * only a board that cannot be laid so is laid afresh.
 *
 * Returns {unit, width, height, overflow, tiles, ends, history}: `unit` the
 * pixels of a world unit (a tile's shorter side, never under `minTile`);
 * `width` and `height` the drawing's size in world units (bigger than the
 * box only when `overflow`); `tiles` [{tile: [first, second] (left or top
 * first), x, y, width, height, arm (-1: the lead), index, spinner, lead}];
 * `ends` {arm: {arm, open, place: {x, y, width, height} where a next tile
 * would go, target: the place grown into free felt, dir}} for every open end
 * with room; `history` what the next call needs to keep these places.
 */
export function layoutBoard(board, { width, height, minTile = DEFAULT_MIN_TILE, maxTile = DEFAULT_MAX_TILE, previous = null } = {}) {
  const boxWidth = Math.max(1, width || 0);
  const boxHeight = Math.max(1, height || 0);
  const smallest = Math.max(1, Math.min(minTile, maxTile));
  // At least a table of 12 x 8 half tiles shows: a short line is a few tiles
  // on the felt, not a billboard that turns after two of them.
  const biggest = Math.max(smallest, Math.min(maxTile, boxWidth / TABLE[0], boxHeight / TABLE[1]));
  if (!board || !board.lead) {
    const unit = biggest;
    return { unit, width: boxWidth / unit, height: boxHeight / unit, overflow: false, tiles: [], ends: {}, history: null };
  }
  const plan = schedule(board);
  const box = { width: boxWidth, height: boxHeight, smallest, biggest };
  const before = previous?.history ?? null;
  const guide = before ? guideFrom(plan, before) : null;
  const followed = guide ? follow(plan, before, box, guide) : null;
  if (followed && !beyond(followed, box)) return finish(followed, board, box, before);
  // Kept where they were, the tiles would need more felt than the box (the
  // page would scroll the board): laid afresh instead, when that fits, each
  // tile trying its old place first (most of the board keeps its shape).
  const fresh = (guide && afresh(plan, box, { forced: new Map(), preferred: new Map([...guide.preferred, ...guide.forced]) }))
    || afresh(plan, box)
    // (the thorough search takes about twice as long: only when the quick one fails)
    || afresh({ ...plan, thorough: true }, box);
  if (!fresh) throw new Error("no layout found for this board");
  return finish(followed && beyond(fresh, box) ? followed : fresh, board, box, before);
}

// Whether what was laid takes more felt than the box (the drawing scrolls).
const beyond = (found, box) => found.W > box.width / found.unit + EPSILON || found.H > box.height / found.unit + EPSILON;

// A board laid from nothing: the biggest tiles at which a search finds a
// place for every tile (null when it finds none; `guide` only orders the
// places each tile tries).
function afresh(plan, { width: boxWidth, height: boxHeight, smallest, biggest }, guide = null) {
  // How strict a drawing this board allows (see `attempt`): tried once on
  // a felt big enough for any line, so the search below does not try in
  // vain at every size.
  const tiles = plan.steps.length + 1;
  const roomy = 4 * tiles + 12;
  let level = 0;
  while (level < 4 && !attempt(plan, roomy, roomy, roomy / 2, roomy / 2, { left: 50 * BUDGET }, level)) level += 1;
  const tryAt = (unit, W, H, { greedy = false, places = PLACES.length } = {}) => {
    // Too little felt for this many tiles, however they are laid.
    if (W * H < ROOM_PER_TILE * tiles) return null;
    for (const [fx, fy] of PLACES.slice(0, places)) {
      // On the half-unit grid, so that tiles meet exactly (no rounding in the distances).
      const lx = onGrid(fx * W);
      const ly = onGrid(fy * H);
      // (a quick look, with few tiles tried again, finds the regular snake)
      const result = attempt(plan, W, H, lx, ly, { left: greedy ? 4 * tiles : BUDGET }, level, guide);
      if (result) return { ...result, unit };
    }
    return null;
  };
  // First every size with a quick look (each tile in its first place that
  // fits, a few tried again: the regular snake), then every size again
  // letting tiles try many places (a smaller regular snake reads better
  // than a bigger tangle).
  const sizes = ladder(smallest, biggest);
  const atSize = (i, greedy) => tryAt(sizes[i], boxWidth / sizes[i], boxHeight / sizes[i], { greedy });
  let found = null;
  for (let i = 0; !found && i < sizes.length; i++) found = atSize(i, true);
  if (!found) {
    // The biggest size that fits, halving the sizes left (a smaller size
    // leaves more room, so what fits stays fitting further down).
    let lo = 0;
    let hi = sizes.length - 1;
    found = atSize(hi, false);
    while (found && lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const there = atSize(mid, false);
      if (there) {
        found = there;
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
  }
  if (!found) {
    // Taller than the box, as little as will do (the tallest tried first:
    // when even that does not fit, the drawing must grow wider too).
    const atHeight = (i) => tryAt(smallest, boxWidth / smallest, (boxHeight * TALLER[i]) / smallest);
    let lo = 0;
    let hi = TALLER.length - 1;
    found = atHeight(hi);
    while (found && lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const there = atHeight(mid);
      if (there) {
        found = there;
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
  }
  for (let wider = 1.5; !found && wider < 64; wider *= 1.5) {
    found = tryAt(smallest, (boxWidth * wider) / smallest, (boxHeight * wider * 2) / smallest, { places: 3 });
  }
  return found && { ...found, keep: false };
}

// What an earlier drawing (`history`) fixes for `board`: the tiles both
// hold, from each root out to the first tile that differs, take their
// places again; a tile that lay at the same place before and was taken
// away (a replay stepped back) prefers its old place.  Null when they share
// no tile but the lead and the earlier one held more (another hand).
function guideFrom(plan, history) {
  const { board, spinnerAt } = plan;
  const arms = board.arms || [];
  const shortArms = (place) => (place ? place.short_arms.join(",") : null);
  const leadSpinner = (board.spinner_places || []).find((place) => place.arm === -1);
  if (String(board.lead) !== history.lead || shortArms(leadSpinner) !== history.leadSpinner) return null;
  const forced = new Map();
  const rects = [history.leadRect];
  // Arms whose root keeps its place: the long line's, the lead spinner's,
  // and those of every spinner that keeps its own.
  const kept = [0, 1, ...(leadSpinner ? leadSpinner.short_arms : [])];
  for (let k = 0; k < kept.length; k++) {
    const arm = kept[k];
    const tiles = arms[arm]?.tiles ?? [];
    for (let index = 0; index < tiles.length; index++) {
      const key = placeKey(arm, index);
      const was = history.tiles[key];
      const spinner = spinnerAt.get(key);
      if (!was || was.tile !== String(tiles[index]) || was.spinner !== shortArms(spinner)) break;
      forced.set(key, was.pick);
      rects.push(was.rect);
      if (spinner) kept.push(...spinner.short_arms);
    }
  }
  // (a lone lead before: this board's first tiles are laid around it)
  if (!forced.size && Object.keys(history.tiles).length) return null;
  const preferred = new Map();
  arms.forEach((arm, number) => (arm?.tiles ?? []).forEach((tile, index) => {
    const key = placeKey(number, index);
    const was = history.remembered[key];
    if (!forced.has(key) && was && was.tile === String(tile)) preferred.set(key, was.pick);
  }));
  return { forced, preferred, rects };
}

// `plan` laid around the tiles an earlier drawing (`history`) placed (as
// `guide` says, from `guideFrom`), each
// in the same place relative to the others; null when that cannot be done.
// The tiles stay where they were while the new ones fit at the same size in
// the same box; else the whole board shrinks a step at a time (centred
// again), and at the smallest size grows taller than the box.
function follow(plan, history, { width: boxWidth, height: boxHeight, smallest, biggest }, guide) {
  const known = (step) => guide.forced.has(step.key);
  // The tiles already placed first (as they were), then the new ones.
  const ordered = { ...plan, steps: [...plan.steps.filter(known), ...plan.steps.filter((step) => !known(step))] };
  const same = history.box.width === boxWidth && history.box.height === boxHeight
    && history.box.smallest === smallest && history.box.biggest === biggest;
  const minX = Math.min(...guide.rects.map((r) => r.x0));
  const minY = Math.min(...guide.rects.map((r) => r.y0));
  const spanX = Math.max(...guide.rects.map((r) => r.x1)) - minX;
  const spanY = Math.max(...guide.rects.map((r) => r.y1)) - minY;
  // Each box tried: its size (world units), the scale, how far the old tiles
  // move, and whether the drawing is the box itself (else, taller than the
  // box, it is cut to what it holds and centred).
  const boxes = [];
  if (same) boxes.push({ unit: history.unit, W: history.W, H: history.H, dx: 0, dy: 0, keep: true });
  const centred = (unit, W, H, keep) => {
    if (spanX + 2 * MARGIN > W + EPSILON || spanY + 2 * MARGIN > H + EPSILON) return;
    boxes.push({ unit, W, H, dx: onGrid((W - spanX) / 2 - minX), dy: onGrid((H - spanY) / 2 - minY), keep });
  };
  // (never bigger than before in the same box: the board does not swell and shrink from turn to turn)
  for (const unit of ladder(smallest, biggest)) {
    if (!same || unit < history.unit - EPSILON) centred(unit, boxWidth / unit, boxHeight / unit, true);
  }
  for (const taller of TALLER) centred(smallest, boxWidth / smallest, (boxHeight * taller) / smallest, false);
  const lx = (history.leadRect.x0 + history.leadRect.x1) / 2;
  const ly = (history.leadRect.y0 + history.leadRect.y1) / 2;
  for (let level = history.level; level <= 4; level++) {
    for (const { unit, W, H, dx, dy, keep } of boxes) {
      const found = attempt(ordered, W, H, lx + dx, ly + dy, { left: BUDGET }, level, guide);
      if (found) return { ...found, unit, keep };
    }
  }
  return null;
}

// The drawing of what was laid: the tiles where they were laid (`keep`, the
// drawing is the box they were laid in) or centred in the box (or, taller
// than the box, in a drawing just big enough), with the targets' places and
// the history the next board follows.
function finish(found, board, box, before) {
  const boxW = box.width / found.unit;
  const boxH = box.height / found.unit;
  const places = found.ends;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const grow = (r) => {
    minX = Math.min(minX, r.x0); minY = Math.min(minY, r.y0);
    maxX = Math.max(maxX, r.x1); maxY = Math.max(maxY, r.y1);
  };
  for (const tile of found.laid) grow(tile.rect);
  for (const place of Object.values(places)) grow(place.rect);
  const W = found.keep ? found.W : Math.max(boxW, maxX - minX + 2 * MARGIN);
  const H = found.keep ? found.H : Math.max(boxH, maxY - minY + 2 * MARGIN);
  const dx = found.keep ? 0 : (W - (maxX - minX)) / 2 - minX;
  const dy = found.keep ? 0 : (H - (maxY - minY)) / 2 - minY;
  const moved = (r) => ({ x0: r.x0 + dx, y0: r.y0 + dy, x1: r.x1 + dx, y1: r.y1 + dy });
  const box2d = (r) => ({ x: r.x0, y: r.y0, width: r.x1 - r.x0, height: r.y1 - r.y0 });
  const tiles = found.laid.map((tile) => ({
    tile: tile.tile, ...box2d(moved(tile.rect)), arm: tile.arm, index: tile.index,
    spinner: tile.spinner, lead: tile.arm === -1,
    ...(tile.link ? { link: { x1: tile.link.from[0] + dx, y1: tile.link.from[1] + dy, x2: tile.link.to[0] + dx, y2: tile.link.to[1] + dy } } : {}),
  }));
  const laidMoved = found.laid.map((tile) => ({ rect: moved(tile.rect) }));
  const ends = {};
  const areas = [];
  for (const [arm, place] of Object.entries(places)) {
    const rect = moved(place.rect);
    const area = targetArea(rect, laidMoved, areas, W, H);
    areas.push(area);
    ends[arm] = { arm: Number(arm), open: board.arms[arm].open, dir: place.d, place: box2d(rect), target: box2d(area) };
  }
  const overflow = W > boxW + 1e-6 || H > boxH + 1e-6;
  const history = remember(found, board, box, before, moved, W, H);
  return { unit: found.unit, width: W, height: H, overflow, tiles, ends, history };
}

// What the next drawing of a bigger (or smaller) board needs to keep these
// tiles where they are: each tile's place among its options and its
// rectangle in the drawing, and the box, scale and strictness they were
// laid with.  Plain data (it may be kept, compared or logged).
function remember(found, board, box, before, moved, W, H) {
  const places = board.spinner_places || [];
  const shortArms = (arm, index) => {
    const place = places.find((p) => p.arm === arm && (arm === -1 || p.position === index));
    return place ? place.short_arms.join(",") : null;
  };
  const lead = String(board.lead);
  // The places of tiles taken away since (a replay stepped back) are remembered for the same hand.
  const remembered = before && before.lead === lead ? { ...before.remembered } : {};
  const tiles = {};
  let leadRect = null;
  for (const tile of found.laid) {
    const rect = moved(tile.rect);
    if (tile.arm === -1) {
      leadRect = rect;
      continue;
    }
    const key = placeKey(tile.arm, tile.index);
    const shown = String(board.arms[tile.arm].tiles[tile.index]);
    tiles[key] = { tile: shown, spinner: shortArms(tile.arm, tile.index), pick: tile.pick, rect };
    remembered[key] = { tile: shown, pick: tile.pick };
  }
  return { box, unit: found.unit, W, H, level: found.level, lead, leadSpinner: shortArms(-1, 0), leadRect, tiles, remembered };
}
