// @ts-check
// A hand's result and the game's end, over the board (the state's `result`):
// how the hand ended, the final board, what each seat held, the score lines,
// the fairness proof; at the game's end the winner, the final scores, each
// person's rating change and the ways on (rematch, a new game, the lobby).
import { drawBoard, tileSvg } from "./board.js";
import { api, el, personName } from "./common.js";
import { openDisputeDialog, receiptButton } from "./evidence.js";
import { t, tileText } from "./i18n.js";
import { $, fairPlayGuide, nameOf, names, seatLabel, sidesWords } from "./table-render.js";
import { mySeat, myTurn } from "./table-state.js";

/** @typedef {import("./table-render.js").Page} Page */
/** @typedef {import("./table-state.js").TableState} TableState */
/** @typedef {import("./table-state.js").SheetRow} SheetRow */
/** @typedef {import("./protocol-types.js").HandEnded} HandEnded */
/** @typedef {import("./protocol-types.js").GameEnded} GameEnded */

/**
 * A score line in words ("Ana scores 10 (5 + 5 = 10)").
 * @param {TableState} state
 * @param {SheetRow} row
 */
export function scoreLine(state, row) {
  const name = nameOf(state, row.seat);
  const what = t(`ev.PointsScored.${row.reason}`, { name, points: row.points });
  return row.parts && row.parts.length > 1 ? `${what} (${row.parts.join(" + ")} = ${row.parts.reduce((a, b) => a + b, 0)})` : what;
}

// What is on show now, so that a redraw with the same result keeps the box
// (its scroll, its focus, the replay's board it fetched), folded or not.
/** @type {{hand: HandEnded | null, gameOver: GameEnded | null, game: number} | null} */
let shown = null;
let shownLanguage = "";
let shownRatings = /** @type {unknown} */ (null);

/** @param {Page} page */
export function renderResult(page) {
  const state = page.state;
  const box = $("result");
  const result = state.result;
  if (!result) {
    if (!box.hidden) {
      box.hidden = true;
      box.replaceChildren();
      box.classList.remove("folded");
    }
    shown = null;
    return;
  }
  const language = document.documentElement.lang;
  const same = shown !== null && shown.hand === result.hand && shown.gameOver === result.gameOver && shown.game === result.game;
  if (!same || shownLanguage !== language || shownRatings !== state.ratings) {
    const again = same && shownLanguage === language;
    const scroll = box.scrollTop;
    box.replaceChildren(el("button", { type: "button", class: "secondary close-result", id: "close-result", "aria-label": t("table.close"), onclick: () => page.dispatch({ type: "close-result" }) }, "✕", el("span", { class: "close-word" }, ` ${t("table.close")}`)));
    if (result.gameOver) box.append(gameOverCard(page, result.gameOver));
    if (result.hand && result.gameOver) {
      // The game's end leads; the last hand's result is a click away (the felt holds both no more).
      box.append(el("details", { class: "last-hand", id: "last-hand" },
        el("summary", {}, t("table.handOver", { hand: result.hand.hand })), handCard(page, result.hand)));
    } else if (result.hand) {
      box.append(handCard(page, result.hand));
    }
    box.hidden = false;
    if (again) box.scrollTop = scroll;
    shown = result;
    shownLanguage = language;
    shownRatings = state.ratings;
    $("toast").hidden = true;
  }
  renderFolded(page);
  renderNextHand(page);
}

