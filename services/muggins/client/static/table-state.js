// @ts-check
// The table page's state as a fold: reduce(state, message, now) takes what
// the server sent (protocol-types.js, generated from the server's own
// Structs) or what the reader did on the page, and gives the next state.
// Pure: no DOM, no timers, no words (the render modules say things in the
// reader's language when they draw, so a language switch redraws it all).
// What the page should do once (a sound, a toast) is in `notices`, the
// facts the last message brought; table-effects.js acts on them.
//
// The old state is never changed: every message gives a new object (sharing
// what it did not change), so the node tests (tests/client/) can compare.

/** @typedef {import("./protocol-types.js").ServerMessage} ServerMessage */
/** @typedef {import("./protocol-types.js").GameView} GameView */
/** @typedef {import("./protocol-types.js").AnyEvent} AnyEvent */
/** @typedef {import("./protocol-types.js").HandEnded} HandEnded */
/** @typedef {import("./protocol-types.js").GameEnded} GameEnded */
/** @typedef {import("./protocol-types.js").PointsScored} PointsScored */
/** @typedef {import("./protocol-types.js").LifeView} LifeView */
/** @typedef {import("./protocol-types.js").ChatLine} ChatLine */
/** @typedef {import("./protocol-types.js").Hint} Hint */
/** @typedef {import("./protocol-types.js").TableInfo} TableInfo */
/** @typedef {NonNullable<import("./protocol-types.js").EventMessage["by"]>} MoveMaker */
/** @typedef {import("./protocol-types.js").RatingChanges} RatingChanges */
/** @typedef {[number, number]} Tile */

/**
 * What the reader does on the page (beside the server's messages).
 * @typedef {{type: "info", info: TableInfo}
 *   | {type: "sat", seat: number, token: string}
 *   | {type: "select", index: number}
 *   | {type: "pending", tile: Tile, ends: Array<number | null>}
 *   | {type: "choose-end", index: number}
 *   | {type: "cancel"}
 *   | {type: "played"}
 *   | {type: "close-result"}
 *   | {type: "unfold-result"}
 *   | {type: "show-result", hand: number}
 *   | {type: "ratings", game: number, ratings: RatingChanges | null, failed?: boolean}} PageAction
 */

/** @typedef {ServerMessage | PageAction} Message */

/**
 * One line of the history, kept as facts (told in words when drawn).
 * @typedef {{kind: "hand", hand: number}
 *   | {kind: "game-over"}
 *   | {kind: "event", event: AnyEvent, by: MoveMaker | null, forYou: boolean}
 *   | {kind: "draws", hand: number, seat: number, n: number}
 *   | {kind: "life", life: LifeView}} HistoryLine
 */

/**
 * The last thing a seat did this hand (shown on the board until its next move).
 * @typedef {{kind: "play", hand: number, tile: Tile, end: number | null, count: number}
 *   | {kind: "pass", hand: number}
 *   | {kind: "draw", hand: number, n: number}} SeatMove
 */

/**
 * What happened that the page tells once: a sound, a toast.
 * @typedef {{kind: "points", seat: number, points: number}
 *   | {kind: "drew", seat: number, n: number}
 *   | {kind: "passed", seat: number}
 *   | {kind: "turn"}
 *   | {kind: "hand-over"}
 *   | {kind: "game-over"}
 *   | {kind: "error", code: string, message: string, retryAfter: number | null}
 *   | {kind: "drawn-tiles", tiles: Tile[]}} Notice
 */

/**
 * @typedef {{seat: number, side: number, points: number, reason: string, parts: number[] | null}} SheetRow
 */

/** The most history lines the page keeps. */
export const HISTORY_MAX = 400;
/** The most chat lines the page keeps. */
export const CHAT_MAX = 100;

/**
 * @param {{mode?: "play" | "watch", seat?: {seat: number, token: string} | null}} options
 */
