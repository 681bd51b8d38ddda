// @ts-check
// The table page: /play/{id} to sit and play, /watch/{id} to watch.
//
// Players talk to /tables/{id}/play (hello with the seat token, then plays),
// spectators read /tables/{id}/watch.  Both get a welcome, every event as it
// happens and the view after it.  The page asks for the game's events from
// the start ("since 0") when it opens, so that a reload rebuilds the history,
// the score sheet and the hand's commitment; after a dropped connection it
// reconnects by itself and asks only for what it missed.
//
// This module wires the parts together: the connection
// (table-connection.js) hands each message to the reducer (table-state.js,
// pure), the page is drawn from the new state (table-render.js and its
// neighbours), and what the message brought is told once (table-effects.js).
import { fairnessCard, keepReceipts } from "./evidence.js";
import { api, el, markTouch, nameToSitWith, seatKey as seatKeyOf, takeSeat } from "./common.js";
import { language, refusalOf, t, tileText, translatePage } from "./i18n.js";
import { playSound, soundSwitch } from "./sounds.js";
import { createConnection } from "./table-connection.js";
import { openRules, openSheet, rulesList } from "./table-dialogs.js";
import { hideToast, tell, toast } from "./table-effects.js";
import { renderLife, lifeText } from "./table-life.js";
import { renderChat, sendChat, setUpChat } from "./table-chat.js";
import { $, NARROW, claimed, fairPlayGuide, clearClaim, keepLastLineInView, render, renderClock, renderHistory, seatLabel, showChosenEnd, tellLifeWith } from "./table-render.js";
import { renderResult } from "./table-result.js";
import { initialState, legalEnds, myTurn, reduce } from "./table-state.js";

/** @typedef {import("./table-render.js").Page} Page */
/** @typedef {import("./table-state.js").Message} Message */
/** @typedef {[number, number]} Tile */

const [, route, rawId] = location.pathname.split("/");
const mode = route === "watch" ? "watch" : "play";
const tableId = decodeURIComponent(rawId || "");
const seatKey = seatKeyOf(tableId);
const infoPath = () => `/tables/${encodeURIComponent(tableId)}?lang=${language()}`;

/** @type {Page} */
const page = {
  state: initialState({ mode }),
  dispatch,
  send: (message, how) => connection.send(message, how),
  choose,
  play,
  chooseEnd,
  tableId,
  askRatings,
  disputed: () => { toast(t("evidence.sent"), 4000); fairness?.disputes(); },
};

/** @type {ReturnType<typeof fairnessCard> | null} */
let fairness = null;

const connection = createConnection({
  mode,
  tableId,
  position: () => ({ game: page.state.game, version: page.state.version, token: page.state.seat?.token ?? null }),
  onMessage: receive,
  banner,
  toast,
  onRefused: refused,
});

tellLifeWith((life) => lifeText(life));

/**
 * Fold a message (the server's or the reader's) into the state and draw the page.
 * @param {Message} message
 */
function dispatch(message) {
  const before = page.state;
  page.state = reduce(before, message, performance.now());
  if (page.state === before) return;
  draw();
  tell(page.state);
}

/** @param {any} message */
function receive(message) {
  try {
    if (message.type === "receipts") keepReceipts(tableId, message.receipts);
    if (message.type === "error" && $("hint-text").dataset.asked === "true") {
      $("hint-text").dataset.asked = "false";
      $("hint-text").textContent = "";
    }
    if (message.type === "hint") $("hint-text").dataset.asked = "false";
    const receiptsBefore = page.state.receipts;
    const disputesBefore = page.state.disputes;
    if (message.type === "welcome" || message.type === "view") $("game").hidden = false;
    dispatch(message);
    if (page.state.receipts !== receiptsBefore) fairness?.refresh();
    if (page.state.disputes !== disputesBefore) fairness?.disputes();
  } finally {
    // Where the page stands, for anyone (or any test) following along.
    document.body.dataset.game = String(page.state.game);
    document.body.dataset.version = String(page.state.version);
    document.body.dataset.catchingUp = page.state.catchingUp ? "true" : "false";
  }
}

function draw() {
  render(page);
  showLinks();
  renderResult(page);
  renderLife(page);
  renderChat(page);
}

/** @param {string} message */
function fatal(message) {
  $("fatal").textContent = message;
  $("fatal").hidden = false;
}

/**
 * @param {string} kind
 * @param {string} text
 */
