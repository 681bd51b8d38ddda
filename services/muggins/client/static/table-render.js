// @ts-check
// The table page drawn from its state (table-state.js): the status bar, the
// scores and the other seats, the board with each seat's last move, the
// hand, the end prompt, the muggins bar, the hint and the clock.  Drawing
// reads the state and changes only the page; what a click does goes back
// through `page` (table.js): a message to the reducer or to the server.
import { drawBoard, showsChosen, tileSvg } from "./board.js";
import { el, personName, sideNames } from "./common.js";
import { describeEvent, endName, endPhrase, language, t, tileText } from "./i18n.js";
import { isDrawn, legalEnds, mySeat, myTurn, partnerships, peopleSeats, sameTile, sideOf } from "./table-state.js";

/** @typedef {import("./table-state.js").TableState} TableState */
/** @typedef {import("./table-state.js").SeatMove} SeatMove */
/** @typedef {import("./table-state.js").HistoryLine} HistoryLine */
/** @typedef {import("./protocol-types.js").GameView} GameView */
/** @typedef {[number, number]} Tile */

/**
 * What the drawing needs of the page.
 * @typedef {Object} Page
 * @property {TableState} state
 * @property {(action: import("./table-state.js").PageAction) => void} dispatch
 * @property {(message: Record<string, unknown>, how?: {expectAnswer?: boolean}) => boolean} send
 * @property {(tile: Tile) => void} choose a tile clicked (or Enter on it)
 * @property {(tile: Tile, end: number | null) => void} play
 * @property {(index: number) => void} chooseEnd
 * @property {string} tableId
 * @property {() => void} askRatings the game's rating changes wanted (asked again until the leaderboard has them)
 * @property {() => void} disputed a dispute was sent from the page
 */

/** @param {string} id */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

// A phone's width: shorter words in the status bar, which never wraps.
export const NARROW = matchMedia("(max-width: 600px)");

/**
 * The guide of the table's game, in the reader's language.
 * @param {TableState} state
 */
export function guideAddress(state) {
  return `/guide/${encodeURIComponent(state.info?.preset ?? "playelephant")}?lang=${language()}`;
}

/**
 * The guide's answer to "How do I know the deal was fair?" (its questions
 * begin with it), for the plain words on fair play.
 * @param {TableState} state
 */
export function fairPlayGuide(state) {
  return `${guideAddress(state)}#faq`;
}

/** @param {number} seat */
export function seatLabel(seat) {
  return t("lobby.seat", { seat: seat + 1 });
}

/**
 * @param {TableState} state
 * @param {number} seat
 */
export function nameOf(state, seat) {
  const name = state.names[seat];
  return name === null || name === undefined ? seatLabel(seat) : personName(name);
}

/** The names the history and the words use (every seat has one). @param {TableState} state */
export function names(state) {
  const count = Math.max(state.names.length, state.view?.seats.length ?? 0, state.info?.seats.length ?? 0);
  return Array.from({ length: count }, (_, seat) => nameOf(state, seat));
}

/** @param {TableState} state */
export function sidesWords(state) {
  return state.view ? sideNames(state.view, (a, b) => t("side.pair", { a, b })) : [];
}

/** @param {number} n */
function tilesText(n) {
  return n === 1 ? t("table.tiles.one") : t("table.tiles", { n });
}

/**
 * @param {TableState} state
 * @param {number} seat
 */
function botBadge(state, seat) {
  const level = state.info?.seats?.[seat]?.bot_level;
  return el("span", { class: "badge bot" }, level ? t("bot.level", { level: t(`level.${level}`) }) : t("bot"));
}

/**
 * @param {TableState} state
 * @param {number} seat
 */
function isPartner(state, seat) {
  const me = mySeat(state);
  return me !== null && seat !== me && partnerships(state.view) && sideOf(state.view, seat) === sideOf(state.view, me);
}

// The table's board: tiles at least 26 px (their faces 24: issue #25), its frame
// scrolling past that.
const BOARD = { frame: /** @type {HTMLElement | null} */ (null), minTile: 26, maxTile: 44 };