export function initialState({ mode = "play", seat = null } = {}) {
  return {
    mode,
    /** @type {{seat: number, token: string} | null} the reader's seat when playing */
    seat,
    /** @type {TableInfo | null} */
    info: null,
    game: 0,
    version: 0,
    /** @type {GameView | null} */
    view: null,
    /** Whether the welcome said no game has begun yet. */
    waiting: false,
    /** @type {Array<string | null>} the seats' names (null: nobody there) */
    names: [],
    /** How many watch, the reader not among them. */
    spectators: 0,
    /** @type {Record<number, string>} each hand's commitment (the seed's hash) */
    commitments: {},
    /** @type {PointsScored[]} this game's domino or blocked awards (for each hand's reckoning) */
    awards: [],
    /** @type {Record<number, SheetRow[]>} the score sheet: hand -> rows, this game */
    sheet: {},
    /** @type {{parts: number[], count: number} | null} the last count's parts, to pair with its score */
    lastParts: null,
    /** @type {Tile | null} the last tile played (highlighted on the board) */
    lastTile: null,
    /** Whether that tile came just now (it slides in), not in a catch-up. */
    arriving: false,
    /** @type {Record<number, SeatMove>} each seat's last move this hand */
    lastMoves: {},
    /** @type {{seat: number, move: SeatMove} | null} the last move at the table (a play, pass or draw) */
    lastMove: null,
    /** @type {Array<{tile: Tile, turn: number}>} tiles the reader drew, marked until its next turn */
    drawn: [],
    /** @type {Tile[]} tiles the reader drew since the last view, to slide in with it */
    arrivingDraws: [],
    /** How many of the reader's turns have begun (draws are marked until the next one). */
    turns: 0,
    /** @type {Record<number, number>} draws since the last view, by seat (told as one "drew 3") */
    drawsSinceView: {},
    /** @type {HistoryLine[]} */
    history: [],
    /**
     * The result over the board; folded into a strip under it once the
     * reader's turn comes in a later hand (their clock runs: the board and
     * the hand must show), unfolded again with a tap.
     * @type {{hand: HandEnded | null, gameOver: GameEnded | null, game: number, folded: boolean} | null}
     */
    result: null,
    /** @type {HandEnded | null} a hand's end met in a catch-up, shown once it is over */
    pendingResult: null,
    /** @type {GameEnded | null} */
    pendingGameOver: null,
    /** @type {{game: number, ratings: RatingChanges | null, failed: boolean} | null} */
    ratings: null,
    /** Replaying what was missed: no toasts, sounds or results until the view. */
    catchingUp: false,
    /** @type {number | null} when the clock on turn runs out (ms, on the page's clock) */
    deadline: null,
    /** @type {Hint | null} */
    hint: null,
    /** @type {ChatLine[]} */
    chat: [],
    /** @type {LifeView | null} */
    life: null,
    /** The tile selected in the hand. */
    selected: 0,
    /** @type {{tile: Tile, ends: Array<number | null>, chosen: number} | null} a tile waiting for its end */
    pending: null,
    wasMyTurn: false,
    /** Receipts came (the fairness card reads them), disputes changed: counters. */
    receipts: 0,
    disputes: 0,
    /** @type {Notice[]} what the last message brought, to be told once */
    notices: [],
  };
}

/** @typedef {ReturnType<typeof initialState>} TableState */

/**
 * The reader's seat, or null (a spectator, or not seated yet).
 * @param {TableState} state
 */
export function mySeat(state) {
  return state.mode === "play" && state.seat ? state.seat.seat : null;
}

/**
 * Whether the reader is on turn in a hand being played.
 * @param {TableState} state
 */
export function myTurn(state) {
  const view = state.view;
  return view !== null && view.phase === "playing" && view.turn !== null && view.turn === mySeat(state);
}

/**
 * Two sides of two seats each.
 * @param {GameView | null} view
 */
export function partnerships(view) {
  return Boolean(view && view.seats.length === 4 && view.scores.length === 2);
}

/**
 * @param {GameView | null} view
 * @param {number} seat
 */
export function sideOf(view, seat) {
  return partnerships(view) ? seat % 2 : seat;
}

/**
 * The ends `tile` may go to now.
 * @param {GameView | null} view
 * @param {Tile} tile
 */
export function legalEnds(view, tile) {
  if (!view) return [];
  return (view.legal ?? []).filter((l) => l.tile[0] === tile[0] && l.tile[1] === tile[1]).map((l) => l.end);
}

/**
 * @param {Tile | null | undefined} a
 * @param {Tile | null | undefined} b
 */
export function sameTile(a, b) {
  if (!a || !b) return false;
  return Math.min(a[0], a[1]) === Math.min(b[0], b[1]) && Math.max(a[0], a[1]) === Math.max(b[0], b[1]);
}

/**
 * Whether `tile` was drawn by the reader since its last turn began.
 * @param {TableState} state
 * @param {Tile} tile
 */
export function isDrawn(state, tile) {
  return state.drawn.some((d) => sameTile(d.tile, tile));
}

/**
 * Seats people sit in (a bot's move there is a bot playing for them).
 * @param {TableState} state
 */
export function peopleSeats(state) {
  return (state.info?.seats ?? []).map((s) => !s.bot_level);
}

/** The server's message types this reducer folds (tests/client compares them with the schema's). */
export const SERVER_MESSAGE_TYPES = Object.freeze([
  "welcome", "event", "view", "game", "spectators", "chat", "hint", "receipts", "disputes", "error", "pong",
]);