function banner(kind, text) {
  const element = $("banner");
  element.className = `banner ${kind}`;
  element.textContent = text;
  element.hidden = !text;
}

// The seat token is not valid here (any more): say so and offer the seats.
/** @param {string} reason */
function refused(reason) {
  localStorage.removeItem(seatKey);
  page.state = { ...page.state, seat: null };
  fatal(reason);
  $("game").hidden = true;
  api(infoPath())
    .then((info) => { dispatch({ type: "info", info }); showSit(); })
    .catch(() => {});
}

// ------------------------------------------------------------------ sitting

function loadSeat() {
  try {
    return JSON.parse(localStorage.getItem(seatKey) || "null");
  } catch {
    return null;
  }
}

function showSit() {
  const info = page.state.info;
  if (!info) return;
  $("sit").hidden = false;
  $("sit-title").textContent = info.title || info.preset;
  rulesList(page.state, $("rules"));
  const name = /** @type {HTMLInputElement} */ ($("name"));
  name.value = name.value || nameToSitWith();
  const free = info.seats.filter((s) => s.free);
  $("free-seats").replaceChildren(...free.map((s) => el("button", {
    type: "submit", value: String(s.seat), class: "sit-button", dataset: { seat: String(s.seat) },
  }, `${t("table.sitHere")} (${seatLabel(s.seat)})`)));
  name.focus();
}

/** @param {SubmitEvent} event */
async function sit(event) {
  event.preventDefault();
  const submitter = /** @type {HTMLElement | null} */ (event.submitter);
  const first = /** @type {HTMLElement | null} */ ($("free-seats").querySelector(".sit-button"));
  const seat = Number(submitter?.dataset.seat ?? first?.dataset.seat ?? NaN);
  const name = /** @type {HTMLInputElement} */ ($("name")).value.trim();
  if (Number.isNaN(seat) || !name) return;
  const error = $("sit-error");
  error.hidden = true;
  try {
    const granted = await takeSeat(tableId, seat, name);
    $("sit").hidden = true;
    $("fatal").hidden = true;
    dispatch({ type: "sat", seat: granted.seat, token: granted.token });
    dispatch({ type: "info", info: await api(infoPath()) });
    showTitle(); // the first to sit names the table
    connection.connect();
  } catch (problem) {
    error.textContent = refusalOf(/** @type {Error & {code?: string, retryAfter?: number}} */ (problem));
    error.hidden = false;
    dispatch({ type: "info", info: await api(infoPath()) });
    showSit();
  }
}

// ------------------------------------------------------------------ playing

/** @param {Tile} tile */
function choose(tile) {
  const state = page.state;
  if (!myTurn(state)) {
    toast(t("table.notYourTurn"));
    return;
  }
  const ends = legalEnds(state.view, tile);
  if (!ends.length) {
    toast(t("table.doesNotFit", { tile: tileText(tile) }));
    return;
  }
  dispatch({ type: "close-result" }); // the player moved on
  if (ends.length === 1) {
    play(tile, ends[0]);
    return;
  }
  dispatch({ type: "pending", tile, ends });
}

/**
 * @param {Tile} tile
 * @param {number | null} end
 */
function play(tile, end) {
  /** @type {Record<string, unknown>} */
  const message = { type: "play", tile, end, known_version: page.state.version };
  if (page.state.info?.ruleset?.muggins_rule) message.claim = claimed();
  if (!connection.send(message)) return; // offline: keep the choice, say so
  clearClaim();
  dispatch({ type: "played" });
}

// The end chosen: one colour on the board and the prompt, without a redraw
// (it would lose the pointer and the focus).
/** @param {number} index */
function chooseEnd(index) {
  const pending = page.state.pending;
  if (!pending || index < 0 || index === pending.chosen) return;
  page.state = reduce(page.state, { type: "choose-end", index });
  showChosenEnd(page.state);
}

// The history as a drawer (a phone, a narrow window): open or closed, said to screen readers.
/** @param {boolean} open */
function showHistory(open) {
  document.body.classList.toggle("history-open", open);
  $("history-button").setAttribute("aria-expanded", open ? "true" : "false");
  if (open) {
    $("history-close").focus();
    keepLastLineInView($("log")); // (opened to read what just happened)
  }
  else if (document.activeElement === $("history-close")) $("history-button").focus();
}