// Folded (the reader's turn came in a later hand): one line in the felt's
// bottom strip, the board and the hand free to play; the whole result a tap away.
/** @param {Page} page */
function renderFolded(page) {
  const result = /** @type {NonNullable<TableState["result"]>} */ (page.state.result);
  const box = $("result");
  const wasFolded = box.classList.contains("folded");
  box.classList.toggle("folded", result.folded);
  box.querySelector("#result-strip")?.remove();
  if (!result.folded) {
    if (wasFolded) /** @type {HTMLElement | null} */ (box.querySelector("#close-result"))?.focus();
    return;
  }
  // (focus left on a part now hidden would swallow the keys that play)
  if (box.contains(document.activeElement)) /** @type {HTMLElement} */ (document.activeElement).blur();
  // A phone scrolled down to read the result would have the board above the
  // screen once it folds: the board comes back into view for the turn.
  if (!wasFolded && $("board-frame").getBoundingClientRect().top < 0) $("board-frame").scrollIntoView({ block: "start" });
  const summary = result.gameOver
    ? `${t("table.gameOver")}: ${gameOverText(page.state, result.gameOver)}`
    : result.hand ? t("table.handSummary", { hand: result.hand.hand, outcome: outcomeText(page.state, result.hand) }) : "";
  box.prepend(el("div", { class: "result-strip", id: "result-strip" },
    el("span", { class: "result-summary", title: summary }, summary),
    el("button", { type: "button", class: "small", id: "open-result", onclick: () => page.dispatch({ type: "unfold-result" }) }, t("table.seeResult"))));
}

/**
 * How a hand ended, in a sentence.
 * @param {TableState} state
 * @param {HandEnded} event
 */
function outcomeText(state, event) {
  const everyName = names(state);
  const blockedAward = state.awards.find((award) => award.hand === event.hand && award.reason === "blocked");
  return event.outcome === "domino"
    ? t("table.domino", { name: event.winner_seat === null ? "" : everyName[event.winner_seat] ?? "" })
    : event.outcome === "blocked"
      ? (blockedAward ? t("table.blockedWinner", { name: everyName[blockedAward.seat] ?? "", pips: event.pips[blockedAward.seat] }) : t("table.blocked"))
      : t("table.targetReached");
}

// While the last hand's result is open, the next hand may begin (and the
// clock run): the result says so, with a way back to the table.
/** @param {Page} page */
function renderNextHand(page) {
  const state = page.state;
  const view = state.view;
  const box = $("result");
  const shownHand = box.querySelector("#hand-over");
  const notice = box.querySelector("#next-hand");
  const hand = /** @type {HTMLElement | null} */ (shownHand)?.dataset.hand;
  if (!view || box.hidden || !hand || view.phase !== "playing" || String(view.hand) === hand) {
    notice?.remove();
    return;
  }
  const mine = myTurn(state);
  const text = mine ? t("table.nextHandMine", { hand: view.hand }) : t("table.nextHand", { hand: view.hand });
  const line = el("div", { class: `next-hand${mine ? " mine" : ""}`, id: "next-hand", role: "status" },
    el("span", {}, text), el("button", { type: "button", onclick: () => page.dispatch({ type: "close-result" }) }, t("table.backToTable")));
  if (notice) notice.replaceWith(line); else box.querySelector("#close-result")?.after(line);
}

/**
 * @param {Page} page
 * @param {HandEnded} event
 */