/**
 * The next state after `message`.
 * @param {TableState} state
 * @param {Message} message
 * @param {number} [now] the page's clock (ms) when it came: where a clock's seconds start
 * @returns {TableState}
 */
export function reduce(state, message, now = 0) {
  /** @type {TableState} */
  const next = { ...state, notices: [], arriving: false };
  switch (message.type) {
    case "welcome": {
      if (message.game !== state.game) newGame(next, message.game);
      next.game = message.game;
      next.version = message.version;
      next.deadline = deadline(message.seconds_left, now);
      if (message.life) setLife(next, message.life);
      next.waiting = message.game === 0 && !message.view;
      if (message.view) {
        next.catchingUp = false;
        setView(next, message.view);
      } else {
        // The missed events follow, then the view.
        next.catchingUp = message.game !== 0;
      }
      return next;
    }
    case "event":
      if (message.game !== state.game || message.version <= state.version) return state;
      next.version = message.version;
      onEvent(next, /** @type {AnyEvent} */ (message.event), message.by ?? null, message.parts ?? null);
      return next;
    case "view":
      if (message.game !== state.game) return state;
      next.version = message.version;
      next.spectators = watchers(state, message.spectators ?? 0);
      next.deadline = deadline(message.seconds_left, now);
      if (message.life) setLife(next, message.life);
      next.waiting = false;
      setView(next, message.view);
      if (state.catchingUp) finishCatchUp(next);
      return next;
    case "game":
      newGame(next, message.game);
      next.game = message.game;
      next.version = 0;
      return next;
    case "spectators":
      next.spectators = watchers(state, message.count);
      return next;
    case "chat": {
      if (state.chat.some((line) => line.id === message.id)) return state;
      next.chat = [...state.chat, message].sort((a, b) => a.id - b.id).slice(-CHAT_MAX);
      return next;
    }
    case "hint":
      if (message.game !== state.game || message.version !== state.version) return state; // the table moved on
      next.hint = message;
      return next;
    case "receipts":
      next.receipts = state.receipts + 1;
      return next;
    case "disputes":
      next.disputes = state.disputes + 1;
      return next;
    case "error":
      if (message.code !== "stale-view") next.notices = [{ kind: "error", code: message.code, message: message.message,
        retryAfter: message.retry_after ?? null }];
      return next;
    case "pong":
      return state;
    // ---- what the reader did
    case "info":
      next.info = message.info;
      if (!state.view) next.names = message.info.seats.map((s) => s.name ?? null);
      return next;
    case "sat":
      next.seat = { seat: message.seat, token: message.token };
      return next;
    case "select":
      next.selected = message.index;
      next.pending = null;
      return next;
    case "pending":
      next.pending = { tile: message.tile, ends: message.ends, chosen: 0 };
      return next;
    case "choose-end":
      if (!state.pending || message.index < 0 || message.index >= state.pending.ends.length) return state;
      next.pending = { ...state.pending, chosen: message.index };
      return next;
    case "cancel":
      next.pending = null;
      return next;
    case "played":
      next.pending = null;
      return next;
    case "close-result":
      if (!state.result) return state;
      next.result = null;
      return next;
    case "unfold-result":
      if (!state.result?.folded) return state;
      next.result = { ...state.result, folded: false };
      return next;
    case "show-result": {
      // A hand of this game, from the history: its result again, over the board.
      const ended = handEnded(state, message.hand);
      if (!ended) return state;
      next.result = { hand: ended, gameOver: null, game: state.game, folded: false };
      return next;
    }
    case "ratings":
      if (message.game !== state.result?.game) return state;
      next.ratings = { game: message.game, ratings: message.ratings, failed: Boolean(message.failed) };
      return next;
    default: {
      // Anything newer than this page is left alone (checked: every known type is above).
      /** @type {never} */
      const unknown = message;
      void unknown;
      return state;
    }
  }
}

/**
 * @param {number | null | undefined} secondsLeft
 * @param {number} now
 */
function deadline(secondsLeft, now) {
  return secondsLeft === null || secondsLeft === undefined ? null : now + secondsLeft * 1000;
}

// The server counts every page watching, this one too: the reader is not "watching" itself.
/**
 * @param {TableState} state
 * @param {number} count
 */
function watchers(state, count) {
  return state.mode === "watch" ? Math.max(0, count - 1) : count;
}

/**
 * @param {TableState} next
 * @param {HistoryLine} line
 */
function addHistory(next, line) {
  next.history = [...next.history, line].slice(-HISTORY_MAX);
}

