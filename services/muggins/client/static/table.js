// The table page: /play/{id} to sit and play, /watch/{id} to watch.
//
// Players talk to /tables/{id}/play (hello with the seat token, then plays),
// spectators read /tables/{id}/watch.  Both get a welcome, every event as it
// happens and the view after it; after a dropped connection the page
// reconnects by itself and asks for what it missed ("since").
import { drawBoard, tileSvg } from "./board.js";
import { api, el, playerIdentity, rememberIdentity, rememberName, savedName, sideNames } from "./common.js";
import { describeEvent, endName, language, t, tileText, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const [, route, rawId] = location.pathname.split("/");
const mode = route === "watch" ? "watch" : "play";
const tableId = decodeURIComponent(rawId || "");
const seatKey = `muggins.seat.${tableId}`;

const state = {
  info: null,
  seat: null, // {seat, token} when playing
  game: 0,
  version: 0,
  view: null,
  names: [],
  spectators: 0,
  commitments: {},
  awards: [],
  selected: 0,
  pending: null, // {tile, ends, chosen} while a tile waits for its end
  deadline: null,
  socket: null,
  retryDelay: 500,
  wasConnected: false,
  lostConnection: false,
  stopped: false,
};

function mySeat() {
  return mode === "play" && state.seat ? state.seat.seat : null;
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

// ------------------------------------------------------------------ sitting

function loadSeat() {
  try {
    return JSON.parse(localStorage.getItem(seatKey) || "null");
  } catch {
    return null;
  }
}

function showSit() {
  const info = state.info;
  $("sit").hidden = false;
  $("rules").replaceChildren(...info.rules.flatMap((r) => [el("dt", {}, r.topic), el("dd", {}, r.text)]));
  $("name").value = $("name").value || savedName();
  const free = info.seats.filter((s) => s.free);
  $("free-seats").replaceChildren(...free.map((s) => el("button", {
    type: "submit", value: String(s.seat), class: "sit-button", dataset: { seat: String(s.seat) },
  }, `${t("table.sitHere")} (${t("lobby.seat", { seat: s.seat })})`)));
}

async function sit(event) {
  event.preventDefault();
  const seat = Number(event.submitter?.dataset.seat ?? NaN);
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
  if (mode === "watch") return `${base}/watch${state.version ? `?since=${state.version}` : ""}`;
  return `${base}/play`;
}

function connect() {
  if (state.stopped) return;
  if (!state.wasConnected) banner("online", t("table.connecting"));
  const socket = new WebSocket(socketUrl());
  state.socket = socket;
  socket.addEventListener("open", () => {
    if (mode === "play") {
      const hello = { type: "hello", token: state.seat.token };
      if (state.version) hello.since = state.version;
      socket.send(JSON.stringify(hello));
    }
  });
  socket.addEventListener("message", (message) => {
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    receive(data);
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
    state.lostConnection = true;
    banner("offline", t("table.reconnecting"));
    setTimeout(connect, state.retryDelay);
    state.retryDelay = Math.min(state.retryDelay * 2, 5000);
  });
}

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message));
}

// ------------------------------------------------------------------ messages

function receive(message) {
  try {
    handle(message);
  } finally {
    // Where the page stands, for anyone (or any test) following along.
    document.body.dataset.game = String(state.game);
    document.body.dataset.version = String(state.version);
  }
}

function handle(message) {
  switch (message.type) {
    case "welcome":
      state.retryDelay = 500;
      if (state.lostConnection) {
        banner("online", t("table.reconnected"));
        setTimeout(() => { if (!state.lostConnection) banner("", ""); }, 3000);
        state.lostConnection = false;
      } else {
        banner("", "");
      }
      state.wasConnected = true;
      if (message.game !== state.game) state.awards = [];
      state.game = message.game;
      state.version = message.version;
      $("game").hidden = false;
      if (message.view) setView(message.view);
      else if (message.game === 0) showWaiting();
      break;
    case "event":
      if (message.game !== state.game || message.version <= state.version) return;
      state.version = message.version;
      onEvent(message.event);
      break;
    case "view":
      if (message.game !== state.game) return;
      state.version = message.version;
      state.spectators = message.spectators ?? 0;
      state.deadline = message.seconds_left === null || message.seconds_left === undefined
        ? null : performance.now() + message.seconds_left * 1000;
      setView(message.view);
      break;
    case "game":
      state.game = message.game;
      state.version = 0;
      state.awards = [];
      $("panels").replaceChildren();
      break;
    case "spectators":
      state.spectators = message.count;
      $("spectators").textContent = t("table.spectators", { n: state.spectators });
      break;
    case "error":
      if (message.code !== "stale-view") toast(message.message, 4000);
      break;
    default:
      break;
  }
}