function boardOptions() {
  BOARD.frame = $("board-frame");
  return BOARD;
}

/** Before a game begins: no board, no count, no boneyard (not zeros). */
export function renderWaiting() {
  $("turn").textContent = t("table.waiting");
  $("count").parentElement?.setAttribute("hidden", "");
  $("boneyard").hidden = true;
  drawBoard(/** @type {any} */ ($("layout")), null, boardOptions());
}

/**
 * Another seat as a chip: its number, its name, the tiles it holds (before
 * the badges: on a phone the row scrolls sideways, and the count a player
 * watches was the part cut off the screen), partner and bot badges.  The
 * name and the rest apart, so that a phone with three other seats can show
 * each as a small card of two lines (style.css).
 * @param {TableState} state
 * @param {GameView["seats"][number]} s
 * @param {boolean} playing
 */
function seatChip(state, s, playing) {
  const view = /** @type {GameView} */ (state.view);
  return el("span", {
    class: `opponent${view.turn === s.seat ? " on-turn" : ""}${isPartner(state, s.seat) ? " partner" : ""}`,
    dataset: { seat: String(s.seat) },
  }, el("span", { class: "seat-number" }, `${s.seat + 1}`), " ", el("span", { class: "seat-name" }, nameOf(state, s.seat)),
  el("span", { class: "seat-details" },
    playing ? el("span", { class: "tiles-left" }, el("span", { class: "separator" }, " · "), tilesText(s.tiles)) : null,
    isPartner(state, s.seat) ? el("span", { class: "badge partner" }, t("partner")) : null,
    s.bot ? botBadge(state, s.seat) : null));
}

/**
 * Everything the state shows.
 * @param {Page} page
 */
export function render(page) {
  const state = page.state;
  const view = state.view;
  renderHistory(state);
  renderSpectators(state);
  if (!view) {
    if (state.waiting) renderWaiting();
    return;
  }
  const seat = mySeat(state);
  // Between hands there is no board, no boneyard and no tiles: not zeros.
  const playing = view.phase === "playing";
  $("hand-number").textContent = view.hand ? t("table.hand", { hand: view.hand }) : "";
  $("count").parentElement?.toggleAttribute("hidden", !playing);
  $("count").textContent = String(view.layout.count);
  const parts = view.layout.count_parts || [];
  // A phone's status bar cut "(4 + 4 + 2)" after its first number: there, no spaces.
  const plus = NARROW.matches ? "+" : " + ";
  $("count-parts").textContent = parts.length > 1 && view.layout.count > 0 ? `(${parts.join(plus)})` : "";
  $("boneyard").hidden = !playing;
  $("boneyard").textContent = t("table.boneyard", { n: view.boneyard });
  const turn = $("turn");
  turn.classList.toggle("mine", view.turn !== null && view.turn === seat);
  const turnText = view.turn === null ? "" : view.turn === seat ? t("table.yourTurn") : t("table.turn", { name: nameOf(state, view.turn) });
  // (a phone's status bar has room for "Your turn" only: the green tiles say the rest)
  turn.textContent = view.turn === seat && NARROW.matches ? t("table.yourTurnShort") : turnText;
  turn.title = turnText;
  renderClock(state);
  // Each seat once (the walk of a newcomer read "Bruno 0" beside "2 Bruno ·
  // 7 tiles", and both partners twice in four seats).  A player among
  // partners reads the sides as a score sheet does, "Us" and "Them", the
  // seats after them in their order; otherwise each side's score stands
  // beside its players: the reader by name, everyone else as a chip with
  // the tiles they hold and their badges.
  const mySide = seat === null ? null : sideOf(view, seat);
  if (seat !== null && partnerships(view)) {
    $("scores").replaceChildren(...view.scores.map((points, side) => el("span", {
      class: `side${side === mySide ? " mine" : ""}`, dataset: { side: String(side) },
    }, t(side === mySide ? "side.us" : "side.them"), el("strong", {}, points))));
    $("opponents").replaceChildren(...view.seats.filter((s) => s.seat !== seat).map((s) => seatChip(state, s, playing)));
    renderRest(page);
    return;
  }
  $("opponents").replaceChildren();
  $("scores").replaceChildren(...view.scores.map((points, side) => {
    const members = view.seats.filter((s) => sideOf(view, s.seat) === side);
    const people = members.flatMap((s, index) => [
      index ? el("span", { class: "side-and" }, t("side.and")) : null,
      s.seat === seat ? el("span", { class: "me" }, nameOf(state, s.seat)) : seatChip(state, s, playing)]);
    return el("span", { class: `side${side === mySide ? " mine" : ""}`, dataset: { side: String(side) } },
      ...people, el("strong", {}, points));
  }));
  renderRest(page);
}