/**
 * @param {TableState} next
 * @param {number} game
 */
function newGame(next, game) {
  if (game === next.game) return;
  next.awards = [];
  next.sheet = {};
  next.lastTile = null;
  next.lastMoves = {};
  next.lastMove = null;
  next.drawn = [];
  if (game > 1 && next.game !== 0) addHistory(next, { kind: "game-over" });
}

/**
 * @param {TableState} next
 * @param {number} hand
 * @param {SheetRow} row
 */
function addSheetRow(next, hand, row) {
  next.sheet = { ...next.sheet, [hand]: [...(next.sheet[hand] ?? []), row] };
}

/**
 * @param {TableState} next
 * @param {AnyEvent} event
 * @param {MoveMaker | null} by
 * @param {number[] | null} parts
 */
function onEvent(next, event, by, parts) {
  const live = !next.catchingUp;
  switch (event.type) {
    case "HandStarted":
      addHistory(next, { kind: "hand", hand: event.hand });
      next.commitments = { ...next.commitments, [event.hand]: event.commitment };
      next.lastTile = null;
      next.lastMoves = {};
      next.lastMove = null;
      next.sheet = { ...next.sheet, [event.hand]: next.sheet[event.hand] ?? [] };
      return;
    case "TilesDealt":
    case "SeedSealed":
    case "BoneyardStacked":
    case "GameStarted":
      return; // the replay's to tell
    case "TilePlayed": {
      // Forced draws and passes come in the append of the move before them,
      // so only a play says who made it.
      const forYou = by === "bot" && Boolean(peopleSeats(next)[event.seat]);
      addHistory(next, { kind: "event", event, by, forYou });
      next.lastTile = event.tile;
      next.arriving = live;
      next.lastParts = parts ? { parts, count: event.count } : null;
      moved(next, event.seat, { kind: "play", hand: event.hand, tile: event.tile, end: event.end, count: event.count });
      if (event.seat === mySeat(next)) next.drawn = next.drawn.filter((d) => !sameTile(d.tile, event.tile));
      // A play ends the turn it was made in: the reader's next turn comes
      // round even when no view came between (a bot that answers at once,
      // an opponent's forced pass sent with the play: no "your turn" sound).
      next.wasMyTurn = false;
      return;
    }
    case "TileDrawn": {
      // Several draws in a row are one line: "Bruno drew 3".
      const last = next.history[next.history.length - 1];
      if (last && last.kind === "draws" && last.seat === event.seat && last.hand === event.hand) {
        next.history = [...next.history.slice(0, -1), { ...last, n: last.n + 1 }];
      } else {
        addHistory(next, { kind: "draws", hand: event.hand, seat: event.seat, n: 1 });
      }
      const before = next.lastMoves[event.seat];
      const n = before && before.kind === "draw" ? before.n + 1 : 1;
      moved(next, event.seat, { kind: "draw", hand: event.hand, n });
      next.drawsSinceView = { ...next.drawsSinceView, [event.seat]: (next.drawsSinceView[event.seat] ?? 0) + 1 };
      const tile = /** @type {Tile | null | undefined} */ (event.tile);
      if (event.seat === mySeat(next) && tile) {
        next.drawn = [...next.drawn, { tile, turn: next.turns }];
        if (live) next.arrivingDraws = [...next.arrivingDraws, tile];
      }
      return;
    }
    case "Passed":
      addHistory(next, { kind: "event", event, by, forYou: false });
      moved(next, event.seat, { kind: "pass", hand: event.hand });
      if (live) next.notices = [...next.notices, { kind: "passed", seat: event.seat }];
      next.wasMyTurn = false; // (as a play)
      return;
    case "PointsScored": {
      addHistory(next, { kind: "event", event, by, forYou: false });
      const rowParts = event.reason === "count" && next.lastParts ? next.lastParts.parts : null;
      addSheetRow(next, event.hand, { seat: event.seat, side: event.side, points: event.points, reason: event.reason, parts: rowParts });
      if (event.reason === "domino" || event.reason === "blocked") next.awards = [...next.awards, event];
      if (live) next.notices = [...next.notices, { kind: "points", seat: event.seat, points: event.points }];
      return;
    }
    case "HandEnded":
      addHistory(next, { kind: "event", event, by, forYou: false });
      // The end of a hand ends every turn: when the reader who went out leads
      // the next hand too, their turn comes round again (even with no view
      // between the two, the hand's end and the next deal sent as one).
      next.wasMyTurn = false;
      if (live) {
        next.result = { hand: event, gameOver: null, game: next.game, folded: false };
        next.notices = [...next.notices, { kind: "hand-over" }];
      } else {
        next.pendingResult = event;
      }
      return;
    case "GameEnded":
      addHistory(next, { kind: "event", event, by, forYou: false });
      next.wasMyTurn = false;
      if (live) {
        next.result = { hand: next.result?.hand ?? lastHandEnded(next), gameOver: event, game: next.game, folded: false };
        next.ratings = null;
        next.notices = [...next.notices, { kind: "game-over" }];
      } else {
        next.pendingGameOver = event;
      }
      return;
    default: {
      /** @type {never} */
      const unknown = event;
      void unknown;
    }
  }
}

