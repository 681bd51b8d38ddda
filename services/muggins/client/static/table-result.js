// @ts-check
// A hand's result and the game's end, over the board (the state's `result`):
// how the hand ended, the final board, what each seat held, the score lines,
// the fairness proof; at the game's end the winner, the final scores, each
// person's rating change and the ways on (rematch, a new game, the lobby).
import { drawBoard, tileSvg } from "./board.js";
import { api, el } from "./common.js";
import { openDisputeDialog, receiptButton } from "./evidence.js";
import { t, tileText } from "./i18n.js";
import { $, nameOf, names, seatLabel, sidesWords } from "./table-render.js";
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
// (its scroll, its focus, the replay's board it fetched).
/** @type {unknown} */
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
    }
    shown = null;
    return;
  }
  const language = document.documentElement.lang;
  if (shown !== result || shownLanguage !== language || shownRatings !== state.ratings) {
    const again = shown === result && shownLanguage === language;
    const scroll = box.scrollTop;
    box.replaceChildren(el("button", { type: "button", class: "secondary close-result", id: "close-result", "aria-label": t("table.close"), onclick: () => page.dispatch({ type: "close-result" }) }, "✕ ", t("table.close")));
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
  renderNextHand(page);
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
  const blockedAward = state.awards.find((award) => award.hand === event.hand && award.reason === "blocked");
  const outcome = event.outcome === "domino"
    ? t("table.domino", { name: event.winner_seat === null ? "" : everyName[event.winner_seat] ?? "" })
    : event.outcome === "blocked"
      ? (blockedAward ? t("table.blockedWinner", { name: everyName[blockedAward.seat] ?? "", pips: event.pips[blockedAward.seat] }) : t("table.blocked"))
      : t("table.targetReached");
  const board = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  board.setAttribute("class", "layout final");
  board.setAttribute("role", "img");
  board.setAttribute("aria-label", t("table.finalBoard"));
  board.id = "final-board";
  // The last view may predate the hand's last play (it came in the same
  // append as the hand's end): the replay has the final board for sure.
  // (its tiles as big as its box allows, down to 8 px: it never scrolls)
  const finalOptions = { last: state.lastTile, minTile: 8, maxTile: 36 };
  const lastLayout = state.view && state.view.layout.lead ? state.view.layout : null;
  if (lastLayout) drawBoard(board, lastLayout, finalOptions);
  api(`/tables/${encodeURIComponent(page.tableId)}/games/${state.game}/hands/${event.hand}/replay`)
    .then((replay) => {
      if (board.isConnected) drawBoard(board, replay.steps[replay.steps.length - 1].layout, finalOptions);
    })
    .catch(() => {});
  const seats = event.hands.map((tiles, seat) => el("li", { dataset: { seat: String(seat) } },
    el("strong", {}, `${everyName[seat] ?? seatLabel(seat)}: `),
    el("span", { class: "hand-tiles" }, ...tiles.map((tile) => tileSvg(tile, tileText(tile)))),
    ` ${t("table.pipsLeft", { pips: event.pips[seat] })}`));
  const sidesCount = state.view ? state.view.scores.length : event.pips.length;
  const sideOfSeat = (/** @type {number} */ seat) => (sidesCount === 2 && event.pips.length === 4 ? seat % 2 : seat);
  const awards = state.awards.filter((award) => award.hand === event.hand).map((award) => {
    const raw = event.pips.reduce((sum, pips, seat) => sum + (sideOfSeat(seat) !== sideOfSeat(award.seat) ? pips : 0), 0);
    return el("li", { class: "award" }, t("award.rounded", { name: everyName[award.seat] ?? seatLabel(award.seat), raw, points: award.points }));
  });
  // The award has its own line, with its rounding.
  const rows = (state.sheet[event.hand] ?? []).filter((row) => row.reason !== "domino" && row.reason !== "blocked")
    .map((row) => el("li", {}, scoreLine(state, row)));
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
        el("ul", { class: "score-lines", id: "hand-score-lines" }, ...rows, ...awards),
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
  const mine = mySeat(state);
  const won = mine !== null && state.view !== null && event.winner_side !== null
    && (state.view.scores.length === 2 && state.view.seats.length === 4 ? mine % 2 : mine) === event.winner_side;
  const text = event.winner_side === null ? t("table.drawnGame")
    : won ? t("table.youWin") : t("table.winner", { side: sides[event.winner_side] ?? `#${event.winner_side + 1}` });
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
      el("span", {}, change.name), " ",
      el("strong", { class: "delta" }, `${sign}${Math.abs(delta).toFixed(1)}`), " ",
      // One minus sign for both numbers (the walk read "−1.8 (now -1.8)" as two kinds).
      el("span", { class: "muted" }, t("table.ratingNow", { rating: change.after.toFixed(1).replace("-", "−") })));
  })));
  return box;
}