/**
 * The board, the hand and what goes with them.
 * @param {Page} page
 */
function renderRest(page) {
  const state = page.state;
  renderBoard(page);
  renderLastMoves(state);
  renderHand(page);
  renderPrompt(page);
  renderMuggins(page);
  renderHintBar(page);
}

/** @param {Page} page */
function renderBoard(page) {
  const state = page.state;
  const view = /** @type {GameView} */ (state.view);
  const pending = state.pending;
  const layout = $("layout");
  layout.dataset.arms = String(view.layout.arms.filter((arm) => arm.tiles.length).length);
  // The other seats' last plays this hand stay marked (each in its seat's corner colour).
  const others = view.phase === "playing" ? othersLastPlays(state) : [];
  drawBoard(/** @type {any} */ (layout), view.layout, {
    ...boardOptions(),
    targets: pending ? pending.ends.filter((end) => end !== null) : [],
    pending: pending ? pending.tile : null,
    chosen: pending ? pending.ends[pending.chosen] : null,
    // (read when called: a board left as it was keeps the listeners of its first drawing)
    onTarget: (/** @type {number} */ end) => {
      const now = page.state.pending;
      if (now) page.play(now.tile, end);
    },
    // Pointing at an end chooses it (and its button shows so), as ↑ ↓ do.
    onChoose: (/** @type {number} */ end) => {
      const now = page.state.pending;
      if (now) page.chooseEnd(now.ends.indexOf(end));
    },
    endLabel: endName,
    last: state.lastTile,
    animate: state.arriving,
    marked: others,
  });
  describeBoard(state);
}

/** @param {TableState} state */
function othersLastPlays(state) {
  const me = mySeat(state);
  /** @type {Array<{seat: number, tile: Tile}>} */
  const plays = [];
  for (const [seat, move] of Object.entries(state.lastMoves)) {
    if (Number(seat) !== me && move.kind === "play") plays.push({ seat: Number(seat), tile: move.tile });
  }
  return plays;
}

/**
 * A seat's last move in a few words ("6-4 right", "passed", "drew 3").
 * @param {SeatMove} move
 */
function moveWords(move) {
  if (move.kind === "pass") return t("table.moved.pass");
  if (move.kind === "draw") return move.n === 1 ? t("table.moved.drewOne") : t("table.moved.drew", { n: move.n });
  return move.end === null ? t("table.moved.led", { tile: tileText(move.tile) })
    : t("table.moved.play", { tile: tileText(move.tile), end: endName(move.end) });
}

/**
 * The last move at the table in a sentence (for screen readers, read out when it changes).
 * @param {TableState} state
 */
export function lastMoveSentence(state) {
  const last = state.lastMove;
  if (!last) return "";
  const name = nameOf(state, last.seat);
  const move = last.move;
  if (move.kind === "pass") return t("ev.Passed", { name });
  if (move.kind === "draw") return move.n === 1 ? t("toast.drewOne", { name }) : t("toast.drew", { name, n: move.n });
  return move.end === null
    ? t("ev.TileLed", { name, tile: tileText(move.tile), count: move.count })
    : t("ev.TilePlayed", { name, tile: tileText(move.tile), at: endPhrase(move.end), count: move.count });
}

