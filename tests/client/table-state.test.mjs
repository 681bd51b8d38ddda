// The table page's reducer (services/muggins/client/static/table-state.js):
// messages in, state out, with no DOM and no timers, so node runs it.
//
//     node --test tests/client/
//
// tests/client/test_node.py runs this from pytest.

import { test } from "node:test";
import assert from "node:assert/strict";

import { EVENT_TYPES, SERVER_MESSAGE_TYPES } from "../../services/muggins/client/static/protocol-types.js";
import {
  HISTORY_MAX, SERVER_MESSAGE_TYPES as FOLDED, initialState, isDrawn, legalEnds, myTurn, reduce,
} from "../../services/muggins/client/static/table-state.js";

const layout = (count = 0) => ({ lead: count ? [5, 5] : null, arms: [], count, spinners: [], spinner_places: [], count_parts: [] });

function view(overrides = {}) {
  return {
    phase: "playing", hand: 1, scores: [0, 0], turn: 0, boneyard: 14, layout: layout(),
    seats: [{ seat: 0, name: "Ana", bot: false, tiles: 7 }, { seat: 1, name: "Bruno", bot: true, tiles: 7 }],
    seat: 0, tiles: [[6, 4], [1, 1]], legal: [{ tile: [6, 4], end: null, count: 10 }], can_call_muggins: false,
    winner_side: null, unclaimed: null, ...overrides,
  };
}

// A seated player (seat 0) welcomed at a table whose game has begun.
function seated() {
  version = 5;
  let state = initialState({ mode: "play" });
  state = reduce(state, { type: "sat", seat: 0, token: "t" });
  return reduce(state, { type: "welcome", table_id: "x", seat: 0, game: 1, version: 5, view: view({ turn: 1 }), turn_clock_seconds: 30, seconds_left: 20, life: null }, 1000);
}

let version = 5; // the last version a test's table is at
const event = (body, extra = {}) => ({ type: "event", game: 1, version: ++version, event: body, by: "system", parts: null, ...extra });
const viewMessage = (v, extra = {}) => ({ type: "view", game: 1, version, view: v, seconds_left: 30, spectators: 0, life: null, ...extra });

test("the reducer folds exactly the messages the server's schema has", () => {
  assert.deepEqual([...FOLDED].sort(), [...SERVER_MESSAGE_TYPES].sort());
  // Each is folded without throwing, even when it does not apply.
  const state = seated();
  for (const type of SERVER_MESSAGE_TYPES) {
    const next = reduce(state, { type, game: 99, version: 0, count: 2, id: 1, name: "n", seat: null, text: "hi", phrase: null, at: "", code: "x", message: "m", receipts: [], resolved: 0 });
    assert.ok(next);
  }
});

test("every event type the server may send is handled (none throws)", () => {
  for (const type of EVENT_TYPES) {
    const state = seated();
    const next = reduce(state, event({ type, hand: 1, seat: 1, tile: [6, 6], end: 0, count: 5, side: 1, points: 5, reason: "count", outcome: "domino", winner_side: 1, winner_seat: 1, pips: [3, 0], hands: [[[1, 2]], []], seed: "s", scores: [0, 61], leader: 0, leader_reason: "highest-double", commitment: "c", shuffle_version: 1, tile_count: 7 }));
    assert.equal(next.version, state.version + 1, type);
  }
});

test("the state given is never changed: every message gives a new one", () => {
  const state = seated();
  const frozen = JSON.stringify({ ...state, notices: [] });
  reduce(state, event({ type: "TilePlayed", hand: 1, seat: 1, tile: [5, 5], end: null, count: 10 }));
  reduce(state, viewMessage(view()));
  assert.equal(JSON.stringify({ ...state, notices: [] }), frozen);
});

test("an event already seen, or of another game, changes nothing", () => {
  const state = seated();
  assert.equal(reduce(state, { ...event({ type: "Passed", hand: 1, seat: 1 }), version: 3 }), state);
  assert.equal(reduce(state, { ...event({ type: "Passed", hand: 1, seat: 1 }), game: 2 }), state);
});

