// The table page: /play/{id} to sit and play, /watch/{id} to watch.
//
// Players talk to /tables/{id}/play (hello with the seat token, then plays),
// spectators read /tables/{id}/watch.  Both get a welcome, every event as it
// happens and the view after it.  The page asks for the game's events from
// the start ("since 0") when it opens, so that a reload rebuilds the history,
// the score sheet and the hand's commitment; after a dropped connection it
// reconnects by itself and asks only for what it missed.
import { drawBoard, tileSvg } from "./board.js";
import { fairnessCard, keepReceipts, openDisputeDialog, receiptButton } from "./evidence.js";
import { api, el, markTouch, playerIdentity, rememberIdentity, rememberName, savedName, sideNames } from "./common.js";
import { describeEvent, endName, endPhrase, language, t, tileText, translatePage } from "./i18n.js";
import { playSound, soundSwitch } from "./sounds.js";

const $ = (id) => document.getElementById(id);
const [, route, rawId] = location.pathname.split("/");
const mode = route === "watch" ? "watch" : "play";
const tableId = decodeURIComponent(rawId || "");
const seatKey = `muggins.seat.${tableId}`;
const MUTED_KEY = "muggins.muted";
// A ping this often; no answer to it (or to a move) this long means the connection is dead.
const PING_EVERY = 10_000;
const ANSWER_WITHIN = 6_000;
const PHRASES = ["hi", "gg", "wp", "nice", "thanks", "oops"];

const state = {
  info: null,
  seat: null, // {seat, token} when playing
  game: 0,
  version: 0,
  view: null,
  names: [],
  spectators: 0,
  commitments: {},
  // This hand's domino or blocked awards (for the reckoning).
  awards: [],
  // The score sheet: hand -> [{seat, side, points, reason, parts}], this game.
  sheet: new Map(),
  // The last count's parts and the play they came with, to pair with its score.
  lastParts: null,
  // The last tile played, highlighted on the board.
  lastTile: null,
  arriving: false,
  // The board as the last view showed it while a hand was played.
  lastLayout: null,
  lastHands: null,
  // The hand's result waiting to be shown once a catch-up is over.
  pendingResult: null,
  pendingGameOver: null,
  selected: 0,
  pending: null, // {tile, ends, chosen} while a tile waits for its end
  deadline: null,
  warned: false,
  lastTick: null,
  wasMyTurn: false,
  socket: null,
  retryDelay: 500,
  wasConnected: false,
  lostConnection: false,
  offline: !navigator.onLine,
  // When a ping or a move went out unanswered (performance.now()), or null.
  awaiting: null,
  lastPing: 0,
  // Replaying what was missed: no toasts, sounds or panels until the view.
  catchingUp: false,
  // Back online on a connection that may have died meanwhile: its first answer clears the banner.
  confirming: false,
  stopped: false,
  chat: [],
  chatIds: new Set(),
  // The fairness card (receipts kept, disputes): {refresh, disputes}.
  fairness: null,
};

function mySeat() {
  return mode === "play" && state.seat ? state.seat.seat : null;
}

function seatLabel(seat) {
  return t("lobby.seat", { seat: seat + 1 });
}

function fatal(message) {
  $("fatal").textContent = message;
  $("fatal").hidden = false;
}

function banner(kind, text) {
  const element = $("banner");
  element.className = `banner ${kind}`;
  element.textContent = text;
  element.hidden = !text;
}

function partnerships() {
  const view = state.view;
  return Boolean(view && view.seats.length === 4 && view.scores.length === 2);
}

function sideOf(seat) {
  return partnerships() ? seat % 2 : seat;
}

function isPartner(seat) {
  const me = mySeat();
  return me !== null && seat !== me && partnerships() && sideOf(seat) === sideOf(me);
}

// Seats people sit in (a bot's move there is a bot playing for them).
function peopleSeats() {
  return (state.info?.seats ?? []).map((s) => !s.bot_level);
}

// Names before any view comes: a reload's history is told with them.
function namesFromInfo() {
  if (!state.view && state.info) state.names = state.info.seats.map((s) => s.name ?? seatLabel(s.seat));
}

function describe(event, by = null) {
  return describeEvent(event, state.names, { by, people: peopleSeats(), me: mySeat() });
}

// ------------------------------------------------------------------ sitting

function loadSeat() {
  try {
    return JSON.parse(localStorage.getItem(seatKey) || "null");
  } catch {
    return null;
  }
}

function rulesList(target) {
  target.replaceChildren(...state.info.rules.flatMap((r) => [el("dt", {}, r.topic), el("dd", {}, r.text)]));
}

function showSit() {
  const info = state.info;
  $("sit").hidden = false;
  $("sit-title").textContent = info.title || info.preset;
  rulesList($("rules"));
  $("name").value = $("name").value || savedName();
  const free = info.seats.filter((s) => s.free);
  $("free-seats").replaceChildren(...free.map((s) => el("button", {
    type: "submit", value: String(s.seat), class: "sit-button", dataset: { seat: String(s.seat) },
  }, `${t("table.sitHere")} (${seatLabel(s.seat)})`)));
  $("name").focus();
}

async function sit(event) {
  event.preventDefault();
  const seat = Number(event.submitter?.dataset.seat ?? $("free-seats").querySelector(".sit-button")?.dataset.seat ?? NaN);
  const name = $("name").value.trim();
  if (Number.isNaN(seat) || !name) return;
  const error = $("sit-error");
  error.hidden = true;
  const request = async (player) => api(`/tables/${encodeURIComponent(tableId)}/seats/${seat}`, {
    method: "POST", body: JSON.stringify(player ? { name, player } : { name }),
  });
  try {
    let granted;
    try {
      granted = await request(playerIdentity());
    } catch (problem) {
      if (problem.status !== 403) throw problem;
      localStorage.removeItem("muggins.player"); // an identity this server does not know
      granted = await request(null);
    }
    rememberIdentity(granted.player_id, granted.player_secret);
    rememberName(name);
    state.seat = { seat: granted.seat, token: granted.token };
    localStorage.setItem(seatKey, JSON.stringify(state.seat));
    $("sit").hidden = true;
    state.info = await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`);
    namesFromInfo();
    showTitle(); // the first to sit names the table
    connect();
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
    state.info = await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`);
    showSit();
  }
}

// ------------------------------------------------------------------ connection