// Under the board, in the felt's strip: what each other seat did last this
// hand ("Bruno 6-4 right · Carla drew 2"), there until its next move.
/** @param {TableState} state */
function renderLastMoves(state) {
  const me = mySeat(state);
  const view = state.view;
  const strip = $("last-move");
  const seats = view && view.phase === "playing" ? view.seats.map((s) => s.seat).filter((s) => s !== me) : [];
  const items = seats.filter((seat) => state.lastMoves[seat]).map((seat) => el("span", {
    class: `seat-move${state.lastMove?.seat === seat ? " latest" : ""}`, dataset: { seat: String(seat) },
  }, el("strong", {}, nameOf(state, seat)), " ", moveWords(state.lastMoves[seat])));
  const parts = items.flatMap((item, index) => (index ? [" · ", item] : [item]));
  // An empty felt on your turn said nothing: a newcomer did not know they lead.
  const leading = view && view.phase === "playing" && !view.layout.lead && me !== null && view.turn === me;
  // (a preset where the highest double leads allows one tile: it is the green one)
  const free = leading && view.tiles.every((tile) => legalEnds(view, tile).length > 0);
  strip.replaceChildren(...(leading
    ? [el("span", { class: "you-lead" }, t(free ? "table.youLead" : "table.youLeadThis"))] : parts));
  strip.title = strip.textContent ?? "";
  // The last hand's result, folded, lies in this strip: over an empty board
  // it moves up onto the felt, so that "You lead" stays read (the winner who
  // leads the next hand found only "Your turn" and the folded result).
  $("felt").classList.toggle("leading", Boolean(leading));
}

// The board in words, for screen readers: each open end, the count; the
// last move (a play, a pass or a draw, never a score) in its own live region.
/** @param {TableState} state */
function describeBoard(state) {
  const layout = /** @type {GameView} */ (state.view).layout;
  let text;
  if (!layout.lead) {
    text = t("table.boardEmpty");
  } else {
    const ends = layout.arms.filter((arm) => arm.open !== null)
      .map((arm) => t("table.boardEnd", { end: endName(arm.end), n: arm.open }));
    text = `${ends.join(", ")}; ${t("table.boardCount", { count: layout.count })}.`;
  }
  $("board-description").textContent = t("table.board", { description: text });
  const sentence = lastMoveSentence(state);
  const live = $("last-move-live");
  const said = sentence ? t("table.lastMove", { move: sentence }) : "";
  if (live.textContent !== said) live.textContent = said;
}

/** @param {Page} page */
function renderHand(page) {
  const state = page.state;
  const view = /** @type {GameView} */ (state.view);
  const hand = $("hand");
  if (state.mode !== "play" || !view.tiles) {
    hand.hidden = true;
    $("keys").hidden = true;
    return;
  }
  hand.hidden = false;
  $("keys").hidden = false;
  hand.setAttribute("aria-label", t("table.yourHand"));
  const mine = myTurn(state);
  const tiles = view.tiles;
  // What each button shows.  The page is drawn again for every message; the
  // hand, rebuilt and its focus restored each time, was the largest part of
  // that (more than the board), though most messages leave it as it was.
  const buttons = tiles.map((tile, index) => {
    const legal = mine && legalEnds(view, tile).length > 0;
    const drawn = isDrawn(state, tile);
    return {
      tile, index, legal,
      classes: `tile-button${legal ? " legal" : ""}${index === state.selected ? " selected" : ""}${state.hint !== null && sameTile(state.hint.tile, tile) ? " hinted" : ""}${drawn ? " drawn" : ""}`,
      // One name for a tile everywhere ("6-4"), "drawn" said too.
      label: drawn ? t("table.tileDrawn", { tile: tileText(tile) }) : tileText(tile),
    };
  });
  const shown = JSON.stringify(buttons.map(({ tile, classes, label }) => [tile, classes, label]));
  if (handShown.get(hand) === shown) return;
  handShown.set(hand, shown);
  const focusedIndex = [...hand.querySelectorAll(".tile-button")].indexOf(/** @type {Element} */ (document.activeElement));
  hand.replaceChildren(...buttons.map(({ tile, index, legal, classes, label }) => {
    const picture = tileSvg(tile);
    picture.setAttribute("aria-hidden", "true");
    // Selected as an option is.
    return el("button", {
      type: "button",
      role: "option",
      class: classes,
      "aria-label": label,
      "aria-disabled": legal ? "false" : "true",
      "aria-selected": index === state.selected ? "true" : "false",
      dataset: { tile: tileText(tile), legal: legal ? "true" : "false" },
      onclick: () => { page.dispatch({ type: "select", index }); page.choose(tile); },
    }, picture);
  }));
  if (focusedIndex >= 0) /** @type {HTMLElement | undefined} */ (hand.querySelectorAll(".tile-button")[Math.min(focusedIndex, tiles.length - 1)])?.focus();
}