/** @param {KeyboardEvent} event */
function onKey(event) {
  const target = /** @type {HTMLElement} */ (event.target);
  if (target.tagName === "INPUT" || target.tagName === "TEXTAREA") return;
  if (document.querySelector("dialog[open]")) return;
  const state = page.state;
  if (event.key === "Escape" && document.body.classList.contains("history-open")) {
    showHistory(false);
    return;
  }
  if (event.key === "Escape" && state.result) {
    dispatch({ type: "close-result" });
    return;
  }
  if ((event.key === "r" || event.key === "R") && !event.ctrlKey && !event.metaKey) {
    openRules(state);
    return;
  }
  if ((event.key === "s" || event.key === "S") && !event.ctrlKey && !event.metaKey) {
    openSheet(state);
    return;
  }
  if (mode !== "play" || !state.view || !state.view.tiles) return;
  const tiles = state.view.tiles;
  const pending = state.pending;
  if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    if (!tiles.length) return;
    const step = event.key === "ArrowRight" ? 1 : -1;
    dispatch({ type: "select", index: (state.selected + step + tiles.length) % tiles.length });
    /** @type {HTMLElement | undefined} */ ($("hand").querySelectorAll(".tile-button")[page.state.selected])?.focus();
    event.preventDefault();
  } else if ((event.key === "ArrowUp" || event.key === "ArrowDown") && pending) {
    const step = event.key === "ArrowDown" ? 1 : -1;
    chooseEnd((pending.chosen + step + pending.ends.length) % pending.ends.length);
    event.preventDefault();
  } else if (event.key === "Enter" && !(target.tagName === "BUTTON" && !target.classList.contains("tile-button"))) {
    if (pending) play(pending.tile, pending.ends[pending.chosen]);
    else if (tiles[state.selected]) choose(tiles[state.selected]);
    event.preventDefault();
  } else if (event.key === "Escape" && pending) {
    dispatch({ type: "cancel" });
  }
}

// The clock each quarter second, its warning and its last ticks.
const clockWarning = { warned: /** @type {number | null} */ (null), lastTick: /** @type {number | null} */ (null) };
function tickClock() {
  const state = page.state;
  const seconds = renderClock(state);
  if (seconds === null || !myTurn(state)) return;
  if (clockWarning.warned !== state.deadline && seconds <= 10 && seconds > 0) {
    clockWarning.warned = state.deadline;
    toast(t("table.clockWarning"), 2500);
    playSound("warning");
  } else if (seconds <= 5 && seconds > 0 && clockWarning.lastTick !== seconds) {
    clockWarning.lastTick = seconds;
    playSound("tick");
  }
}

// ------------------------------------------------------------------ rating changes

/** @type {ReturnType<typeof setTimeout> | undefined} */
let ratingsTimer;
let ratingsAsked = 0;

// The game's rating changes: asked again (up to a minute) while the
// leaderboard has not folded the game, so the page never guesses a number.
function askRatings() {
  const game = page.state.result?.game;
  if (!game || ratingsTimer !== undefined) return;
  ratingsTimer = setTimeout(async () => {
    ratingsTimer = undefined;
    if (page.state.result?.game !== game) return;
    ratingsAsked += 1;
    try {
      const ratings = await api(`/tables/${encodeURIComponent(tableId)}/games/${game}/ratings`);
      if (ratings.status !== "updating" || ratingsAsked > 60) ratingsAsked = 0;
      dispatch({ type: "ratings", game, ratings, failed: ratings.status === "updating" && ratingsAsked === 0 });
    } catch {
      ratingsAsked = 0;
      dispatch({ type: "ratings", game, ratings: null, failed: true });
    }
  }, ratingsAsked ? 1000 : 0);
}

// ------------------------------------------------------------------ start

// Whether someone may still sit here: a free seat before the game (the
// table's info), a seat nobody holds in the game's view, or one given up.
function seatFree() {
  const { info, view, life } = page.state;
  if (!info || info.status === "closed") return false;
  if (!view) return info.seats.some((s) => s.free);
  return view.seats.some((s) => s.name === null && !s.bot) || life?.choice === "seat";
}

/** @type {string | null} what the links card shows now (redrawn only when it changes) */
let linksShown = null;

