// The lobby: play now against the computer in one click, or choose a game and
// whom to play with; every table's knobs under "More options"; open tables
// (free seats first) and games being played; the leaderboard.
import { api, el, guestName, nameToSitWith, personName, playerIdentity, rememberIdentity, rememberName, savedName, takeSeat } from "./common.js";
import { language, refusalOf, t, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let presets = [];
// The preset the reader picked (null: the default); kept while the seating
// changes, even through a seating it does not allow.
let wanted = null;
let boardPage = 1;
let openPage = 1;
const OPEN_PER_PAGE = 30;
const PER_PAGE = 20;

let presetRequest = 0;

async function loadPresets() {
  const seats = Number($("seats").value);
  const partnerships = $("partnerships").checked;
  const request = ++presetRequest;
  const answer = await api(`/presets?seats=${seats}&partnerships=${partnerships}&lang=${language()}`);
  if (request !== presetRequest) return; // the seating changed again meanwhile
  presets = answer;
  const select = $("preset");
  select.replaceChildren(...presets.map((p) => el("option", { value: p.preset }, p.title)));
  const chosen = presets.find((p) => p.preset === wanted)
    ?? presets.find((p) => p.default) ?? presets[0];
  if (chosen) select.value = chosen.preset;
  showRules();
  const boardSelect = $("board-preset");
  const shown = boardSelect.value;
  boardSelect.replaceChildren(...presets.map((p) => el("option", { value: p.preset }, p.title)));
  boardSelect.value = shown || (presets.find((p) => p.default)?.preset ?? presets[0].preset);
}

function showRules() {
  const choice = presets.find((p) => p.preset === $("preset").value);
  const unavailable = $("preset-unavailable");
  unavailable.hidden = !choice || choice.available;
  if (choice && !choice.available) unavailable.textContent = t("lobby.unavailable", { reason: choice.reason });
  $("create-button").disabled = !choice || !choice.available;
  $("preset-summary").textContent = choice ? choice.summary : "";
  $("guide-link").href = `/guide/${encodeURIComponent($("preset").value)}?lang=${language()}`;
  // (The first line names the variant and says what it is: shown above already.)
  $("rules").replaceChildren(...(choice ? choice.rules.slice(1).flatMap((r) => [el("dt", {}, r.topic), el("dd", {}, r.text)]) : []));
}

// Why a table was not made: past the address's tables a minute (the
// service's rate limit, a 429 without a code of its own), or a refusal.
function createRefusal(problem) {
  return problem.status === 429 ? t("lobby.createLater") : refusalOf(problem);
}

// The computer's levels, weakest first: the ladder the API names
// (muggins.bots.levels), each said in a line of plain words (i18n.js).
const LEVELS = ["easy", "medium", "hard", "expert"];
// Against the computer in one click: the strongest level, as before the
// ladder (a newcomer plays what the game is at its best; an easier level is
// one click away, right under the button).
const QUICK_LEVEL = "expert";

function quickLevel() {
  return document.querySelector("input[name=quick-level]:checked")?.value ?? QUICK_LEVEL;
}

function showLevelChoice() {
  const chosen = quickLevel();
  $("quick-levels").replaceChildren(...LEVELS.map((level) => el("div", {},
    el("label", { class: "inline" },
      el("input", { type: "radio", name: "quick-level", value: level, checked: level === chosen }),
      el("span", {}, el("strong", {}, t(`level.${level}`)), ` · ${t(`level.${level}.about`)}`)))));
  showPlayNowAbout();
}

function showPlayNowAbout() {
  const usual = duelPresets.find((p) => p.default) ?? duelPresets[0];
  if (!usual) return;
  $("play-now-about").textContent = t("lobby.playNowAbout",
    { game: usual.title, level: t(`level.${quickLevel()}`), minutes: CLOCK_AGAINST_BOTS / 60 });
}

function showBotSeats() {
  const seats = Number($("seats").value);
  const holder = $("bot-seats");
  const previous = [...holder.querySelectorAll("select")].map((s) => s.value);
  holder.replaceChildren();
  for (let seat = 0; seat < seats; seat += 1) {
    const fallback = seat === 0 ? "person" : "medium";
    const select = el("select", { id: `seat-${seat}`, name: `seat-${seat}` },
      el("option", { value: "person" }, t("lobby.person")),
      ...LEVELS.map((level) => el("option", { value: level }, t("lobby.botLevel", { level: t(`level.${level}`) }))));
    select.value = previous[seat] ?? fallback;
    const partners = seats === 4 && $("partnerships").checked && seat >= 2;
    const label = partners ? t("lobby.partnerOf", { seat: seat + 1, partner: seat - 1 }) : t("lobby.seat", { seat: seat + 1 });
    holder.append(el("div", { class: "seat-choice" }, el("label", { for: `seat-${seat}` }, label), select));
  }
}

async function createTable(event) {
  event.preventDefault();
  const error = $("create-error");
  error.hidden = true;
  const seats = Number($("seats").value);
  const bots = [];
  for (let seat = 0; seat < seats; seat += 1) {
    const level = $(`seat-${seat}`).value;
    if (level !== "person") bots.push({ seat, level });
  }
  const body = {
    preset: $("preset").value,
    seats,
    partnerships: $("partnerships").checked,
    bots,
    turn_clock_seconds: Number($("clock").value) || 60,
    chat: $("chat").checked,
  };
  const target = $("target").value.trim();
  const overrides = {};
  if (target) overrides.target = Number(target);
  if ($("hints").checked) overrides.hints = true;
  if (Object.keys(overrides).length) body.overrides = overrides;
  try {
    const table = await api("/tables", { method: "POST", body: JSON.stringify(body) });
    const link = `${location.origin}/play/${table.table_id}`;
    $("share-link").value = link;
    $("go-to-table").href = `/play/${table.table_id}`;
    $("created").hidden = false;
    refreshTables();
  } catch (problem) {
    error.textContent = createRefusal(problem);
    error.hidden = false;
  }
}

// Refreshes asked, so that only the latest one's answer is drawn: an answer
// to an earlier one (the timer's, in the language the page had a moment ago,
// or for another page of the list) may come after it.
let tablesAsked = 0;
let boardAsked = 0;

async function refreshTables() {
  const asked = ++tablesAsked;
  let lobby;
  try {
    lobby = await api(`/lobby?limit=${OPEN_PER_PAGE}&page=${openPage}&lang=${language()}`);
  } catch {
    return; // try again at the next refresh
  }
  if (asked !== tablesAsked) return; // a later refresh draws the list
  // Named for people ("Ana's table") and by the game they play, in the reader's language (the server's words).
  const open = lobby.open.map((table) => el("li", { dataset: { table: table.table_id } },
    el("span", {}, el("strong", { class: "table-name" }, table.name), ` · ${table.title} · `,
      // A seat given up by someone who left, the game going on (unrated) once taken.
      table.in_progress
        ? t("lobby.seatInProgress", { scores: (table.scores ?? []).join("–") })
        : t("lobby.freeSeats", { free: table.free_seats, seats: table.seats }),
      table.waiting ? el("span", { class: "badge" }, t("lobby.waiting", { n: table.waiting })) : null),
    el("a", { class: "button", href: `/play/${table.table_id}` }, t("lobby.join"))));
  const pages = Math.max(1, Math.ceil(lobby.open_total / OPEN_PER_PAGE));
  $("open-pager").hidden = pages <= 1;
  $("open-page").textContent = t("board.page", { page: openPage });
  $("open-prev").disabled = openPage <= 1;
  $("open-next").disabled = openPage >= pages;
  $("open-tables").replaceChildren(...(open.length ? open : [el("li", { class: "muted" }, t("lobby.none"))]));
  const playing = lobby.playing.map((table) => el("li", { dataset: { table: table.table_id } },
    el("span", {}, el("strong", { class: "table-name" }, table.name), ` · ${table.title} · `, table.names.map((name) => (name === null || name === undefined ? "?" : personName(name))).join(" · "), " — ", table.view.scores.join(" : ")),
    el("a", { class: "button secondary", href: `/watch/${table.table_id}` }, t("lobby.watch"))));
  $("playing-tables").replaceChildren(...(playing.length ? playing : [el("li", { class: "muted" }, t("lobby.none"))]));
}

async function refreshBoard() {
  const preset = $("board-preset").value;
  if (!preset) return;
  const asked = ++boardAsked;
  const board = await api(`/leaderboard?preset=${encodeURIComponent(preset)}&page=${boardPage}&per_page=${PER_PAGE}`);
  if (asked !== boardAsked) return; // a later refresh (another preset or page) draws the board
  const rows = board.players.map((line) => el("tr", {},
    el("td", { class: "num" }, line.rank),
    // Every bot of a level is one player: named by its level, in the reader's words.
    el("td", {}, line.bot ? el("span", {}, t(`level.${line.player_id.replace("bot:", "")}`), el("span", { class: "badge bot" }, t("bot")))
      : personName(line.name)),
    el("td", { class: "num" }, line.rating.toFixed(1)),
    // "31 (left 2)": the games a player left and did not come back to.
    el("td", { class: "num" }, line.games, line.abandoned
      ? el("span", { class: "muted left-games", title: t("board.leftTitle", { n: line.abandoned, games: line.games }) },
        ` ${t("board.left", { n: line.abandoned })}`) : null),
    el("td", { class: "num" }, line.won),
    el("td", { class: "num wide" }, line.points_per_hand.toFixed(1)),
    el("td", { class: "num wide" }, line.best_play)));
  $("board-rows").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 7, class: "muted" }, t("board.empty")))]));
  $("board-page").textContent = t("board.page", { page: boardPage });
  $("board-prev").disabled = boardPage <= 1;
  $("board-next").disabled = boardPage * PER_PAGE >= board.total;
}