function socketUrl() {
  const base = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/tables/${encodeURIComponent(tableId)}`;
  // (the game those versions are of, once the page knows one: another game comes whole)
  if (mode === "watch") return `${base}/watch?since=${state.version}${state.game ? `&game=${state.game}` : ""}`;
  return `${base}/play`;
}

function connect() {
  clearTimeout(state.reconnectTimer);
  if (state.stopped) return;
  const open = state.socket?.readyState;
  if (open === WebSocket.OPEN || open === WebSocket.CONNECTING) return; // one at a time
  if (!state.wasConnected) banner("online", t("table.connecting"));
  const socket = new WebSocket(socketUrl());
  state.socket = socket;
  state.awaiting = null;
  socket.addEventListener("open", () => {
    if (state.socket !== socket) return;
    if (mode === "play") {
      // since: everything of the game after what this page holds (all of
      // it when the page has just opened, so the history is rebuilt).
      // (with the game those versions are of: another game is sent whole)
      const hello = { type: "hello", token: state.seat.token, since: state.version };
      if (state.game) hello.game = state.game;
      socket.send(JSON.stringify(hello));
    }
  });
  socket.addEventListener("message", (message) => {
    if (state.socket !== socket) return;
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    state.awaiting = null;
    if (state.confirming) answered();
    // A spectator's frame may hold several messages (one move's events and
    // the view after them), as an array.
    for (const one of Array.isArray(data) ? data : [data]) receive(one);
  });
  socket.addEventListener("close", (closed) => {
    if (state.socket !== socket || state.stopped) return;
    if (closed.code === 1008 && mode === "play") {
      // The seat token is not valid here (any more): say so and offer the seats.
      localStorage.removeItem(seatKey);
      state.seat = null;
      banner("", "");
      fatal(closed.reason || "bad token");
      $("game").hidden = true;
      api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`)
        .then((info) => { state.info = info; showSit(); })
        .catch(() => {});
      return;
    }
    reconnectLater();
  });
}

function reconnectLater() {
  state.socket = null;
  state.lostConnection = true;
  banner("offline", state.offline ? t("table.offline") : t("table.reconnecting"));
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = setTimeout(connect, state.retryDelay);
  state.retryDelay = Math.min(state.retryDelay * 2, 5000);
}

// A connection that stopped answering without closing: drop it and start again.
function abandonConnection() {
  const socket = state.socket;
  state.awaiting = null;
  if (socket) {
    state.socket = null;
    try { socket.close(); } catch { /* it is gone either way */ }
  }
  toast(t("table.noAnswer"), 3000);
  reconnectLater();
}

function connected() {
  return !state.offline && state.socket && state.socket.readyState === WebSocket.OPEN;
}

// Send a message; false (and the player told) when it cannot go now.
function send(message, { expectAnswer = true } = {}) {
  if (!connected()) {
    toast(t("table.notSent"), 3500);
    banner("offline", state.offline ? t("table.offline") : t("table.reconnecting"));
    return false;
  }
  state.socket.send(JSON.stringify(message));
  if (expectAnswer && state.awaiting === null) state.awaiting = performance.now();
  return true;
}

function heartbeat() {
  const now = performance.now();
  if (state.awaiting !== null && now - state.awaiting > ANSWER_WITHIN) {
    abandonConnection();
    return;
  }
  if (connected() && now - state.lastPing > PING_EVERY && state.wasConnected) {
    state.lastPing = now;
    send({ type: "ping" });
  }
}

function goneOffline() {
  state.offline = true;
  banner("offline", t("table.offline"));
  document.body.dataset.offline = "true";
}

function backOnline() {
  state.offline = false;
  document.body.dataset.offline = "false";
  banner("online", t("table.connecting"));
  if (!state.socket) {
    connect();
    return;
  }
  // Is the connection still alive?  Its first answer (a pong, or anything
  // that came meanwhile) says so; a dead one is dropped after ANSWER_WITHIN.
  state.confirming = true;
  send({ type: "ping" });
}

// The connection answered after the page was offline: say so, and ask for
// whatever happened meanwhile (a welcome does both by itself).
function answered() {
  state.confirming = false;
  if (state.offline) return;
  banner("online", t("table.reconnected"));
  clearTimeout(state.bannerTimer);
  state.bannerTimer = setTimeout(() => {
    if (!state.offline && !state.lostConnection && $("banner").textContent === t("table.reconnected")) banner("", "");
  }, 2000);
  send({ type: "since", version: state.version }, { expectAnswer: false });
}

// ------------------------------------------------------------------ messages

function receive(message) {
  try {
    handle(message);
  } finally {
    // Where the page stands, for anyone (or any test) following along.
    document.body.dataset.game = String(state.game);
    document.body.dataset.version = String(state.version);
    document.body.dataset.catchingUp = state.catchingUp ? "true" : "false";
  }
}

function handle(message) {
  switch (message.type) {
    case "welcome":
      state.retryDelay = 500;
      state.confirming = false;
      if (state.lostConnection) {
        banner("online", t("table.reconnected"));
        setTimeout(() => { if (!state.lostConnection && !state.offline) banner("", ""); }, 3000);
        state.lostConnection = false;
      } else {
        banner("", "");
      }
      state.wasConnected = true;
      if (message.game !== state.game) newGame(message.game);
      state.game = message.game;
      state.version = message.version;
      setDeadline(message.seconds_left);
      $("game").hidden = false;
      if (message.life) setLife(message.life);
      if (message.view) {
        state.catchingUp = false;
        setView(message.view);
      } else if (message.game === 0) {
        showWaiting();
      } else {
        state.catchingUp = true; // the missed events follow, then the view
      }
      break;
    case "event":
      if (message.game !== state.game || message.version <= state.version) return;
      state.version = message.version;
      onEvent(message.event, message);
      break;
    case "view":
      if (message.game !== state.game) return;
      state.version = message.version;
      state.spectators = message.spectators ?? 0;
      setDeadline(message.seconds_left);
      if (message.life) setLife(message.life);
      setView(message.view);
      if (state.catchingUp) finishCatchUp();
      break;
    case "game":
      newGame(message.game);
      state.game = message.game;
      state.version = 0;
      break;
    case "spectators":
      state.spectators = message.count;
      $("spectators").textContent = state.spectators ? t("table.spectators", { n: state.spectators }) : "";
      break;
    case "chat":
      addChat(message);
      break;
    case "hint":
      showHint(message);
      break;
    case "receipts":
      keepReceipts(tableId, message.receipts);
      state.fairness?.refresh();
      break;
    case "disputes":
      state.fairness?.disputes();
      break;
    case "error":
      if (message.code !== "stale-view") toast(message.message, 4000);
      if ($("hint-text").textContent === t("analysis.thinking")) $("hint-text").textContent = "";
      break;
    default:
      break; // pong, and anything newer than this page
  }
}