// The links to send: to a free seat while there is one (a table of bots has
// none: "invite a friend" there invited nobody), and to watch.
function showLinks({ force = false } = {}) {
  const free = seatFree();
  const shown = `${free}/${language()}`;
  if (!force && shown === linksShown) return;
  linksShown = shown;
  const share = `${location.origin}/play/${encodeURIComponent(tableId)}`;
  const watch = `${location.origin}/watch/${encodeURIComponent(tableId)}`;
  /**
   * @param {string} label
   * @param {string} value
   * @param {string} id
   */
  const row = (label, value, id) => el("div", {}, el("label", { for: id }, label),
    el("div", { class: "share" }, el("input", { type: "text", readonly: true, value, id })));
  const invite = free ? row(t("table.share"), share, "share-link") : null;
  const watching = row(t("table.watchLink"), watch, "watch-link");
  // A spectator's card leads with watching; the link to play comes last.
  const rows = mode === "watch"
    ? [el("p", { id: "watching" }, t("table.spectating")), watching, invite]
    : [invite, watching];
  $("links-card").replaceChildren(...rows.filter((r) => r !== null));
}

// The table's name and game ("Ana's table · All Fives · casual"), as the server words them (muggins.tables.names).
function showTitle() {
  const info = page.state.info;
  const heading = [info?.name, info?.title].filter(Boolean).join(" · ");
  $("table-title").textContent = heading;
  document.title = heading ? `${heading} · muggins` : "muggins";
}

function labelTools() {
  const sheet = $("sheet-button");
  sheet.textContent = t(NARROW.matches ? "table.sheetShort" : "table.sheet");
  sheet.setAttribute("aria-label", t("table.sheet"));
  $("history-button").setAttribute("aria-label", t("table.log"));
}

async function start() {
  markTouch();
  const sound = soundSwitch();
  $("sound").append(sound);
  const retranslate = async () => {
    try {
      // (fetched first: the state read before the answer came would drop
      // whatever the socket told meanwhile)
      const info = await api(infoPath());
      page.state = reduce(page.state, { type: "info", info });
    } catch {
      // keep the words we have
    }
    /** @type {any} */ (sound).refresh();
    labelTools();
    showLinks({ force: true });
    showTitle();
    setUpChat(page);
    fairness = fairnessCard($("fairness-card"), tableId, fairPlayGuide(page.state));
    if (!$("sit").hidden) showSit();
    renderHistory(page.state, { force: true });
    draw();
  };
  translatePage(retranslate);
  showTitle();
  try {
    dispatch({ type: "info", info: await api(infoPath()) });
  } catch (problem) {
    fatal(/** @type {any} */ (problem).status === 404 ? t("table.noTable") : /** @type {Error} */ (problem).message);
    return;
  }
  showTitle();
  showLinks();
  setUpChat(page);
  fairness = fairnessCard($("fairness-card"), tableId, fairPlayGuide(page.state));
  $("sit-form").addEventListener("submit", (event) => sit(/** @type {SubmitEvent} */ (event)));
  $("chat-form").addEventListener("submit", (event) => sendChat(page, /** @type {SubmitEvent} */ (event)));
  labelTools();
  NARROW.addEventListener("change", () => { labelTools(); draw(); });
  $("rules-button").addEventListener("click", () => openRules(page.state));
  $("sheet-button").addEventListener("click", () => openSheet(page.state));
  $("history-button").addEventListener("click", () => showHistory(!document.body.classList.contains("history-open")));
  $("history-close").addEventListener("click", () => showHistory(false));
  // A hand's result again, from its line in the history.
  $("log").addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-result-hand]");
    if (!(button instanceof HTMLElement)) return;
    showHistory(false);
    dispatch({ type: "show-result", hand: Number(button.dataset.resultHand) });
  });
  $("hint-button").addEventListener("click", () => {
    if (connection.send({ type: "hint" }, { expectAnswer: false })) {
      $("hint-text").dataset.asked = "true";
      $("hint-text").textContent = t("analysis.thinking");
    }
  });
  document.addEventListener("keydown", onKey);
  setInterval(tickClock, 250);
  if (mode === "play") {
    const seat = loadSeat();
    const info = page.state.info;
    if (!seat && info) {
      // A closed table has no seat to take, free or not: it is watched.
      if (info.status !== "closed" && info.seats.some((s) => s.free)) {
        showSit();
        return;
      }
      location.replace(`/watch/${encodeURIComponent(tableId)}`);
      return;
    }
    dispatch({ type: "sat", seat: seat.seat, token: seat.token });
  }
  hideToast();
  connection.connect();
}

start();