function log(text, kind) {
  if (!text) return;
  const list = $("log");
  list.append(el("li", { class: kind ?? null }, text));
  while (list.children.length > 200) list.firstChild.remove();
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

function onEvent(event) {
  const scoring = event.type === "PointsScored";
  log(describeEvent(event, state.names), scoring ? "score" : null);
  switch (event.type) {
    case "HandStarted":
      state.commitments[event.hand] = event.commitment;
      state.awards = [];
      break;
    case "PointsScored":
      toast(`+${event.points} ${state.names[event.seat] ?? ""}`);
      if (event.reason === "domino" || event.reason === "blocked") state.awards.push(event);
      break;
    case "TileDrawn":
      if (event.seat === mySeat()) toast(t("ev.TileDrawn", { name: t("table.you") }));
      break;
    case "Passed":
      toast(t("ev.Passed", { name: state.names[event.seat] ?? "" }));
      break;
    case "HandEnded":
      showHandOver(event);
      break;
    case "GameEnded":
      showGameOver(event);
      break;
    default:
      break;
  }
}

// ------------------------------------------------------------------ drawing

function showWaiting() {
  $("turn").textContent = t("table.waiting");
  drawBoard($("layout"), null);
}

function setView(view) {
  state.view = view;
  state.names = view.seats.map((s) => s.name ?? `#${s.seat}`);
  if (state.pending && !(view.turn === mySeat() && view.phase === "playing")) state.pending = null;
  if (view.tiles && state.selected >= view.tiles.length) state.selected = Math.max(0, view.tiles.length - 1);
  render();
}

function sidesWords() {
  return sideNames(state.view, (a, b) => t("side.pair", { a, b }));
}

function render() {
  const view = state.view;
  if (!view) return;
  const seat = mySeat();
  $("hand-number").textContent = view.hand ? t("table.hand", { hand: view.hand }) : "";
  $("count").textContent = view.layout.count;
  $("boneyard").textContent = t("table.boneyard", { n: view.boneyard });
  const turn = $("turn");
  turn.classList.toggle("mine", view.turn !== null && view.turn === seat);
  turn.textContent = view.turn === null ? "" : view.turn === seat ? t("table.yourTurn") : t("table.turn", { name: state.names[view.turn] });
  $("spectators").textContent = t("table.spectators", { n: state.spectators });
  renderTakeover(view);
  const sides = sidesWords();
  $("scores").replaceChildren(...view.scores.map((points, side) => el("span", { class: "side", dataset: { side: String(side) } }, sides[side], el("strong", {}, points))));
  $("opponents").replaceChildren(...view.seats.filter((s) => s.seat !== seat).map((s) => el("span", {
    class: `opponent${view.turn === s.seat ? " on-turn" : ""}`, dataset: { seat: String(s.seat) },
  }, s.name ?? `#${s.seat}`, s.bot ? el("span", { class: "badge bot" }, t("bot")) : null, " · ", t("table.tiles", { n: s.tiles }))));
  const pending = state.pending;
  $("layout").dataset.arms = String(view.layout.arms.filter((arm) => arm.tiles.length).length);
  drawBoard($("layout"), view.layout, {
    targets: pending ? pending.ends.filter((end) => end !== null) : [],
    onTarget: (end) => play(pending.tile, end),
    endLabel: endName,
  });
  if (pending) {
    const chosen = pending.ends[pending.chosen];
    for (const target of $("layout").querySelectorAll(".end-target")) {
      target.classList.toggle("chosen", Number(target.dataset.end) === chosen);
    }
  }
  renderHand();
  renderPrompt();
  renderActions();
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
  hand.replaceChildren(...view.tiles.map((tile, index) => {
    const legal = myTurn && legalEnds(tile).length > 0;
    const button = el("button", {
      type: "button",
      class: `tile-button${legal ? " legal" : ""}${index === state.selected ? " selected" : ""}`,
      "aria-label": tileText(tile),
      "aria-disabled": legal ? "false" : "true",
      dataset: { tile: tileText(tile), legal: legal ? "true" : "false" },
      onclick: () => { state.selected = index; choose(tile); },
    }, tileSvg(tile));
    return button;
  }));
}

function renderPrompt() {
  const prompt = $("prompt");
  const pending = state.pending;
  if (!pending) {
    prompt.hidden = true;
    return;
  }
  prompt.hidden = false;
  prompt.replaceChildren(
    el("span", {}, t("table.chooseEnd")),
    ...pending.ends.map((end, index) => el("button", {
      type: "button", class: index === pending.chosen ? "" : "secondary", dataset: { end: String(end) },
      onclick: () => play(pending.tile, end),
    }, endName(end))),
    el("button", { type: "button", class: "secondary", onclick: () => { state.pending = null; render(); } }, t("table.cancel")),
  );
}

let claimInput = null;

function renderTakeover(view) {
  // A bot took the seat (the clock ran out, or the player was away): it is
  // the player's to take back, explicitly, right under the status line.
  const notice = $("takeover");
  const mine = mode === "play" && view.seat !== null && view.seat !== undefined
    ? view.seats[view.seat] : null;
  notice.hidden = !mine?.bot;
  if (notice.hidden) return notice.replaceChildren();
  if ($("back")) return;
  notice.replaceChildren(el("span", { id: "bot-playing" }, t("table.botPlaying")),
    el("button", { type: "button", id: "back", onclick: () => send({ type: "back" }) }, t("table.back")));
}

function renderActions() {
  const view = state.view;
  const actions = $("actions");
  const focused = document.activeElement === claimInput;
  actions.replaceChildren();
  if (mode !== "play") return;
  const rules = state.info?.ruleset;
  if (rules?.muggins_rule && view.phase === "playing") {
    // Redrawn with every view: keep what the player is typing.
    const typed = claimInput?.value ?? "";
    claimInput = el("input", { type: "number", id: "claim", min: 0, max: 1000, step: 1, value: typed });
    actions.append(el("label", { for: "claim" }, t("table.claim")), claimInput);
  }
  if (view.can_call_muggins) {
    actions.append(el("button", { type: "button", id: "call-muggins", onclick: () => send({ type: "muggins", known_version: state.version }) }, t("table.muggins")));
  }
  if (focused && claimInput && claimInput.isConnected) claimInput.focus();
}

function tickClock() {
  const clock = $("clock");
  if (!state.deadline || !state.view || state.view.turn === null) {
    clock.textContent = "";
    return;
  }
  const seconds = Math.max(0, Math.ceil((state.deadline - performance.now()) / 1000));
  clock.textContent = t("table.clock", { s: seconds });
  clock.classList.toggle("low", seconds <= 10);
}

// ------------------------------------------------------------------ playing

function choose(tile) {
  const ends = legalEnds(tile);
  if (!ends.length) return;
  if (ends.length === 1) {
    play(tile, ends[0]);
    return;
  }
  state.pending = { tile, ends, chosen: 0 };
  render();
}

function play(tile, end) {
  const message = { type: "play", tile, end, known_version: state.version };
  if (state.info?.ruleset?.muggins_rule) {
    message.claim = Number($("claim")?.value || 0);
    if (claimInput) claimInput.value = "";
  }
  state.pending = null;
  send(message);
  render();
}

function onKey(event) {
  if (mode !== "play" || !state.view || !state.view.tiles || event.target.tagName === "INPUT") return;
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
    pending.chosen = (pending.chosen + step + pending.ends.length) % pending.ends.length;
    render();
    event.preventDefault();
  } else if (event.key === "Enter") {
    if (pending) play(pending.tile, pending.ends[pending.chosen]);
    else if (tiles[state.selected]) choose(tiles[state.selected]);
    event.preventDefault();
  } else if (event.key === "Escape" && pending) {
    state.pending = null;
    render();
  }
}

