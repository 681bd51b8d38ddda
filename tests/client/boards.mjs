// Random boards for the layout's tests: hands played tile by tile with the
// rules engine's placing rules (shared/muggins/rules/placing.py), as the
// per-seat view carries them (muggins.views.layout_view_of): the lead as
// [low, high], each arm's tiles as [inner, outer] from its root, its open
// number (null while a spinner's short side is closed), and the spinners
// with where they lie.

const CLOSED = -1;

// A small seeded generator (mulberry32): the same seed, the same boards.
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function tileSet(maxPip) {
  const tiles = [];
  for (let low = 0; low <= maxPip; low++) for (let high = low; high <= maxPip; high++) tiles.push([low, high]);
  return tiles;
}

function withLead(tile, mode) {
  const [low, high] = tile;
  if (low === high && mode !== "none") {
    return { lead: tile, arms: [[], [], [], []], ends: [high, low, CLOSED, CLOSED],
      spinners: [{ tile, arm: -1, position: 0, short_arms: [2, 3] }] };
  }
  return { lead: tile, arms: [[], []], ends: [high, low], spinners: [] };
}

function longSidesCovered(spinner, arms, end) {
  if (spinner.arm === -1) return (arms[0].length > 0 || end === 0) && (arms[1].length > 0 || end === 1);
  return arms[spinner.arm].length + (end === spinner.arm ? 1 : 0) > spinner.position + 1;
}

function place(layout, tile, end, mode) {
  const [low, high] = tile;
  const ends = [...layout.ends];
  const arms = layout.arms.map((arm) => [...arm]);
  const showing = low === ends[end] ? high : low;
  for (const spinner of layout.spinners) {
    const [first, second] = spinner.short_arms;
    if (ends[first] === CLOSED && longSidesCovered(spinner, layout.arms, end)) {
      ends[first] = spinner.tile[0];
      ends[second] = spinner.tile[0];
    }
  }
  ends[end] = showing;
  arms[end].push(tile);
  let spinners = layout.spinners;
  if (low === high && (mode === "every-double" || (mode === "first-double" && !spinners.length))) {
    const shortArms = [arms.length, arms.length + 1];
    arms.push([], []);
    ends.push(CLOSED, CLOSED);
    spinners = [...spinners, { tile, arm: end, position: arms[end].length - 1, short_arms: shortArms }];
  }
  return { lead: layout.lead, arms, ends, spinners };
}

function fits(layout, tile, end) {
  const number = layout.ends[end];
  return number !== CLOSED && (tile[0] === number || tile[1] === number);
}

function rootNumber(layout, arm) {
  if (arm === 0) return layout.lead[1];
  if (arm === 1) return layout.lead[0];
  return layout.spinners.find((s) => s.short_arms.includes(arm)).tile[0];
}

// The layout as the page receives it.
export function view(layout) {
  return {
    lead: layout.lead,
    arms: layout.arms.map((tiles, arm) => {
      let number = rootNumber(layout, arm);
      const oriented = tiles.map((tile) => {
        const outer = tile[0] === number ? tile[1] : tile[0];
        const pair = [number, outer];
        number = outer;
        return pair;
      });
      return { end: arm, tiles: oriented, open: layout.ends[arm] === CLOSED ? null : layout.ends[arm] };
    }),
    spinners: layout.spinners.map((s) => s.tile),
    spinner_places: layout.spinners.map((s) => ({ tile: s.tile, arm: s.arm, position: s.position, short_arms: s.short_arms })),
  };
}

// One hand: every board from the lead to the last tile that fits (or
// `plays` tiles), tiles drawn at random from the whole set.
export function randomHand(next, { maxPip = 6, mode = "none", plays = Infinity } = {}) {
  const left = tileSet(maxPip);
  const take = (index) => left.splice(index, 1)[0];
  let layout = withLead(take(Math.floor(next() * left.length)), mode);
  const boards = [view(layout)];
  while (boards.length < plays) {
    const legal = [];
    left.forEach((tile, index) => layout.ends.forEach((_, end) => {
      if (fits(layout, tile, end)) legal.push([index, end]);
    }));
    if (!legal.length) break;
    const [index, end] = legal[Math.floor(next() * legal.length)];
    layout = place(layout, take(index), end, mode);
    boards.push(view(layout));
  }
  return boards;
}

// The presets' boards (shared/muggins/rules/presets.py): no spinner, the
// first double, every double.
export const MODES = ["none", "first-double", "every-double"];
