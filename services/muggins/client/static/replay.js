// The replay page: a finished hand, step by step, every hand visible, with the
// replay tool's verdict.  /replay/{table}/{hand}?game=N (game 1 by default).
import { drawBoard, tileSvg } from "./board.js";
import { api, el } from "./common.js";
import { openDisputeDialog, receiptButton } from "./evidence.js";
import { describeEvent, endPhrase, language, refusalOf, t, tileText, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const [, , rawTable, rawHand] = location.pathname.split("/");
const tableId = decodeURIComponent(rawTable || "");
const hand = Number(rawHand);
const game = Number(new URLSearchParams(location.search).get("game") || "1");
let replay = null;
let position = 0;
let analysis = null;
// What people call the table ("Ana's table", the server's words: muggins.tables.names).
let tableName = null;

function show() {
  if (!replay) return;
  const title = t("replay.titleNamed", { table: tableName ?? tableId, game, hand });
  $("replay-title").textContent = title;
  document.title = `${title} · muggins`;
  const verdict = $("verdict");
  verdict.className = `verdict ${replay.status === "fair" ? "fair" : "problems"}`;
  verdict.dataset.status = replay.status;
  verdict.replaceChildren(...(replay.status === "fair"
    ? [t("replay.fair")]
    : [t("replay.problems"), el("ul", {}, ...replay.problems.map((p) => el("li", {}, p)))]));
  const step = replay.steps[position];
  $("step-number").textContent = t("replay.step", { n: position + 1, total: replay.steps.length });
  $("step-number").dataset.step = String(position + 1);
  $("step-text").textContent = describeEvent(step.event, replay.names) ?? step.summary;
  $("count").textContent = step.layout.count;
  $("boneyard").textContent = t("table.boneyard", { n: step.boneyard });
  $("scores").textContent = `${t("replay.scores")}: ${sideNames(replay, step.scores).join(" · ")}`;
  drawBoard($("layout"), step.layout);
  $("hands").replaceChildren(...step.hands.map((tiles, seat) => el("li", { dataset: { seat: String(seat) } },
    el("strong", {}, `${replay.names[seat]}${step.turn === seat ? ` ${t("table.toPlay")}` : ""}: `),
    el("span", { class: "hand-tiles" }, ...tiles.map((tile) => tileSvg(tile))))));
  $("commitment").textContent = replay.commitment;
  $("seed").textContent = replay.seed;
  showJudgement();
  $("first").disabled = $("back").disabled = position === 0;
  $("last").disabled = $("forward").disabled = position === replay.steps.length - 1;
}

// "Ana 35 · Bruno 20", or by partnership ("Ana & Carmen 35").
function sideNames(replay, scores) {
  const pairs = replay.partnerships;
  return scores.map((points, side) => {
    const who = pairs ? t("side.pair", { a: replay.names[side], b: replay.names[side + 2] }) : replay.names[side];
    return `${who} ${points}`;
  });
}

function playText(tile, end) {
  const shown = tileText(tile);
  return end === null ? t("analysis.lead", { tile: shown }) : t("analysis.play", { tile: shown, at: endPhrase(end) });
}

function judgementText(decision) {
  const who = replay.names[decision.seat];
  const played = playText(decision.tile, decision.end);
  if (decision.given_up < 0.05) return t("analysis.agrees", { name: who, play: played });
  return t("analysis.prefers", {
    name: who, play: played, better: playText(decision.preferred_tile, decision.preferred_end),
    points: decision.given_up.toFixed(1),
  });
}

// What the expert thought of the decision at this step, if there was one.
function showJudgement() {
  const box = $("step-judgement");
  const decision = analysis?.decisions.find((d) => d.step === position + 1);
  box.hidden = !decision;
  if (!decision) return;
  box.className = `judgement${decision.costly ? " costly" : ""}`;
  box.textContent = judgementText(decision);
}

async function runAnalysis() {
  $("analyse").disabled = true;
  $("analysis-summary").textContent = t("analysis.thinking");
  try {
    analysis = await api(`/tables/${encodeURIComponent(tableId)}/games/${game}/hands/${hand}/analysis`);
  } catch (problem) {
    $("analysis-summary").textContent = refusalOf(problem);
    $("analyse").disabled = false;
    return;
  }
  const costly = analysis.decisions.filter((d) => d.costly).length;
  const lost = analysis.decisions.reduce((sum, d) => sum + d.given_up, 0);
  $("analysis-summary").textContent = t("analysis.summary", { n: analysis.decisions.length, costly, points: lost.toFixed(1) });
  $("decisions").replaceChildren(...analysis.decisions.map((decision) => el("li", { class: decision.costly ? "costly" : null },
    el("button", { type: "button", class: "secondary small", onclick: () => go(decision.step - 1) }, t("replay.step", { n: decision.step, total: replay.steps.length })),
    " ", judgementText(decision))));
  $("analyse").hidden = true;
  show();
}

function go(to) {
  if (!replay) return;
  position = Math.max(0, Math.min(replay.steps.length - 1, to));
  show();
}

async function start() {
  translatePage(() => { if (replay) showEvidence(); loadName().then(show); });
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(position - 1));
  $("forward").addEventListener("click", () => go(position + 1));
  $("last").addEventListener("click", () => go(Infinity));
  $("analyse").addEventListener("click", runAnalysis);
  document.addEventListener("keydown", (event) => {
    const moves = { ArrowRight: position + 1, ArrowLeft: position - 1, Home: 0, End: Infinity };
    if (event.key in moves) {
      go(moves[event.key]);
      event.preventDefault();
    }
  });
  try {
    replay = await api(`/tables/${encodeURIComponent(tableId)}/games/${game}/hands/${hand}/replay`);
  } catch (problem) {
    $("fatal").textContent = t("replay.missing", { reason: refusalOf(problem) });
    $("fatal").hidden = false;
    return;
  }
  await loadName();
  $("back-to-table").href = `/play/${encodeURIComponent(tableId)}`;
  $("replay").hidden = false;
  showEvidence();
  show();
}

async function loadName() {
  try {
    tableName = (await api(`/tables/${encodeURIComponent(tableId)}?lang=${language()}`)).name || null;
  } catch {
    // the id names it well enough
  }
}

// The hand's receipt, and a dispute for a player who sat at this table in this browser.
function showEvidence() {
  let seat = null;
  try {
    seat = JSON.parse(localStorage.getItem(`muggins.seat.${tableId}`) || "null");
  } catch {
    seat = null;
  }
  const sent = el("span", { class: "muted", id: "dispute-sent", "aria-live": "polite" });
  const dispute = seat && seat.token
    ? el("button", { type: "button", class: "secondary small", id: "dispute-hand", onclick: () => openDisputeDialog(tableId, seat.token, game, hand, () => { sent.textContent = t("evidence.sent"); }) }, t("evidence.dispute"))
    : null;
  const file = el("a", { href: `/tables/${encodeURIComponent(tableId)}/evidence?game=${game}&hand=${hand}`, id: "evidence-file", download: "" }, t("evidence.file"));
  // (No dispute button for a reader who did not sit here: nothing, not "null".)
  $("evidence").replaceChildren(...[receiptButton(tableId, game, hand), " ", file, " ", dispute, " ", sent].filter((part) => part !== null));
}

start();