test("several draws are one line and one notice: 'Bruno drew 3', 'You drew 2'", () => {
  let state = seated();
  for (let i = 0; i < 3; i += 1) state = reduce(state, event({ type: "TileDrawn", hand: 1, seat: 1, tile: null }));
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 1, tile: [5, 5], end: null, count: 10 }, { by: "bot" }));
  state = reduce(state, event({ type: "TileDrawn", hand: 1, seat: 0, tile: [3, 2] }));
  state = reduce(state, event({ type: "TileDrawn", hand: 1, seat: 0, tile: [4, 2] }));
  const draws = state.history.filter((line) => line.kind === "draws");
  assert.deepEqual(draws.map((line) => [line.seat, line.n]), [[1, 3], [0, 2]]);
  // Told once the move's events are in (with the view after them).
  assert.deepEqual(state.notices, []);
  state = reduce(state, viewMessage(view({ tiles: [[6, 4], [1, 1], [3, 2], [4, 2]] })));
  assert.deepEqual(state.notices.filter((n) => n.kind === "drew"), [{ kind: "drew", seat: 0, n: 2 }, { kind: "drew", seat: 1, n: 3 }]);
  assert.deepEqual(state.notices.find((n) => n.kind === "drawn-tiles").tiles, [[3, 2], [4, 2]]);
  // Bruno's last move is his play, the board's last move the reader's draws.
  assert.deepEqual(state.lastMoves[1], { kind: "play", hand: 1, tile: [5, 5], end: null, count: 10 });
  assert.deepEqual(state.lastMove, { seat: 0, move: { kind: "draw", hand: 1, n: 2 } });
});

test("drawn tiles stay marked through the turn they came for, and not after the next one begins", () => {
  let state = seated(); // Bruno on turn
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 1, tile: [5, 5], end: null, count: 10 }));
  state = reduce(state, event({ type: "TileDrawn", hand: 1, seat: 0, tile: [3, 2] }));
  state = reduce(state, viewMessage(view({ turn: 0, tiles: [[6, 4], [1, 1], [3, 2]] })));
  assert.ok(myTurn(state));
  assert.ok(isDrawn(state, [2, 3]), "marked on the turn it was drawn for");
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 0, tile: [6, 4], end: 0, count: 10 }));
  state = reduce(state, viewMessage(view({ turn: 1, tiles: [[1, 1], [3, 2]] })));
  assert.ok(isDrawn(state, [3, 2]), "still marked until the reader's next turn");
  state = reduce(state, event({ type: "Passed", hand: 1, seat: 1 }));
  state = reduce(state, viewMessage(view({ turn: 0, tiles: [[1, 1], [3, 2]] })));
  assert.ok(!isDrawn(state, [3, 2]), "not new any more");
});

test("each seat's last move stays until its next one, and a new hand clears them", () => {
  let state = seated();
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 1, tile: [5, 5], end: null, count: 10 }));
  state = reduce(state, event({ type: "PointsScored", hand: 1, side: 1, seat: 1, points: 10, reason: "count" }));
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 0, tile: [6, 5], end: 0, count: 15 }));
  assert.equal(state.lastMoves[1].kind, "play");
  assert.deepEqual(state.lastMoves[1].tile, [5, 5]);
  // The last move is a move, never a score line.
  assert.equal(state.lastMove.seat, 0);
  state = reduce(state, event({ type: "HandStarted", hand: 2, leader: 0, leader_reason: "winner", commitment: "c2", shuffle_version: 1 }));
  assert.deepEqual(state.lastMoves, {});
  assert.equal(state.commitments[2], "c2");
});

test("scores go to the sheet with their parts, and are told live only", () => {
  let state = seated();
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 1, tile: [5, 5], end: null, count: 10 }, { parts: [5, 5] }));
  state = reduce(state, event({ type: "PointsScored", hand: 1, side: 1, seat: 1, points: 10, reason: "count" }));
  assert.deepEqual(state.sheet[1], [{ seat: 1, side: 1, points: 10, reason: "count", parts: [5, 5] }]);
  assert.deepEqual(state.notices, [{ kind: "points", seat: 1, points: 10 }]);
  // In a catch-up (a welcome without a view): folded, not told.
  let caught = reduce(initialState({ mode: "watch" }), { type: "welcome", table_id: "x", seat: null, game: 1, version: 0, view: null, turn_clock_seconds: 30 });
  assert.ok(caught.catchingUp);
  caught = reduce(caught, { type: "event", game: 1, version: 1, event: { type: "PointsScored", hand: 1, side: 0, seat: 0, points: 5, reason: "count" }, by: "player", parts: null });
  assert.deepEqual(caught.notices, []);
  assert.equal(caught.sheet[1].length, 1);
});