/** What each hand element last showed (renderHand), to leave it be when that has not changed.
 * @type {WeakMap<HTMLElement, string>} */
const handShown = new WeakMap();

// A casual table's hint: the expert's play for my turn, asked for.
/** @param {Page} page */
function renderHintBar(page) {
  const state = page.state;
  const bar = $("hint-bar");
  const casual = Boolean(state.info?.ruleset?.hints) && state.mode === "play";
  bar.hidden = !casual;
  /** @type {HTMLButtonElement} */ ($("hint-button")).disabled = !myTurn(state);
  const text = $("hint-text");
  const hint = state.hint;
  if (hint) {
    // In words a player uses: "Best: 6-4 on the right: scores 10 now".
    const where = hint.end === null ? t("table.hintLead", { tile: tileText(hint.tile) })
      : t("table.hintPlay", { tile: tileText(hint.tile), at: endPhrase(hint.end) });
    text.textContent = hint.scores_now > 0 ? t("table.hintScores", { play: where, points: hint.scores_now })
      : t("table.hintBest", { play: where });
  } else if (text.dataset.asked !== "true") {
    text.textContent = "";
  }
}

/** @param {Page} page */
function renderPrompt(page) {
  const state = page.state;
  const prompt = $("prompt");
  const pending = state.pending;
  if (!pending) {
    prompt.hidden = true;
    return;
  }
  prompt.hidden = false;
  // In the felt's strip, right above the hand: nothing moves.
  prompt.setAttribute("aria-label", t("table.chooseEnd"));
  prompt.replaceChildren(
    el("span", { class: "prompt-text" }, t("table.whichEnd")),
    ...pending.ends.map((end, index) => el("button", {
      type: "button", class: `secondary end-choice${index === pending.chosen ? " chosen" : ""}`,
      dataset: { end: String(end) }, "aria-pressed": index === pending.chosen ? "true" : "false",
      onclick: () => page.play(pending.tile, end),
      onpointerenter: () => page.chooseEnd(index),
      onfocus: () => page.chooseEnd(index),
      "aria-label": endChoice(state, pending.tile, end),
    }, endChoice(state, pending.tile, end, "table.endCountShort"))),
    el("button", { type: "button", class: "secondary", id: "cancel-end", "aria-label": t("table.cancel"), title: t("table.cancel"),
      onclick: () => page.dispatch({ type: "cancel" }) }, "✕"),
  );
}

// The end chosen (by ↑ ↓, or pointing at a target or a button): one colour
// for it on the board and in the prompt, without drawing either again (a
// redraw would lose the pointer and the focus).
/** @param {TableState} state */
export function showChosenEnd(state) {
  const pending = state.pending;
  if (!pending) return;
  const chosen = pending.ends[pending.chosen];
  showsChosen(/** @type {any} */ ($("layout")), chosen);
  for (const target of $("layout").querySelectorAll(".end-target")) {
    target.classList.toggle("chosen", Number(/** @type {HTMLElement} */ (target).dataset.end) === chosen);
  }
  for (const button of $("prompt").querySelectorAll(".end-choice")) {
    const mine = Number(/** @type {HTMLElement} */ (button).dataset.end) === chosen;
    button.classList.toggle("chosen", mine);
    button.setAttribute("aria-pressed", mine ? "true" : "false");
  }
}

/**
 * "left → count 10" (`words`: "left → 10") where the table shows the count a play leaves.
 * @param {TableState} state
 * @param {Tile} tile
 * @param {number | null} end
 * @param {string} [words]
 */