// ------------------------------------------------------------------ hand and game end

function panel(id, title, ...content) {
  const existing = $(id);
  if (existing) existing.remove();
  const box = el("section", { class: "panel", id, role: "dialog", "aria-label": title },
    el("h3", {}, title), ...content,
    el("button", { type: "button", class: "secondary", onclick: () => box.remove() }, t("table.close")));
  $("panels").prepend(box);
  return box;
}

function showHandOver(event) {
  const names = state.names;
  const outcome = event.outcome === "domino"
    ? t("table.domino", { name: names[event.winner_seat] ?? "" })
    : event.outcome === "blocked" ? t("table.blocked") : t("table.targetReached");
  const seats = event.hands.map((tiles, seat) => el("li", { dataset: { seat: String(seat) } },
    `${names[seat] ?? `#${seat}`}: `,
    el("span", { class: "hand-tiles" }, ...tiles.map((tile) => tileSvg(tile))),
    ` (${event.pips[seat]})`));
  const sidesCount = state.view ? state.view.scores.length : event.pips.length;
  const sideOf = (seat) => (sidesCount === 2 && event.pips.length === 4 ? seat % 2 : seat);
  const awards = state.awards.map((award) => {
    const others = event.pips.reduce((sum, pips, seat) => sum + (sideOf(seat) !== sideOf(award.seat) ? pips : 0), 0);
    return el("li", {}, `${describeEvent(award, names)} (${others} → ${award.points})`);
  });
  const commitment = state.commitments[event.hand];
  panel("hand-over", t("table.handOver", { hand: event.hand }),
    el("p", {}, outcome),
    el("ul", { class: "seat-hands" }, ...seats),
    awards.length ? el("ul", {}, ...awards) : null,
    el("p", {}, el("strong", {}, t("table.seed")), el("br"), el("span", { class: "seed", id: "revealed-seed" }, event.seed)),
    commitment ? el("p", {}, el("strong", {}, t("table.commitment")), el("br"), el("span", { class: "seed" }, commitment)) : null,
    el("p", {}, el("a", { href: `/replay/${encodeURIComponent(tableId)}/${event.hand}?game=${state.game}`, id: "verify-link" }, t("table.verify"))));
}