function newGame(game) {
  if (game === state.game) return;
  state.awards = [];
  state.sheet = new Map();
  state.lastTile = null;
  if (game > 1 && state.game !== 0) logHeading(t("table.gameOver"), "log-game");
}

function setDeadline(secondsLeft) {
  state.deadline = secondsLeft === null || secondsLeft === undefined ? null : performance.now() + secondsLeft * 1000;
  state.warned = false;
  state.lastTick = null;
}

function finishCatchUp() {
  state.catchingUp = false;
  const view = state.view;
  if (state.pendingResult && view && view.phase !== "playing") showResult(state.pendingResult);
  if (state.pendingGameOver && view && view.phase === "game-over") showGameOver(state.pendingGameOver);
  state.pendingResult = null;
  state.pendingGameOver = null;
}

function logHeading(text, kind = "log-hand") {
  const list = $("log");
  list.append(el("li", { class: `log-heading ${kind}` }, text));
}

function log(text, kind) {
  if (!text) return;
  const list = $("log");
  list.append(el("li", { class: kind ?? null }, text));
  while (list.children.length > 400) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

let toastTimer = null;
function toast(text, ms = 1800) {
  const element = $("toast");
  element.textContent = text;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { element.hidden = true; }, ms);
}

function live() {
  return !state.catchingUp;
}

function sheetRows(hand) {
  if (!state.sheet.has(hand)) state.sheet.set(hand, []);
  return state.sheet.get(hand);
}

function onEvent(event, message) {
  const scoring = event.type === "PointsScored";
  if (event.type === "HandStarted") logHeading(t("table.hand", { hand: event.hand }));
  // (Deals, the sealed seed and the boneyard are the replay's to tell.)
  const quiet = event.type === "TilesDealt" || event.type === "SeedSealed" || event.type === "BoneyardStacked";
  // Forced draws and passes come in the append of the move before them, so
  // only a play says who made it.
  const forYou = event.type === "TilePlayed" && message.by === "bot" && peopleSeats()[event.seat];
  if (!quiet) log(describe(event, message.by), scoring ? "score" : forYou ? "for-you" : null);
  switch (event.type) {
    case "HandStarted":
      state.commitments[event.hand] = event.commitment;
      state.awards = [];
      state.lastTile = null;
      sheetRows(event.hand);
      state.newHand = event.hand;
      break;
    case "TilePlayed":
      state.lastTile = event.tile;
      state.arriving = live();
      state.lastParts = message.parts ? { parts: message.parts, count: event.count } : null;
      break;
    case "PointsScored": {
      const parts = event.reason === "count" && state.lastParts ? state.lastParts.parts : null;
      sheetRows(event.hand).push({ seat: event.seat, side: event.side, points: event.points, reason: event.reason, parts });
      if (event.reason === "domino" || event.reason === "blocked") state.awards.push(event);
      if (live()) {
        toast(t("toast.points", { points: event.points, name: state.names[event.seat] ?? "" }));
        playSound("score");
      }
      break;
    }
    case "TileDrawn":
      if (event.seat === mySeat() && live()) {
        toast(t("toast.youDraw"));
        playSound("draw");
      }
      break;
    case "Passed":
      if (live()) toast(t("ev.Passed", { name: state.names[event.seat] ?? "" }));
      break;
    case "HandEnded":
      if (live()) showResult(event);
      else state.pendingResult = event;
      break;
    case "GameEnded":
      if (live()) showGameOver(event);
      else state.pendingGameOver = event;
      break;
    default:
      break;
  }
}

// ------------------------------------------------------------------ drawing

// A phone's width: shorter words in the status bar, which never wraps.
const NARROW = matchMedia("(max-width: 600px)");

function labelTools() {
  const sheet = $("sheet-button");
  sheet.textContent = t(NARROW.matches ? "table.sheetShort" : "table.sheet");
  sheet.setAttribute("aria-label", t("table.sheet"));
}

// The table's board: tiles at least 26 px (their faces 24: issue #25), its frame
// scrolling past that.
const BOARD = { frame: null, minTile: 26, maxTile: 44 };

function boardOptions() {
  BOARD.frame = $("board-frame");
  return BOARD;
}

function showWaiting() {
  $("turn").textContent = t("table.waiting");
  drawBoard($("layout"), null, boardOptions());
}

function setView(view) {
  const seat = mySeat();
  state.view = view;
  state.names = view.seats.map((s) => (s.seat === seat ? `${s.name ?? seatLabel(s.seat)}` : s.name ?? seatLabel(s.seat)));
  if (view.layout.lead) {
    state.lastLayout = view.layout;
    state.lastHands = view.seats.map((s) => s.tiles);
  }
  const myTurn = view.turn !== null && view.turn === seat && view.phase === "playing";
  if (state.pending && !myTurn) state.pending = null;
  if (view.tiles && state.selected >= view.tiles.length) state.selected = Math.max(0, view.tiles.length - 1);
  if (myTurn && !state.wasMyTurn) {
    // The turn comes round: the selection starts on a tile that fits.
    const first = view.tiles.findIndex((tile) => legalEnds(tile).length > 0);
    if (first >= 0) state.selected = first;
    if (live()) playSound("turn");
  }
  state.wasMyTurn = myTurn;
  render();
}

function sidesWords() {
  return sideNames(state.view, (a, b) => t("side.pair", { a, b }));
}

function tilesText(n) {
  return n === 1 ? t("table.tiles.one") : t("table.tiles", { n });
}

function botBadge(seat) {
  const level = state.info?.seats?.[seat]?.bot_level;
  return el("span", { class: "badge bot" }, level ? t("bot.level", { level: t(`level.${level}`) }) : t("bot"));
}