function endChoice(state, tile, end, words = "table.endCount") {
  const legal = (state.view?.legal ?? []).find((l) => l.tile[0] === tile[0] && l.tile[1] === tile[1] && l.end === end);
  const name = end === null ? "" : endName(end);
  return legal && legal.count !== null && legal.count !== undefined ? t(words, { end: name, count: legal.count }) : name;
}

/** @type {HTMLInputElement | null} */
let claimInput = null;

/** What the player typed in the claim box (0 when nothing). */
export function claimed() {
  return Number(/** @type {HTMLInputElement | null} */ (document.getElementById("claim"))?.value || 0);
}

export function clearClaim() {
  if (claimInput) claimInput.value = "";
}

// The muggins rule's claim box and call button, right under the status bar
// (where a player looks), and what an opponent left unclaimed.
/** @param {Page} page */
function renderMuggins(page) {
  const state = page.state;
  const view = /** @type {GameView} */ (state.view);
  const bar = $("muggins-bar");
  const rules = state.info?.ruleset;
  if (state.mode !== "play" || !rules?.muggins_rule) {
    bar.hidden = true;
    return;
  }
  bar.hidden = false;
  const focused = document.activeElement === claimInput;
  const typed = claimInput?.value ?? "";
  const parts = [];
  if (view.phase === "playing") {
    claimInput = /** @type {HTMLInputElement} */ (el("input", { type: "number", id: "claim", min: 0, max: 1000, step: 1, value: typed, "aria-describedby": "claim-hint" }));
    parts.push(el("label", { for: "claim", class: "inline-label" }, t("table.claim")), claimInput);
  }
  parts.push(el("span", { class: "muted", id: "claim-hint" }, t("table.claimHint")));
  if (view.can_call_muggins && view.unclaimed) {
    parts.push(el("p", { class: "unclaimed", id: "unclaimed", role: "alert" },
      t("table.unclaimed", { name: nameOf(state, view.unclaimed.seat), points: view.unclaimed.points })));
  }
  if (view.can_call_muggins) {
    parts.push(el("button", { type: "button", id: "call-muggins", onclick: () => page.send({ type: "muggins", known_version: state.version }) }, t("table.muggins")));
  }
  bar.replaceChildren(...parts);
  if (focused && claimInput && claimInput.isConnected) claimInput.focus();
}

/**
 * The clock of the seat on turn, in whole seconds; drawn with the view (so
 * it shows the instant a turn begins) and every quarter second after.
 * @param {TableState} state
 * @returns {number | null} the seconds shown
 */
export function renderClock(state) {
  const clock = $("clock");
  if (state.deadline === null || !state.view || state.view.turn === null) {
    showClock(clock, "", "", false);
    return null;
  }
  const seconds = Math.max(0, Math.ceil((state.deadline - performance.now()) / 1000));
  // A long clock (a table against bots has minutes) reads as minutes: 4:59, not 299 s.
  const left = { s: seconds, m: Math.floor(seconds / 60), ss: String(seconds % 60).padStart(2, "0") };
  const words = t(seconds >= 60 ? "table.clockMinutes" : "table.clock", left);
  // A phone's row beside "Your turn" has room for the time alone ("4:59"):
  // with "Clock: " it cut the count's sum in the row above (issue #25, CI).
  showClock(clock, NARROW.matches
    ? t(seconds >= 60 ? "table.clockMinutesShort" : "table.clockShort", left) : words,
  words, seconds <= 10);
  return seconds;
}

/**
 * The clock's text, title and warning colour, each written only when it
 * changes: the clock is redrawn four times a second, and a write of the
 * same text still makes the browser lay out and paint a new frame (three
 * frames in four, for as long as a table page is open).
 * @param {HTMLElement} clock
 * @param {string} text
 * @param {string} title
 * @param {boolean} low
 */
function showClock(clock, text, title, low) {
  if (clock.textContent !== text) clock.textContent = text;
  if (clock.title !== title) clock.title = title;
  if (clock.classList.contains("low") !== low) clock.classList.toggle("low", low);
}

/** @param {TableState} state */
function renderSpectators(state) {
  $("spectators").textContent = state.spectators ? t("table.spectators", { n: state.spectators }) : "";
}

// ------------------------------------------------------------------ history