/**
 * Hand `hand`'s end in this game's history (null if it is not there).
 * @param {TableState} state
 * @param {number} hand
 */
function handEnded(state, hand) {
  for (let i = state.history.length - 1; i >= 0; i -= 1) {
    const line = state.history[i];
    if (line.kind === "game-over") return null; // an earlier game's
    if (line.kind === "event" && line.event.type === "HandEnded" && line.event.hand === hand) return line.event;
  }
  return null;
}

/**
 * The last hand's end in the history (a game's end comes right after it).
 * @param {TableState} next
 */
function lastHandEnded(next) {
  for (let i = next.history.length - 1; i >= 0; i -= 1) {
    const line = next.history[i];
    if (line.kind === "event" && line.event.type === "HandEnded") return line.event;
  }
  return null;
}

/**
 * @param {TableState} next
 * @param {number} seat
 * @param {SeatMove} move
 */
function moved(next, seat, move) {
  next.lastMoves = { ...next.lastMoves, [seat]: move };
  next.lastMove = { seat, move };
}

/**
 * @param {TableState} next
 * @param {GameView} view
 */
function setView(next, view) {
  const seat = mySeat(next);
  const before = next.view;
  next.view = view;
  next.names = view.seats.map((s) => s.name ?? null);
  const mine = view.phase === "playing" && view.turn !== null && view.turn === seat;
  if (next.pending && !mine) next.pending = null;
  if (view.tiles && next.selected >= view.tiles.length) next.selected = Math.max(0, view.tiles.length - 1);
  // A view with the same hand keeps what the hand showed; another hand starts afresh.
  if (before && before.hand !== view.hand) next.drawn = [];
  if (mine && !next.wasMyTurn) {
    // The turn comes round: the selection starts on a tile that fits, and
    // the tiles drawn before the last turn are not new any more.
    next.turns += 1;
    next.drawn = next.drawn.filter((d) => d.turn >= next.turns - 1);
    const first = (view.tiles ?? []).findIndex((tile) => legalEnds(view, tile).length > 0);
    if (first >= 0) next.selected = first;
    // The last hand's (or game's) result gives the board back while the
    // reader's clock runs: a strip under it, the whole result a tap away.
    const result = next.result;
    if (result && !result.folded && (result.game !== next.game || result.hand?.hand !== view.hand)) {
      next.result = { ...result, folded: true };
    }
    if (!next.catchingUp) next.notices = [...next.notices, { kind: "turn" }];
  }
  next.wasMyTurn = mine;
  if (next.hint && (next.hint.version !== next.version || next.hint.game !== next.game)) next.hint = null;
  // Draws are told once a move's events are all in: "You drew 3".
  if (!next.catchingUp) {
    for (const [drawer, n] of Object.entries(next.drawsSinceView)) {
      next.notices = [...next.notices, { kind: "drew", seat: Number(drawer), n }];
    }
    if (next.arrivingDraws.length) next.notices = [...next.notices, { kind: "drawn-tiles", tiles: next.arrivingDraws }];
  }
  next.drawsSinceView = {};
  next.arrivingDraws = [];
}

/**
 * @param {TableState} next
 */
function finishCatchUp(next) {
  next.catchingUp = false;
  const view = next.view;
  if (next.pendingResult && view && view.phase !== "playing") {
    next.result = { hand: next.pendingResult, gameOver: null, game: next.game, folded: false };
  }
  if (next.pendingGameOver && view && view.phase === "game-over") {
    next.result = { hand: next.result?.hand ?? next.pendingResult, gameOver: next.pendingGameOver, game: next.game, folded: false };
  }
  next.pendingResult = null;
  next.pendingGameOver = null;
  next.drawsSinceView = {};
}

/**
 * @param {TableState} next
 * @param {LifeView} life
 */
function setLife(next, life) {
  const before = next.life;
  next.life = life;
  if (life.kind === "closed" && before?.kind !== "closed") addHistory(next, { kind: "life", life });
  else if (before && life.choice && !before.choice) addHistory(next, { kind: "life", life });
}