function render() {
  const view = state.view;
  if (!view) return;
  const seat = mySeat();
  // Between hands there is no board, no boneyard and no tiles: not zeros.
  const playing = view.phase === "playing";
  $("hand-number").textContent = view.hand ? t("table.hand", { hand: view.hand }) : "";
  $("count").parentElement.hidden = !playing;
  $("count").textContent = view.layout.count;
  const parts = view.layout.count_parts || [];
  $("count-parts").textContent = parts.length > 1 && view.layout.count > 0 ? `(${parts.join(" + ")})` : "";
  $("boneyard").hidden = !playing;
  $("boneyard").textContent = t("table.boneyard", { n: view.boneyard });
  const turn = $("turn");
  turn.classList.toggle("mine", view.turn !== null && view.turn === seat);
  const turnText = view.turn === null ? "" : view.turn === seat ? t("table.yourTurn") : t("table.turn", { name: state.names[view.turn] });
  // (a phone's status bar has room for "Your turn" only: the green tiles say the rest)
  turn.textContent = view.turn === seat && NARROW.matches ? t("table.yourTurnShort") : turnText;
  turn.title = turnText;
  $("spectators").textContent = state.spectators ? t("table.spectators", { n: state.spectators }) : "";
  renderTakeover(view);
  renderNextHand(view);
  const sides = sidesWords();
  const mySide = seat === null ? null : sideOf(seat);
  $("scores").replaceChildren(...view.scores.map((points, side) => el("span", {
    class: `side${side === mySide ? " mine" : ""}`, dataset: { side: String(side) },
  }, sides[side], el("strong", {}, points))));
  $("opponents").replaceChildren(...view.seats.filter((s) => s.seat !== seat).map((s) => el("span", {
    class: `opponent${view.turn === s.seat ? " on-turn" : ""}${isPartner(s.seat) ? " partner" : ""}`,
    dataset: { seat: String(s.seat) },
  }, el("span", { class: "seat-number" }, `${s.seat + 1}`), " ", s.name ?? seatLabel(s.seat),
  isPartner(s.seat) ? el("span", { class: "badge partner" }, t("partner")) : null,
  s.bot ? botBadge(s.seat) : null, playing ? ` · ${tilesText(s.tiles)}` : null)));
  const pending = state.pending;
  $("layout").dataset.arms = String(view.layout.arms.filter((arm) => arm.tiles.length).length);
  drawBoard($("layout"), view.layout, {
    ...boardOptions(),
    targets: pending ? pending.ends.filter((end) => end !== null) : [],
    pending: pending ? pending.tile : null,
    chosen: pending ? pending.ends[pending.chosen] : null,
    onTarget: (end) => play(pending.tile, end),
    endLabel: endName,
    last: state.lastTile,
    animate: state.arriving,
  });
  state.arriving = false;
  for (const target of pending ? $("layout").querySelectorAll(".end-target") : []) {
    // Pointing at an end chooses it (and its button shows so), as ↑ ↓ do.
    const index = pending.ends.indexOf(Number(target.dataset.end));
    target.addEventListener("pointerenter", () => chooseEnd(index));
    target.addEventListener("focus", () => chooseEnd(index));
  }
  describeBoard(view);
  renderHand();
  renderPrompt();
  renderMuggins();
  renderHintBar();
}

// The board in words, for screen readers: each open end, the count, the last move.
function describeBoard(view) {
  const layout = view.layout;
  const lastLine = layout.lead ? [...$("log").querySelectorAll("li:not(.log-heading)")].pop() : null;
  let text;
  if (!layout.lead) {
    text = t("table.boardEmpty");
  } else {
    const ends = layout.arms.filter((arm) => arm.open !== null)
      .map((arm) => t("table.boardEnd", { end: endName(arm.end), n: arm.open }));
    text = `${ends.join(", ")}; ${t("table.boardCount", { count: layout.count })}.`;
    if (lastLine) text += ` ${t("table.lastMove", { move: lastLine.textContent })}`;
  }
  $("board-description").textContent = t("table.board", { description: text });
  // And under the board, in the felt's strip (the history is far below on a phone).
  $("last-move").textContent = lastLine?.textContent ?? "";
}

function legalEnds(tile) {
  const view = state.view;
  return view.legal.filter((l) => l.tile[0] === tile[0] && l.tile[1] === tile[1]).map((l) => l.end);
}

function renderHand() {
  const view = state.view;
  const hand = $("hand");
  if (mode !== "play" || !view.tiles) {
    hand.hidden = true;
    $("keys").hidden = true;
    return;
  }
  hand.hidden = false;
  $("keys").hidden = false;
  const myTurn = view.turn === mySeat() && view.phase === "playing";
  const focusedIndex = [...hand.querySelectorAll(".tile-button")].indexOf(document.activeElement);
  hand.replaceChildren(...view.tiles.map((tile, index) => {
    const legal = myTurn && legalEnds(tile).length > 0;
    const hinted = state.hint && state.hint.tile[0] === tile[0] && state.hint.tile[1] === tile[1];
    return el("button", {
      type: "button",
      class: `tile-button${legal ? " legal" : ""}${index === state.selected ? " selected" : ""}${hinted ? " hinted" : ""}`,
      "aria-label": tileText(tile),
      "aria-disabled": legal ? "false" : "true",
      "aria-pressed": index === state.selected ? "true" : "false",
      dataset: { tile: tileText(tile), legal: legal ? "true" : "false" },
      onclick: () => { state.selected = index; choose(tile); },
    }, tileSvg(tile));
  }));
  if (focusedIndex >= 0) hand.querySelectorAll(".tile-button")[Math.min(focusedIndex, view.tiles.length - 1)]?.focus();
}

// A casual table's hint: the expert's play for my turn, asked for.
function renderHintBar() {
  const bar = $("hint-bar");
  const view = state.view;
  const casual = Boolean(state.info?.ruleset?.hints) && mode === "play";
  const myTurn = view && view.turn === mySeat() && view.phase === "playing";
  bar.hidden = !casual;
  $("hint-button").disabled = !myTurn;
  if (state.hint && (state.hint.version !== state.version || state.hint.game !== state.game)) {
    state.hint = null;
    $("hint-text").textContent = "";
  }
}

function showHint(hint) {
  if (hint.game !== state.game || hint.version !== state.version) return; // the table moved on
  state.hint = hint;
  const where = hint.end === null ? t("analysis.lead", { tile: tileText(hint.tile) })
    : t("analysis.play", { tile: tileText(hint.tile), at: endPhrase(hint.end) });
  $("hint-text").textContent = t("table.hintText", { play: where, points: hint.expected_points.toFixed(1) });
  renderHand();
}

function renderPrompt() {
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
      onclick: () => play(pending.tile, end),
      onpointerenter: () => chooseEnd(index),
      onfocus: () => chooseEnd(index),
      "aria-label": endChoice(pending.tile, end),
    }, endChoice(pending.tile, end, "table.endCountShort"))),
    el("button", { type: "button", class: "secondary", id: "cancel-end", "aria-label": t("table.cancel"), title: t("table.cancel"),
      onclick: () => { state.pending = null; render(); } }, "✕"),
  );
}