function showGameOver(event) {
  const sides = state.view ? sidesWords() : [];
  const text = event.winner_side === null ? t("table.drawnGame") : t("table.winner", { side: sides[event.winner_side] ?? `#${event.winner_side}` });
  panel("game-over", t("table.gameOver"),
    el("p", {}, text),
    el("p", {}, event.scores.map((points, side) => `${sides[side] ?? side}: ${points}`).join(" · ")),
    mode === "play" ? el("button", { type: "button", id: "rematch", onclick: () => send({ type: "rematch" }) }, t("table.rematch")) : null);
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

async function start() {
  const retranslate = async () => {
    try {
      state.info = await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`);
    } catch {
      // keep the words we have
    }
    showLinks();
    $("table-title").textContent = t("table.title", { id: tableId });
    if (!$("sit").hidden) showSit();
    render();
  };
  translatePage(retranslate);
  $("table-title").textContent = t("table.title", { id: tableId });
  try {
    state.info = await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`);
  } catch (problem) {
    fatal(problem.status === 404 ? t("table.noTable") : problem.message);
    return;
  }
  showLinks();
  $("sit-form").addEventListener("submit", sit);
  document.addEventListener("keydown", onKey);
  setInterval(tickClock, 250);
  if (mode === "play") {
    state.seat = loadSeat();
    if (!state.seat) {
      if (state.info.seats.some((s) => s.free)) {
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