// ------------------------------------------------------------------ playing at once

// The presets for one against one and for partnerships (what each allows, in words).
let duelPresets = [];
let pairPresets = [];
// A person alone among bots keeps nobody waiting: a turn of minutes, not the
// service's 30 s, which a newcomer spends reading the table and then finds a
// bot playing their hand.
const CLOCK_AGAINST_BOTS = 300;

let quickRequest = 0;

async function loadQuickChoices() {
  const request = ++quickRequest;
  const [duels, pairs] = await Promise.all([
    api(`/presets?seats=2&partnerships=false&lang=${language()}`),
    api(`/presets?seats=4&partnerships=true&lang=${language()}`),
  ]);
  if (request !== quickRequest) return; // the language changed again meanwhile
  duelPresets = duels;
  pairPresets = pairs;
  const select = $("quick-game");
  const shown = select.value;
  select.replaceChildren(...duels.map((p) => el("option", { value: p.preset }, p.title)));
  select.value = shown || (duels.find((p) => p.default) ?? duels[0]).preset;
  showLevelChoice();
  $("games-in-words").replaceChildren(...duels.flatMap((p) => [el("dt", {}, p.title), el("dd", {}, p.summary)]));
  $("words-explained").replaceChildren(...WORDS_EXPLAINED.flatMap((word) => [
    el("dt", {}, t(`lobby.word.${word}`)), el("dd", {}, t(`lobby.word.${word}.means`))]));
  showGameChoice();
}