// The end chosen (by ↑ ↓, or pointing at a target or a button): one colour
// for it on the board and in the prompt, without drawing either again (a
// redraw would lose the pointer and the focus).
function chooseEnd(index) {
  const pending = state.pending;
  if (!pending || index < 0 || index === pending.chosen) return;
  pending.chosen = index;
  const chosen = pending.ends[index];
  for (const target of $("layout").querySelectorAll(".end-target")) {
    target.classList.toggle("chosen", Number(target.dataset.end) === chosen);
  }
  for (const button of $("prompt").querySelectorAll(".end-choice")) {
    const mine = Number(button.dataset.end) === chosen;
    button.classList.toggle("chosen", mine);
    button.setAttribute("aria-pressed", mine ? "true" : "false");
  }
}

// "left → count 10" (`words`: "left → 10") where the table shows the count a play leaves.
function endChoice(tile, end, words = "table.endCount") {
  const legal = state.view.legal.find((l) => l.tile[0] === tile[0] && l.tile[1] === tile[1] && l.end === end);
  return legal && legal.count !== null && legal.count !== undefined
    ? t(words, { end: endName(end), count: legal.count }) : endName(end);
}

// ------------------------------------------------------------------ the table's life

// What the table is doing (the server's muggins.domain.table_life): who left and
// since when, the pause and its choices, what was chosen, the close.
function setLife(life) {
  const before = state.life;
  state.life = life;
  if (life.kind === "closed" && before?.kind !== "closed") {
    log(lifeText(life), "log-life");
    clearTimeout(state.lifeTimer);
  }
  if (before && life.choice && !before.choice) log(lifeText(life), "log-life");
  renderLife();
  if (state.view) renderTakeover(state.view);
}

function missingNames(life) {
  return life.missing.map((m) => m.name ?? seatLabel(m.seat)).join(", ");
}

function lifeText(life) {
  const names = missingNames(life);
  if (life.kind === "closed") {
    // Ended by nobody's choice (a pause nobody settled), or after a seat was given up.
    const key = life.reason === "abandoned" && (!life.chosen_by || !names)
      ? "life.closed.abandonedUnsettled" : `life.closed.${life.reason}`;
    const why = t(key, { names, by: life.chosen_by ?? "" });
    return `${t("life.closed")} ${why}`;
  }
  if (life.kind === "between-games" && life.rematch?.length) {
    return t("life.rematchAsked", { names: life.rematch.join(", ") });
  }
  if (life.choice === "bot") return t("life.playingOnWithBot", { names, by: life.chosen_by ?? "" });
  if (life.choice === "seat" && life.kind === "paused") return t("life.seatOpen", { by: life.chosen_by ?? "" });
  if (life.kind === "paused") return t("life.paused", { names, ago: agoText(life.missing) });
  if (life.missing.length) return t("life.leftHand", { names });
  return "";
}

function agoText(missing) {
  const since = Math.max(...missing.map((m) => (m.since ? Date.parse(m.since) : Date.now())));
  const seconds = Math.max(0, Math.round((Date.now() - since) / 1000));
  // In whole minutes: the notice is read out when it changes.
  return seconds < 60 ? t("life.underAMinute") : t("life.minutes", { n: Math.floor(seconds / 60) });
}

function renderLife() {
  const life = state.life;
  const box = $("life");
  clearTimeout(state.lifeTimer);
  // What a closed table hides (the rematch, hints) keys on this.
  document.body.dataset.life = life?.kind ?? "";
  const text = life ? lifeText(life) : "";
  box.hidden = !text;
  if (box.hidden) return box.replaceChildren();
  box.dataset.kind = life.kind;
  const seat = mySeat();
  const mine = mode === "play" && seat !== null && seat !== undefined;
  const iLeft = mine && life.missing.some((m) => m.seat === seat);
  const opensIn = life.choices_from ? Date.parse(life.choices_from) - Date.now() : 0;
  // The same notice as a second ago (only the times moved on): change the
  // words in place, so that a screen reader is not told it all again and a
  // click on a button is not lost to a redraw.
  const shape = [life.kind, life.reason, life.choice, iLeft, mine, opensIn > 0, text === "" ].join("|");
  if (box.dataset.shape === shape && $("life-text")) {
    $("life-text").textContent = text;
    if ($("life-wait")) $("life-wait").textContent = t("life.choicesIn", { n: Math.ceil(opensIn / 1000) });
    if (life.kind === "paused") state.lifeTimer = setTimeout(renderLife, 1000);
    return;
  }
  box.dataset.shape = shape;
  const parts = [el("span", { id: "life-text" }, text)];
  if (life.kind === "closed") {
    parts.push(el("a", { class: "button secondary", id: "life-replays", href: `/replay/${encodeURIComponent(tableId)}/1?game=${state.game || 1}` }, t("life.replays")),
      el("a", { class: "button secondary", href: "/" }, t("life.lobby")));
  } else if (life.kind === "paused" && iLeft) {
    // "I'm back" is the takeover notice's, just above.
  } else if (life.kind === "paused" && life.choice === "seat") {
    // Waiting for a new person from the lobby.
  } else if (life.kind === "paused" && mine) {
    if (opensIn > 0) {
      // A countdown: shown, not read out every second.
      parts.push(el("span", { class: "muted", id: "life-wait", "aria-live": "off" }, t("life.choicesIn", { n: Math.ceil(opensIn / 1000) })));
    } else {
      parts.push(el("span", { class: "life-choices" },
        el("button", { type: "button", id: "life-bot", onclick: () => send({ type: "decide", choice: "bot" }) }, t("life.playOn")),
        el("button", { type: "button", class: "secondary", id: "life-seat", onclick: () => send({ type: "decide", choice: "seat" }) }, t("life.openSeat")),
        el("button", { type: "button", class: "secondary", id: "life-end", onclick: () => send({ type: "decide", choice: "end" }) }, t("life.end")),
        el("span", { class: "muted" }, t("life.orWait"))));
    }
    // The countdown and "left N s ago" move on by themselves.
    state.lifeTimer = setTimeout(renderLife, 1000);
  } else if (life.kind === "paused") {
    parts.push(el("span", { class: "muted" }, t("life.theyChoose")));
    state.lifeTimer = setTimeout(renderLife, 1000);
  }
  box.replaceChildren(...parts);
}