function handCard(page, event) {
  const state = page.state;
  const everyName = names(state);
  const outcome = outcomeText(state, event);
  const board = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  board.setAttribute("class", "layout final");
  board.setAttribute("role", "img");
  board.setAttribute("aria-label", t("table.finalBoard"));
  board.id = "final-board";
  // The last view may predate the hand's last play (it came in the same
  // append as the hand's end): the replay has the final board for sure.
  // (its tiles as big as its box allows, down to 8 px: it never scrolls)
  // The last tile is this hand's only while it is the hand on view (a result
  // reopened from the history is of an earlier hand).
  const thisHand = Boolean(state.view && state.view.hand === event.hand);
  const finalOptions = { last: thisHand ? state.lastTile : null, minTile: 8, maxTile: 36 };
  const lastLayout = thisHand && state.view.layout.lead ? state.view.layout : null;
  if (lastLayout) drawBoard(board, lastLayout, finalOptions);
  api(`/tables/${encodeURIComponent(page.tableId)}/games/${state.game}/hands/${event.hand}/replay`)
    .then((replay) => {
      if (board.isConnected) drawBoard(board, replay.steps[replay.steps.length - 1].layout, finalOptions);
    })
    .catch(() => {});
  const seats = event.hands.map((tiles, seat) => el("li", { dataset: { seat: String(seat) } },
    el("strong", {}, `${everyName[seat] ?? seatLabel(seat)}: `),
    el("span", { class: "hand-tiles" }, ...tiles.map((tile) => tileSvg(tile))),
    ` ${t("table.pipsLeft", { pips: event.pips[seat] })}`));
  const sidesCount = state.view ? state.view.scores.length : event.pips.length;
  const sideOfSeat = (/** @type {number} */ seat) => (sidesCount === 2 && event.pips.length === 4 ? seat % 2 : seat);
  // The award has its own line, with its rounding.
  const awardLine = (/** @type {number} */ seat, /** @type {number} */ points) => t("award.rounded", {
    name: everyName[seat] ?? seatLabel(seat), points,
    raw: event.pips.reduce((sum, pips, other) => sum + (sideOfSeat(other) !== sideOfSeat(seat) ? pips : 0), 0),
  });
  const awards = state.awards.filter((award) => award.hand === event.hand)
    .map((award) => el("li", { class: "award" }, awardLine(award.seat, award.points)));
  const rows = (state.sheet[event.hand] ?? []).filter((row) => row.reason !== "domino" && row.reason !== "blocked")
    .map((row) => el("li", {}, scoreLine(state, row)));
  // A hand nobody scored in says so (an empty sheet reads as one not yet
  // loaded), and a domino whose award rounds to nothing shows its rounding
  // (one hand in about 3,000 of a player against a greedy bot).
  const nothing = rows.length || awards.length ? [] : [
    el("li", { class: "muted", id: "no-points" }, t("table.noPointsThisHand")),
    ...(event.outcome === "domino" && event.winner_seat !== null
      ? [el("li", { class: "award" }, awardLine(event.winner_seat, 0))] : []),
  ];
  const commitment = state.commitments[event.hand];
  return el("section", { class: "result-card", id: "hand-over", role: "region", dataset: { hand: String(event.hand) }, "aria-label": t("table.handOver", { hand: event.hand }) },
    el("h3", {}, t("table.handOver", { hand: event.hand })),
    el("p", { class: "outcome" }, outcome),
    el("div", { class: "result-grid" },
      el("div", {}, el("h4", {}, t("table.finalBoard")), el("div", { class: "final-felt" }, board)),
      // (two columns: the proof beside the board, so the whole result fits over it)
      el("div", {},
        el("h4", {}, t("table.leftInHand")),
        el("ul", { class: "seat-hands" }, ...seats),
        el("h4", {}, t("table.sheet")),
        el("ul", { class: "score-lines", id: "hand-score-lines" }, ...rows, ...awards, ...nothing),
        // In plain words first; the precise terms folded for those who check them.
        el("p", { class: "fair-plain", id: "fair-plain" }, t("fair.sealed"), " ",
          el("a", { href: fairPlayGuide(state), id: "fair-how" }, t("fair.how"))),
        el("details", { class: "fairness" },
          el("summary", {}, t("table.fairness")),
          el("p", {}, el("strong", {}, t("table.seed")), el("br"), el("span", { class: "seed", id: "revealed-seed" }, event.seed)),
          el("p", {}, el("strong", {}, t("table.commitment")), el("br"), el("span", { class: "seed", id: "commitment" }, commitment ?? "")),
          el("p", { class: "muted" }, t("table.commitmentCheck"))),
        el("p", { class: "verify" }, el("a", { href: `/replay/${encodeURIComponent(page.tableId)}/${event.hand}?game=${state.game}`, id: "verify-link" }, t("table.verify"))),
        handEvidence(page, event.hand))));
}

/**
 * A hand's receipt to keep, and (for a player) a way to dispute it.
 * @param {Page} page
 * @param {number} hand
 */
function handEvidence(page, hand) {
  const state = page.state;
  const game = state.game;
  const seat = state.seat;
  const dispute = state.mode === "play" && seat
    ? el("button", { type: "button", class: "secondary small", id: "dispute-hand", onclick: () => openDisputeDialog(page.tableId, seat.token, game, hand, () => { page.disputed(); }) }, t("evidence.dispute"))
    : null;
  return el("p", { class: "hand-evidence" }, receiptButton(page.tableId, game, hand), " ", dispute);
}