test("a hand's end met in a catch-up is shown once the view says the hand is over", () => {
  let state = reduce(initialState({ mode: "watch" }), { type: "welcome", table_id: "x", seat: null, game: 1, version: 0, view: null, turn_clock_seconds: 30 });
  const ended = { type: "HandEnded", hand: 1, outcome: "domino", winner_side: 0, winner_seat: 0, pips: [0, 7], hands: [[], [[1, 2]]], seed: "s" };
  state = reduce(state, { type: "event", game: 1, version: 1, event: ended, by: "system", parts: null });
  assert.equal(state.result, null);
  state = reduce(state, { type: "view", game: 1, version: 1, view: view({ phase: "between-hands", turn: null, seat: null, tiles: null }), spectators: 3 });
  assert.equal(state.result.hand, ended);
  assert.equal(state.catchingUp, false);
  // The server counts this page among the watchers: the reader is not "watching" itself.
  assert.equal(state.spectators, 2);
  assert.equal(reduce(state, { type: "close-result" }).result, null);
});

test("the game's end keeps the last hand's result and waits for the ratings of that game", () => {
  let state = seated();
  const ended = { type: "HandEnded", hand: 1, outcome: "domino", winner_side: 0, winner_seat: 0, pips: [0, 7], hands: [[], [[1, 2]]], seed: "s" };
  state = reduce(state, event(ended));
  state = reduce(state, event({ type: "GameEnded", winner_side: 0, scores: [61, 20] }));
  assert.equal(state.result.hand, ended);
  assert.deepEqual(state.result.gameOver.scores, [61, 20]);
  assert.equal(state.ratings, null);
  assert.equal(reduce(state, { type: "ratings", game: 7, ratings: null }), state, "another game's ratings are not this one's");
  const rated = { table_id: "x", game: 1, status: "rated", changes: [] };
  assert.deepEqual(reduce(state, { type: "ratings", game: 1, ratings: rated }).ratings, { game: 1, ratings: rated, failed: false });
});

test("the clock's deadline starts from the page's clock when the message came", () => {
  const state = seated();
  assert.equal(state.deadline, 1000 + 20_000);
  assert.equal(reduce(state, viewMessage(view(), { seconds_left: null }), 5000).deadline, null);
});

test("a waiting table has no view and is not catching up", () => {
  const state = reduce(initialState({ mode: "play" }), { type: "welcome", table_id: "x", seat: 0, game: 0, version: 0, view: null, turn_clock_seconds: 30 });
  assert.equal(state.waiting, true);
  assert.equal(state.catchingUp, false);
});

test("the selection starts on a tile that fits when the turn comes round, and a pending tile waits for its end", () => {
  let state = seated();
  state = reduce(state, viewMessage(view({ turn: 0, tiles: [[1, 1], [6, 4]], legal: [{ tile: [6, 4], end: 0, count: 10 }, { tile: [6, 4], end: 1, count: 5 }] })));
  assert.equal(state.selected, 1);
  assert.deepEqual(state.notices, [{ kind: "turn" }]);
  assert.deepEqual(legalEnds(state.view, [6, 4]), [0, 1]);
  state = reduce(state, { type: "pending", tile: [6, 4], ends: [0, 1] });
  state = reduce(state, { type: "choose-end", index: 1 });
  assert.equal(state.pending.chosen, 1);
  assert.equal(reduce(state, { type: "choose-end", index: 5 }), state);
  // The turn passing on drops the pending tile.
  state = reduce(state, viewMessage(view({ turn: 1 })));
  assert.equal(state.pending, null);
});

test("chat lines are kept once each, in order, the newest hundred", () => {
  let state = seated();
  for (const id of [3, 1, 2, 2]) state = reduce(state, { type: "chat", id, name: "Ana", seat: 0, text: `${id}`, phrase: null, at: "" });
  assert.deepEqual(state.chat.map((line) => line.id), [1, 2, 3]);
  for (let id = 4; id < 200; id += 1) state = reduce(state, { type: "chat", id, name: "Ana", seat: 0, text: "", phrase: null, at: "" });
  assert.equal(state.chat.length, 100);
});

test("the history keeps its newest lines, and a new game is marked in it", () => {
  let state = seated();
  for (let i = 0; i < HISTORY_MAX + 10; i += 1) state = reduce(state, event({ type: "Passed", hand: 1, seat: i % 2 }));
  assert.equal(state.history.length, HISTORY_MAX);
  state = reduce(state, { type: "game", game: 2 });
  assert.deepEqual(state.history[state.history.length - 1], { kind: "game-over" });
  assert.deepEqual(state.sheet, {});
});

/**
 * Hand 1 won by domino at `winner` (its award and its end), then hand 2 dealt
 * with the winner to lead: the state and the HandEnded event.
 */