function renderTakeover(view) {
  // A bot took the seat (the clock ran out, or the player was away): it is
  // the player's to take back, explicitly, right under the status line.
  const notice = $("takeover");
  const mine = mode === "play" && view.seat !== null && view.seat !== undefined
    ? view.seats[view.seat] : null;
  // At a closed table there is nothing to take back.
  notice.hidden = !mine?.bot || state.life?.kind === "closed";
  if (notice.hidden) return notice.replaceChildren();
  if ($("back")) return;
  notice.replaceChildren(el("span", { id: "bot-playing" }, t("table.botPlaying")),
    el("button", { type: "button", id: "back", onclick: () => send({ type: "back" }) }, t("table.back")));
}

let claimInput = null;

// The muggins rule's claim box and call button, right under the status bar
// (where a player looks), and what an opponent left unclaimed.
function renderMuggins() {
  const view = state.view;
  const bar = $("muggins-bar");
  const rules = state.info?.ruleset;
  if (mode !== "play" || !rules?.muggins_rule) {
    bar.hidden = true;
    return;
  }
  bar.hidden = false;
  const focused = document.activeElement === claimInput;
  const typed = claimInput?.value ?? "";
  const parts = [];
  if (view.phase === "playing") {
    claimInput = el("input", { type: "number", id: "claim", min: 0, max: 1000, step: 1, value: typed, "aria-describedby": "claim-hint" });
    parts.push(el("label", { for: "claim", class: "inline-label" }, t("table.claim")), claimInput);
  }
  parts.push(el("span", { class: "muted", id: "claim-hint" }, t("table.claimHint")));
  if (view.can_call_muggins && view.unclaimed) {
    parts.push(el("p", { class: "unclaimed", id: "unclaimed", role: "alert" },
      t("table.unclaimed", { name: state.names[view.unclaimed.seat] ?? "", points: view.unclaimed.points })));
  }
  if (view.can_call_muggins) {
    parts.push(el("button", { type: "button", id: "call-muggins", onclick: () => send({ type: "muggins", known_version: state.version }) }, t("table.muggins")));
  }
  bar.replaceChildren(...parts);
  if (focused && claimInput && claimInput.isConnected) claimInput.focus();
}

function tickClock() {
  heartbeat();
  const clock = $("clock");
  if (!state.deadline || !state.view || state.view.turn === null) {
    clock.textContent = "";
    clock.classList.remove("low");
    return;
  }
  const seconds = Math.max(0, Math.ceil((state.deadline - performance.now()) / 1000));
  clock.textContent = t("table.clock", { s: seconds });
  clock.classList.toggle("low", seconds <= 10);
  const mine = state.view.turn === mySeat() && mode === "play";
  if (!mine) return;
  if (seconds <= 10 && seconds > 0 && !state.warned) {
    state.warned = true;
    toast(t("table.clockWarning"), 2500);
    playSound("warning");
  } else if (seconds <= 5 && seconds > 0 && state.lastTick !== seconds) {
    state.lastTick = seconds;
    playSound("tick");
  }
}

// ------------------------------------------------------------------ playing

function choose(tile) {
  const view = state.view;
  if (view.turn !== mySeat() || view.phase !== "playing") {
    toast(t("table.notYourTurn"));
    return;
  }
  const ends = legalEnds(tile);
  if (!ends.length) {
    toast(t("table.doesNotFit", { tile: tileText(tile) }));
    return;
  }
  closeResult(); // the player moved on
  if (ends.length === 1) {
    play(tile, ends[0]);
    return;
  }
  state.pending = { tile, ends, chosen: 0 };
  render();
}

function play(tile, end) {
  const message = { type: "play", tile, end, known_version: state.version };
  if (state.info?.ruleset?.muggins_rule) message.claim = Number($("claim")?.value || 0);
  if (!send(message)) return; // offline: keep the choice, say so
  if (claimInput) claimInput.value = "";
  state.pending = null;
  render();
}

function onKey(event) {
  if (event.target.tagName === "INPUT" || event.target.tagName === "TEXTAREA") return;
  if (document.querySelector("dialog[open]")) return;
  if (event.key === "Escape" && !$("result").hidden) {
    closeResult();
    return;
  }
  if ((event.key === "r" || event.key === "R") && !event.ctrlKey && !event.metaKey) {
    openRules();
    return;
  }
  if ((event.key === "s" || event.key === "S") && !event.ctrlKey && !event.metaKey) {
    openSheet();
    return;
  }
  if (mode !== "play" || !state.view || !state.view.tiles) return;
  const tiles = state.view.tiles;
  const pending = state.pending;
  if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    if (!tiles.length) return;
    const step = event.key === "ArrowRight" ? 1 : -1;
    state.selected = (state.selected + step + tiles.length) % tiles.length;
    state.pending = null;
    render();
    $("hand").querySelectorAll(".tile-button")[state.selected]?.focus();
    event.preventDefault();
  } else if ((event.key === "ArrowUp" || event.key === "ArrowDown") && pending) {
    const step = event.key === "ArrowDown" ? 1 : -1;
    chooseEnd((pending.chosen + step + pending.ends.length) % pending.ends.length);
    event.preventDefault();
  } else if (event.key === "Enter" && !(event.target.tagName === "BUTTON" && !event.target.classList.contains("tile-button"))) {
    if (pending) play(pending.tile, pending.ends[pending.chosen]);
    else if (tiles[state.selected]) choose(tiles[state.selected]);
    event.preventDefault();
  } else if (event.key === "Escape" && pending) {
    state.pending = null;
    render();
  }
}

// ------------------------------------------------------------------ hand and game end

function pipsOf(tiles) {
  return tiles.reduce((sum, [a, b]) => sum + a + b, 0);
}

function scoreLine(row) {
  const name = state.names[row.seat] ?? seatLabel(row.seat);
  const what = t(`ev.PointsScored.${row.reason}`, { name, points: row.points });
  return row.parts && row.parts.length > 1 ? `${what} (${row.parts.join(" + ")} = ${row.parts.reduce((a, b) => a + b, 0)})` : what;
}

// While the last hand's result is open, the next hand may begin (and the
// clock run): the result says so, with a way back to the table.
function renderNextHand(view) {
  const result = $("result");
  const shown = result.querySelector("#hand-over")?.dataset.hand;
  const notice = result.querySelector("#next-hand");
  if (result.hidden || !shown || view.phase !== "playing" || String(view.hand) === shown) {
    notice?.remove();
    return;
  }
  const mine = view.turn === mySeat();
  const text = mine ? t("table.nextHandMine", { hand: view.hand }) : t("table.nextHand", { hand: view.hand });
  const line = el("div", { class: `next-hand${mine ? " mine" : ""}`, id: "next-hand", role: "status" },
    el("span", {}, text), el("button", { type: "button", onclick: closeResult }, t("table.backToTable")));
  if (notice) notice.replaceWith(line); else result.querySelector("#close-result").after(line);
}