/** @type {HistoryLine[] | null} */
let drawnHistory = null;
let drawnLanguage = "";
let drawnGameStart = 0;

/**
 * One history line in the reader's words.
 * @param {TableState} state
 * @param {HistoryLine} line
 * @returns {{text: string, kind: string | null}}
 */
function historyText(state, line, everyName = names(state)) {
  switch (line.kind) {
    case "hand":
      return { text: t("table.hand", { hand: line.hand }), kind: "log-heading log-hand" };
    case "game-over":
      return { text: t("table.gameOver"), kind: "log-heading log-game" };
    case "draws": {
      const name = everyName[line.seat] ?? seatLabel(line.seat);
      const mine = line.seat === mySeat(state);
      const text = mine ? (line.n === 1 ? t("toast.youDrewOne") : t("toast.youDrew", { n: line.n }))
        : line.n === 1 ? t("toast.drewOne", { name }) : t("toast.drew", { name, n: line.n });
      return { text, kind: "draws" };
    }
    case "life":
      return { text: lifeWords(line.life, state), kind: "log-life" };
    case "event": {
      const text = describeEvent(line.event, everyName, { by: line.by, people: peopleSeats(state), me: mySeat(state) }) ?? "";
      const kind = line.event.type === "PointsScored" ? "score" : line.forYou ? "for-you" : null;
      return { text, kind };
    }
    default:
      return { text: "", kind: null };
  }
}

/** @type {(life: import("./protocol-types.js").LifeView, state: TableState) => string} */
let lifeWords = () => "";

/** How the table's life is told in the history (table-life.js gives it). @param {typeof lifeWords} words */
export function tellLifeWith(words) {
  lifeWords = words;
}

/**
 * The history, from the state: drawn anew when the language changes (every
 * line in the reader's words), else only the lines that came.
 * @param {TableState} state
 */
export function renderHistory(state, { force = false } = {}) {
  const list = $("log");
  const language = document.documentElement.lang;
  const lines = state.history;
  const everyName = names(state);
  // Where this game's lines begin: its hands' results open again from there
  // (an earlier game's are its replay's to show).
  let gameStart = lines.length;
  while (gameStart > 0 && lines[gameStart - 1].kind !== "game-over") gameStart -= 1;
  const same = !force && drawnHistory !== null && language === drawnLanguage && gameStart === drawnGameStart
    && drawnHistory.length <= lines.length && drawnHistory.every((line, i) => line === lines[i]);
  if (same && drawnHistory && drawnHistory.length === lines.length) return;
  const start = same && drawnHistory ? drawnHistory.length : 0;
  // A line that grew ("drew 2" -> "drew 3") is the same line told again.
  const items = lines.slice(start).map((line, i) => {
    const { text, kind } = historyText(state, line, everyName);
    if (!text) return null;
    const again = start + i >= gameStart && line.kind === "event" && line.event.type === "HandEnded"
      ? el("button", { type: "button", class: "secondary small result-again", dataset: { resultHand: String(line.event.hand) } }, t("table.resultAgain"))
      : null;
    return el("li", { class: kind }, text, again ? " " : null, again);
  }).filter((item) => item !== null);
  if (start === 0) list.replaceChildren(...items);
  else list.append(...items);
  drawnHistory = lines;
  drawnLanguage = language;
  drawnGameStart = gameStart;
  keepLastLineInView(list);
}

// The history shows its last line.  Scrolled at the next frame, when the
// browser lays the page out anyway: read at once, the list's height laid
// out what was drawn so far, and the board's box, read next, made it lay
// the page out again.  The list scrolls on a wide screen, the drawer it
// lies in on a narrow one (style.css): both are scrolled (the one that
// does not overflow stays where it is).
let scrollQueued = false;
/** @param {HTMLElement} list */
export function keepLastLineInView(list) {
  if (scrollQueued) return;
  scrollQueued = true;
  requestAnimationFrame(() => {
    scrollQueued = false;
    list.scrollTop = list.scrollHeight;
    const drawer = list.closest(".history-card");
    if (drawer) drawer.scrollTop = drawer.scrollHeight;
  });
}