/**
 * @param {Page} page
 * @param {GameEnded} event
 */
function gameOverCard(page, event) {
  const state = page.state;
  const sides = sidesWords(state);
  const text = gameOverText(state, event);
  const scores = el("ol", { class: "final-scores", id: "final-scores" }, ...event.scores.map((points, side) => el("li", {
    class: side === event.winner_side ? "winner" : null, dataset: { side: String(side) },
  }, el("span", {}, sides[side] ?? `#${side + 1}`), " ", el("strong", {}, points))));
  const ways = [];
  if (state.mode === "play") ways.push(el("button", { type: "button", id: "rematch", onclick: () => { if (page.send({ type: "rematch" })) page.dispatch({ type: "close-result" }); } }, t("table.rematch")));
  ways.push(el("a", { class: "button secondary", id: "new-game", href: "/#create" }, t("table.newGame")),
    el("a", { class: "button secondary", id: "to-lobby", href: "/" }, t("table.toLobby")));
  return el("section", { class: "result-card game-over", id: "game-over", role: "region", "aria-label": t("table.gameOver") },
    el("h3", {}, t("table.gameOver")),
    el("p", { class: "outcome", id: "game-winner" }, text),
    scores,
    ratingsPart(page),
    el("div", { class: "game-over-ways" }, ...ways));
}

/**
 * Who won the game, in a sentence.
 * @param {TableState} state
 * @param {GameEnded} event
 */
function gameOverText(state, event) {
  const sides = sidesWords(state);
  const mine = mySeat(state);
  const won = mine !== null && state.view !== null && event.winner_side !== null
    && (state.view.scores.length === 2 && state.view.seats.length === 4 ? mine % 2 : mine) === event.winner_side;
  return event.winner_side === null ? t("table.drawnGame")
    : won ? t("table.youWin") : t("table.winner", { side: sides[event.winner_side] ?? `#${event.winner_side + 1}` });
}

/**
 * Each person's rating change: "updating…" until the leaderboard has folded
 * the game (asked again meanwhile), never a number it has not.
 * @param {Page} page
 */
function ratingsPart(page) {
  const state = page.state;
  const known = state.ratings && state.ratings.game === state.game ? state.ratings : null;
  const box = el("div", { class: "ratings", id: "ratings", "aria-live": "polite" });
  if (!known || (!known.ratings && !known.failed) || known.ratings?.status === "updating") {
    box.dataset.status = "updating";
    box.append(el("p", { class: "muted" }, t("table.ratingUpdating")));
    page.askRatings();
    return box;
  }
  if (known.failed || !known.ratings) {
    box.dataset.status = "unknown";
    box.append(el("p", { class: "muted" }, t("table.ratingUnknown")));
    return box;
  }
  const ratings = known.ratings;
  box.dataset.status = ratings.status;
  if (ratings.status === "unrated") {
    box.append(el("p", { class: "muted" }, t("table.unrated")));
    return box;
  }
  const people = (ratings.changes ?? []).filter((change) => !change.bot);
  box.append(el("h4", {}, t("table.ratingChanges")), el("ul", { class: "rating-changes" }, ...people.map((change) => {
    const delta = change.after - change.before;
    const sign = delta >= 0 ? "+" : "−";
    return el("li", { dataset: { seat: String(change.seat) }, class: delta >= 0 ? "up" : "down" },
      el("span", {}, personName(change.name)), " ",
      el("strong", { class: "delta" }, `${sign}${Math.abs(delta).toFixed(1)}`), " ",
      // One minus sign for both numbers (the walk read "−1.8 (now -1.8)" as two kinds).
      el("span", { class: "muted" }, t("table.ratingNow", { rating: change.after.toFixed(1).replace("-", "−") })));
  })),
  // The number alone meant nothing to a first game's player ("−1.8 (now −1.8)"): its scale in words
  // (muggins.projections.leaderboard: openskill's mu − 3 sigma, 0 for a newcomer).
  el("p", { class: "muted rating-scale", id: "rating-scale" }, t("rating.scale")));
  return box;
}