function closeResult() {
  const result = $("result");
  if (result.hidden) return;
  result.hidden = true;
  result.replaceChildren();
  render();
}

function resultBox() {
  const result = $("result");
  if (result.hidden) {
    result.replaceChildren(el("button", { type: "button", class: "secondary close-result", id: "close-result", "aria-label": t("table.close"), onclick: closeResult }, "✕ ", t("table.close")));
    result.hidden = false;
  }
  return result;
}

function showResult(event) {
  const names = state.names;
  const blockedAward = state.awards.find((award) => award.hand === event.hand && award.reason === "blocked");
  const outcome = event.outcome === "domino"
    ? t("table.domino", { name: names[event.winner_seat] ?? "" })
    : event.outcome === "blocked"
      ? (blockedAward ? t("table.blockedWinner", { name: names[blockedAward.seat] ?? "", pips: event.pips[blockedAward.seat] }) : t("table.blocked"))
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
  if (state.lastLayout) drawBoard(board, state.lastLayout, finalOptions);
  api(`/tables/${encodeURIComponent(tableId)}/games/${state.game}/hands/${event.hand}/replay`)
    .then((replay) => {
      if (board.isConnected) drawBoard(board, replay.steps[replay.steps.length - 1].layout, finalOptions);
    })
    .catch(() => {});
  const seats = event.hands.map((tiles, seat) => el("li", { dataset: { seat: String(seat) } },
    el("strong", {}, `${names[seat] ?? seatLabel(seat)}: `),
    el("span", { class: "hand-tiles" }, ...tiles.map((tile) => tileSvg(tile))),
    ` ${t("table.pipsLeft", { pips: event.pips[seat] })}`));
  const sidesCount = state.view ? state.view.scores.length : event.pips.length;
  const sideOfSeat = (seat) => (sidesCount === 2 && event.pips.length === 4 ? seat % 2 : seat);
  const awards = state.awards.filter((award) => award.hand === event.hand).map((award) => {
    const raw = event.pips.reduce((sum, pips, seat) => sum + (sideOfSeat(seat) !== sideOfSeat(award.seat) ? pips : 0), 0);
    const name = names[award.seat] ?? seatLabel(award.seat);
    return el("li", { class: "award" }, t("award.rounded", { name, raw, points: award.points }));
  });
  // The award has its own line, with its rounding.
  const rows = (state.sheet.get(event.hand) ?? []).filter((row) => row.reason !== "domino" && row.reason !== "blocked")
    .map((row) => el("li", {}, scoreLine(row)));
  const commitment = state.commitments[event.hand];
  const box = resultBox();
  box.querySelector("#hand-over")?.remove();
  $("toast").hidden = true;
  box.append(el("section", { class: "result-card", id: "hand-over", role: "region", dataset: { hand: String(event.hand) }, "aria-label": t("table.handOver", { hand: event.hand }) },
    el("h3", {}, t("table.handOver", { hand: event.hand })),
    el("p", { class: "outcome" }, outcome),
    el("div", { class: "result-grid" },
      el("div", {}, el("h4", {}, t("table.finalBoard")), el("div", { class: "final-felt" }, board)),
      el("div", {},
        el("h4", {}, t("table.leftInHand")),
        el("ul", { class: "seat-hands" }, ...seats),
        el("h4", {}, t("table.sheet")),
        el("ul", { class: "score-lines", id: "hand-score-lines" }, ...rows, ...awards))),
    el("details", { class: "fairness" },
      el("summary", {}, t("table.fairness")),
      el("p", {}, el("strong", {}, t("table.seed")), el("br"), el("span", { class: "seed", id: "revealed-seed" }, event.seed)),
      el("p", {}, el("strong", {}, t("table.commitment")), el("br"), el("span", { class: "seed", id: "commitment" }, commitment ?? "")),
      el("p", { class: "muted" }, t("table.commitmentCheck"))),
    el("p", {}, el("a", { href: `/replay/${encodeURIComponent(tableId)}/${event.hand}?game=${state.game}`, id: "verify-link" }, t("table.verify"))),
    handEvidence(event.hand)));
  render();
}

// A hand's receipt to keep, and (for a player) a way to dispute it.
function handEvidence(hand) {
  const game = state.game;
  const dispute = mode === "play" && state.seat
    ? el("button", { type: "button", class: "secondary small", id: "dispute-hand", onclick: () => openDisputeDialog(tableId, state.seat.token, game, hand, () => { toast(t("evidence.sent"), 4000); state.fairness?.disputes(); }) }, t("evidence.dispute"))
    : null;
  return el("p", { class: "hand-evidence" }, receiptButton(tableId, game, hand), " ", dispute);
}

function showGameOver(event) {
  const sides = state.view ? sidesWords() : [];
  const text = event.winner_side === null ? t("table.drawnGame") : t("table.winner", { side: sides[event.winner_side] ?? `#${event.winner_side + 1}` });
  const box = resultBox();
  box.querySelector("#game-over")?.remove();
  box.prepend(el("section", { class: "result-card game-over", id: "game-over", role: "region", "aria-label": t("table.gameOver") },
    el("h3", {}, t("table.gameOver")),
    el("p", { class: "outcome" }, text),
    el("p", {}, event.scores.map((points, side) => `${sides[side] ?? side + 1}: ${points}`).join(" · ")),
    mode === "play" ? el("button", { type: "button", id: "rematch", onclick: () => { if (send({ type: "rematch" })) closeResult(); } }, t("table.rematch")) : null));
  box.prepend(box.querySelector("#close-result"));
  if (live()) playSound("score");
}

// ------------------------------------------------------------------ rules and score sheet

function openRules() {
  if (!state.info) return;
  rulesList($("rules-dialog-list"));
  $("guide-link").href = `/guide/${encodeURIComponent(state.info.preset)}?lang=${language()}`;
  $("rules-dialog").showModal();
}