// The jargon the rules use, each said in plain words (i18n.js).
const WORDS_EXPLAINED = ["count", "spinner", "boneyard", "out", "blocked", "partners", "muggins"];

function showGameChoice() {
  const name = $("quick-game").value;
  const duel = duelPresets.find((p) => p.preset === name);
  $("game-summary").textContent = duel ? duel.summary : "";
  const pairs = pairPresets.find((p) => p.preset === name);
  const allowed = Boolean(pairs?.available);
  $("quick-pairs-bots").disabled = !allowed;
  $("quick-pairs-friends").disabled = !allowed;
  $("pairs-unavailable").hidden = allowed;
  $("pairs-unavailable").textContent = allowed ? "" : (pairs?.reason ?? "");
}

// The name to sit with: the one typed, else the one this browser sat with
// before, else a new guest's (read in each page's language, never kept as words).
function nameForPlayNow() {
  const typed = $("play-name").value.trim();
  if (typed) return typed;
  return nameToSitWith() || guestName(100 + Math.floor(Math.random() * 900));
}

// Create a table, sit at seat 1 (seat 0 on the wire), and open it: the
// table page finds the seat's token where it keeps them.
async function playAt(body, button) {
  const error = $("play-error");
  error.hidden = true;
  const buttons = document.querySelectorAll("#play button");
  buttons.forEach((b) => { b.dataset.wasDisabled = b.disabled ? "1" : ""; b.disabled = true; });
  try {
    const table = await api(`/tables?lang=${language()}`, { method: "POST", body: JSON.stringify(body) });
    await takeSeat(table.table_id, 0, nameForPlayNow());
    location.assign(`/play/${encodeURIComponent(table.table_id)}`);
  } catch (problem) {
    error.textContent = createRefusal(problem);
    error.hidden = false;
    buttons.forEach((b) => { b.disabled = b.dataset.wasDisabled === "1"; });
    if (button) button.focus();
  }
}