function firstHandWonBy(state, winner) {
  const loser = 1 - winner;
  const hands = [[], []];
  hands[loser] = [[1, 2]];
  const pips = [0, 0];
  pips[loser] = 7;
  const ended = { type: "HandEnded", hand: 1, outcome: "domino", winner_side: winner, winner_seat: winner, pips, hands, seed: "s" };
  state = reduce(state, event({ type: "PointsScored", hand: 1, side: winner, seat: winner, points: 5, reason: "domino" }));
  state = reduce(state, event(ended));
  assert.equal(state.result.folded, false);
  state = reduce(state, event({ type: "HandStarted", hand: 2, leader: winner, leader_reason: "winner", commitment: "c2", shuffle_version: 1 }));
  return { state, ended };
}

test("the reader's turn comes round after a move with no view between (a bot that answers at once)", () => {
  let state = seated();
  state = reduce(state, viewMessage(view({ hand: 1, turn: 0 })));
  const turns = state.turns;
  // Ana plays and Bruno answers before any view: the next view is Ana's turn again.
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 0, tile: [6, 4], end: null, count: 10, claim: null }));
  state = reduce(state, event({ type: "TilePlayed", hand: 1, seat: 1, tile: [4, 1], end: 1, count: 7, claim: null }));
  state = reduce(state, viewMessage(view({ hand: 1, turn: 0 })));
  assert.equal(state.turns, turns + 1);
  assert.ok(state.notices.some((notice) => notice.kind === "turn"), JSON.stringify(state.notices));
  // The same view again is no new turn.
  const again = reduce(state, viewMessage(view({ hand: 1, turn: 0 })));
  assert.equal(again.turns, turns + 1);
});

test("the reader who went out and leads the next hand finds the result folded, with no view between the hands", () => {
  let state = seated();
  state = reduce(state, viewMessage(view({ hand: 1, turn: 0 })));
  assert.equal(state.wasMyTurn, true);
  // The reader's last tile, the hand's end and the next deal come as events
  // with the next hand's view after them (the CI run where a result stayed
  // over the board through the reader's whole turn).
  let ended;
  ({ state, ended } = firstHandWonBy(state, 0));
  state = reduce(state, viewMessage(view({ hand: 2, turn: 0 })));
  assert.equal(state.result.folded, true);
  assert.equal(state.result.hand, ended);
});

test("a hint for another version is stale, and an error is told (but not a stale view)", () => {
  const state = seated();
  assert.equal(reduce(state, { type: "hint", game: 1, version: 4, tile: [6, 4], end: null, scores_now: 10, expected_points: 3 }), state);
  assert.equal(reduce(state, { type: "hint", game: 1, version: 5, tile: [6, 4], end: null, scores_now: 10, expected_points: 3 }).hint.scores_now, 10);
  assert.deepEqual(reduce(state, { type: "error", code: "stale-view", message: "m" }).notices, []);
  assert.deepEqual(reduce(state, { type: "error", code: "not-your-turn", message: "m" }).notices, [{ kind: "error", code: "not-your-turn", message: "m", retryAfter: null }]);
  // A spent budget's wait comes with it, for the toast to say.
  assert.deepEqual(reduce(state, { type: "error", code: "hint-rate-limited", message: "m", retry_after: 7 }).notices, [{ kind: "error", code: "hint-rate-limited", message: "m", retryAfter: 7 }]);
});

test("a hand's result folds into a strip when the reader's turn comes in the next hand, and opens again with a tap", () => {
  let state = seated(); // Bruno on turn in hand 1
  let ended;
  ({ state, ended } = firstHandWonBy(state, 1));
  // The next hand begins with Bruno on turn: the result stays open (no clock of the reader's runs).
  state = reduce(state, viewMessage(view({ hand: 2, turn: 1 })));
  assert.equal(state.result.folded, false);
  // The reader's turn: folded, the result kept whole.
  state = reduce(state, viewMessage(view({ hand: 2, turn: 0 })));
  assert.equal(state.result.folded, true);
  assert.equal(state.result.hand, ended);
  // Opened by the reader, it stays open through the same turn.
  state = reduce(state, { type: "unfold-result" });
  assert.equal(state.result.folded, false);
  state = reduce(state, viewMessage(view({ hand: 2, turn: 0 })));
  assert.equal(state.result.folded, false);
  // Closed, it opens again from the history, its award kept for its reckoning.
  state = reduce(state, { type: "close-result" });
  state = reduce(state, { type: "show-result", hand: 1 });
  assert.equal(state.result.hand, ended);
  assert.equal(state.awards.filter((award) => award.hand === 1).length, 1);
  assert.equal(reduce(state, { type: "show-result", hand: 5 }), state, "a hand not played shows nothing");
});