function openSheet() {
  const view = state.view;
  const body = $("sheet-body");
  if (!view || !state.sheet.size) {
    body.replaceChildren(el("p", { class: "muted" }, t("table.sheetEmpty")));
  } else {
    const sides = sidesWords();
    const totals = view.scores.map(() => 0);
    const rows = [...state.sheet.entries()].map(([hand, lines]) => {
      const perSide = view.scores.map(() => 0);
      for (const line of lines) perSide[line.side] += line.points;
      perSide.forEach((points, side) => { totals[side] += points; });
      return el("tr", {}, el("th", { scope: "row" }, hand),
        ...perSide.map((points, side) => el("td", { class: "num", title: lines.filter((l) => l.side === side).map(scoreLine).join("\n") }, points || "·")));
    });
    const details = [...state.sheet.entries()].map(([hand, lines]) => el("li", {},
      el("strong", {}, t("table.hand", { hand })),
      el("ul", {}, ...(lines.length ? lines.map((line) => el("li", {}, scoreLine(line))) : [el("li", {}, "—")]))));
    body.replaceChildren(
      el("table", { class: "board sheet", id: "score-sheet" },
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("table.sheetHand")), ...sides.map((name) => el("th", { scope: "col", class: "num" }, name)))),
        el("tbody", {}, ...rows),
        el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, t("table.sheetTotal")), ...totals.map((points) => el("td", { class: "num" }, points))))),
      el("ul", { class: "score-details" }, ...details));
  }
  $("sheet-dialog").showModal();
}

// ------------------------------------------------------------------ chat

function mutedNames() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function toggleMute(name) {
  const muted = mutedNames();
  if (muted.has(name)) muted.delete(name); else muted.add(name);
  localStorage.setItem(MUTED_KEY, JSON.stringify([...muted]));
  renderChat();
}

function addChat(message) {
  if (state.chatIds.has(message.id)) return;
  state.chatIds.add(message.id);
  state.chat.push(message);
  state.chat.sort((a, b) => a.id - b.id);
  if (state.chat.length > 100) state.chat.shift();
  renderChat();
}

function renderChat() {
  const muted = mutedNames();
  const list = $("chat");
  const lines = state.chat.map((line) => {
    const silenced = muted.has(line.name);
    // A spectator's line always says so, whatever name they gave: nobody watching reads as seated.
    // (A spectator who gave no name is "spectator" on the wire: said in the reader's words.)
    const spectator = line.seat === null || line.seat === undefined;
    const who = !spectator ? `${line.name} (${seatLabel(line.seat)})`
      : line.name === "spectator" ? t("table.chatSpectator") : `${line.name} (${t("table.chatWatching")})`;
    return el("li", { class: silenced ? "muted-line" : null, dataset: { id: String(line.id) } },
      el("button", {
        type: "button", class: "chat-name", title: t(silenced ? "table.chatUnmute" : "table.chatMute", { name: line.name }),
        "aria-label": t(silenced ? "table.chatUnmute" : "table.chatMute", { name: line.name }),
        onclick: () => toggleMute(line.name),
      }, who), ": ",
      el("span", { class: "chat-text" }, silenced ? t("table.chatMuted") : line.phrase ? t(`phrase.${line.phrase}`) : line.text));
  });
  list.replaceChildren(...(lines.length ? lines : [el("li", { class: "muted" }, t("table.chatEmpty"))]));
  list.scrollTop = list.scrollHeight;
}

function chatMessage(content) {
  return mode === "watch" ? { type: "chat", name: savedName() || "", ...content } : { type: "chat", ...content };
}

function setUpChat() {
  const on = state.info?.chat !== false;
  $("chat-form").hidden = !on;
  $("phrases").hidden = !on;
  $("chat-off").hidden = on;
  $("chat-text").placeholder = t("table.chatPlaceholder");
  $("phrases").replaceChildren(...PHRASES.map((phrase) => el("button", {
    type: "button", class: "secondary small phrase", dataset: { phrase },
    onclick: () => send(chatMessage({ phrase }), { expectAnswer: false }),
  }, t(`phrase.${phrase}`))));
  renderChat();
}

function sendChat(event) {
  event.preventDefault();
  const text = $("chat-text").value.trim();
  if (!text) return;
  if (send(chatMessage({ text }), { expectAnswer: false })) $("chat-text").value = "";
}

// ------------------------------------------------------------------ start

function showLinks() {
  const share = `${location.origin}/play/${encodeURIComponent(tableId)}`;
  const watch = `${location.origin}/watch/${encodeURIComponent(tableId)}`;
  const row = (label, value, id) => el("div", {}, el("label", { for: id }, label),
    el("div", { class: "share" }, el("input", { type: "text", readonly: true, value, id })));
  const rows = [row(t("table.share"), share, "share-link"), row(t("table.watchLink"), watch, "watch-link")];
  if (mode === "watch") rows.unshift(el("p", {}, t("table.spectating")));
  $("links-card").replaceChildren(...rows);
}

// The table's name and game ("Ana's table · All Fives · casual"), as the server words them (muggins.tables.names).
function showTitle() {
  const heading = [state.info?.name, state.info?.title].filter(Boolean).join(" · ");
  $("table-title").textContent = heading;
  document.title = heading ? `${heading} · muggins` : "muggins";
}

async function start() {
  markTouch();
  const sound = soundSwitch();
  $("sound").append(sound);
  const retranslate = async () => {
    try {
      state.info = await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`);
    } catch {
      // keep the words we have
    }
    sound.refresh();
    labelTools();
    showLinks();
    showTitle();
    setUpChat();
    state.fairness = fairnessCard($("fairness-card"), tableId);
    if (!$("sit").hidden) showSit();
    render();
  };
  translatePage(retranslate);
  showTitle();
  try {
    state.info = await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`);
  } catch (problem) {
    fatal(problem.status === 404 ? t("table.noTable") : problem.message);
    return;
  }
  namesFromInfo();
  showTitle();
  showLinks();
  setUpChat();
  state.fairness = fairnessCard($("fairness-card"), tableId);
  $("sit-form").addEventListener("submit", sit);
  $("chat-form").addEventListener("submit", sendChat);
  labelTools();
  NARROW.addEventListener("change", () => { labelTools(); render(); });
  $("rules-button").addEventListener("click", openRules);
  $("sheet-button").addEventListener("click", openSheet);
  $("hint-button").addEventListener("click", () => {
    if (send({ type: "hint" }, { expectAnswer: false })) $("hint-text").textContent = t("analysis.thinking");
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("offline", goneOffline);
  window.addEventListener("online", backOnline);
  if (state.offline) goneOffline();
  setInterval(tickClock, 250);
  if (mode === "play") {
    state.seat = loadSeat();
    if (!state.seat) {
      // A closed table has no seat to take, free or not: it is watched.
      if (state.info.status !== "closed" && state.info.seats.some((s) => s.free)) {
        showSit();
        return;
      }
      location.replace(`/watch/${encodeURIComponent(tableId)}`);
      return;
    }
  }
  connect();
}

start();