function quickTable(preset, { seats, partnerships = false, bots = [] }) {
  const level = quickLevel();
  const table = { preset, seats, partnerships, bots: bots.map((seat) => ({ seat, level })) };
  return bots.length === seats - 1 ? { ...table, turn_clock_seconds: CLOCK_AGAINST_BOTS } : table;
}

function setUpQuickPlay() {
  $("play-name").value = nameToSitWith();
  const defaultPreset = () => (duelPresets.find((p) => p.default) ?? duelPresets[0])?.preset ?? "playelephant";
  const game = () => $("quick-game").value || defaultPreset();
  const on = (id, body) => $(id).addEventListener("click", () => playAt(body(), $(id)));
  on("play-now", () => quickTable(defaultPreset(), { seats: 2, bots: [1] }));
  on("quick-duel-bots", () => quickTable(game(), { seats: 2, bots: [1] }));
  on("quick-duel-friends", () => quickTable(game(), { seats: 2 }));
  on("quick-pairs-bots", () => quickTable(game(), { seats: 4, partnerships: true, bots: [1, 2, 3] }));
  on("quick-pairs-friends", () => quickTable(game(), { seats: 4, partnerships: true }));
  $("quick-game").addEventListener("change", showGameChoice);
  $("quick-levels").addEventListener("change", showPlayNowAbout);
}

// One player across browsers: the identity travels in the address's
// fragment (never sent to the server): #identity=ID.SECRET&name=NAME.
function identityInAddress() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const match = /^([0-9a-fA-F-]{8,64})\.([A-Za-z0-9_-]{8,128})$/.exec(fragment.get("identity") ?? "");
  if (!match) return null;
  return { player_id: match[1], secret: match[2], name: (fragment.get("name") ?? "").trim().slice(0, 24) };
}

// Taking an identity from a link is always asked: the link may be anyone's,
// and the browser it came from keeps it too.  Declining changes nothing.
async function offerIdentityFromAddress() {
  if (!location.hash.startsWith("#identity=")) return;
  const offered = identityInAddress();
  // The secret leaves the address (and the history) whatever the answer.
  history.replaceState(null, "", location.pathname + location.search);
  const mine = playerIdentity();
  if (!offered || (mine && mine.player_id === offered.player_id && mine.secret === offered.secret)) return;
  if (!await askToTakeIdentity(offered, mine)) return;
  rememberIdentity(offered.player_id, offered.secret);
  if (offered.name && !savedName()) rememberName(offered.name);
}

function askToTakeIdentity(offered, mine) {
  const dialog = $("identity-dialog");
  $("identity-dialog-whose").textContent = offered.name
    ? t("lobby.identityOf", { name: offered.name }) : t("lobby.identityOfSomeone");
  $("identity-dialog-replace").hidden = !mine;
  dialog.returnValue = "";
  dialog.showModal();
  // Escape closes it too: with no answer, which is a no.
  return new Promise((resolve) => dialog.addEventListener(
    "close", () => resolve(dialog.returnValue === "accept"), { once: true }));
}

function showIdentity() {
  // A guest's name in the field reads in this page's words (it stays a guest's: takeSeat keeps its number).
  $("play-name").value = personName($("play-name").value);
  const identity = playerIdentity();
  $("identity-card").hidden = !identity;
  if (!identity) return;
  const name = nameToSitWith();
  $("identity-name").textContent = t("lobby.playingAs", { name: name || "?" });
  const named = name ? `&name=${encodeURIComponent(name)}` : "";
  $("identity-link").value = `${location.origin}/#identity=${identity.player_id}.${identity.secret}${named}`;
}

function showIdentityStatus(text, isError) {
  const status = $("identity-status");
  status.textContent = text;
  status.classList.toggle("error", isError);
  status.hidden = false;
}

// "Sign out my other browsers": a new secret; every copy of the old one stops working.
async function rotateSecret() {
  const identity = playerIdentity();
  if (!identity) return;
  const button = $("rotate-identity");
  button.disabled = true;
  try {
    const answer = await api(`/players/${encodeURIComponent(identity.player_id)}/secret`, {
      method: "POST", body: JSON.stringify({ secret: identity.secret }),
    });
    rememberIdentity(answer.player_id, answer.secret);
    showIdentityStatus(t("lobby.rotated"), false);
  } catch (problem) {
    if (problem.status === 403 || problem.status === 404) {
      // Another browser rotated it first: this one is signed out.
      localStorage.removeItem("muggins.player");
      showIdentityStatus(t("lobby.signedOut"), true);
    } else {
      showIdentityStatus(problem.status === 429 ? t("lobby.rotateLater") : refusalOf(problem), true);
    }
  } finally {
    button.disabled = false;
    showIdentity();
  }
}

async function start() {
  showIdentity();
  $("copy-identity").addEventListener("click", async () => {
    $("identity-link").select();
    try { await navigator.clipboard.writeText($("identity-link").value); } catch { document.execCommand("copy"); }
    $("copy-identity").textContent = t("lobby.copied");
  });
  $("rotate-identity").addEventListener("click", rotateSecret);
  translatePage(() => { showBotSeats(); loadPresets(); loadQuickChoices(); refreshTables(); refreshBoard(); showIdentity(); });
  setUpQuickPlay();
  // Asked once the page has its words; the lobby loads behind the question.
  offerIdentityFromAddress().then(showIdentity);
  showBotSeats();
  $("seats").addEventListener("change", () => {
    const four = $("seats").value === "4";
    $("partnerships").disabled = !four;
    if (!four) $("partnerships").checked = false;
    showBotSeats();
    loadPresets();
  });
  $("partnerships").addEventListener("change", () => { showBotSeats(); loadPresets(); });
  $("preset").addEventListener("change", () => { wanted = $("preset").value; showRules(); });
  $("create-form").addEventListener("submit", createTable);
  $("copy-link").addEventListener("click", async () => {
    $("share-link").select();
    try { await navigator.clipboard.writeText($("share-link").value); } catch { document.execCommand("copy"); }
    $("copy-link").textContent = t("lobby.copied");
  });
  $("board-preset").addEventListener("change", () => { boardPage = 1; refreshBoard(); });
  $("board-prev").addEventListener("click", () => { boardPage -= 1; refreshBoard(); });
  $("board-next").addEventListener("click", () => { boardPage += 1; refreshBoard(); });
  $("open-prev").addEventListener("click", () => { openPage -= 1; refreshTables(); });
  $("open-next").addEventListener("click", () => { openPage += 1; refreshTables(); });
  await Promise.all([loadPresets(), loadQuickChoices()]);
  await Promise.all([refreshTables(), refreshBoard()]);
  setInterval(refreshTables, 5000);
  setInterval(refreshBoard, 15000);
}

start();
