// The replay page: a finished hand, step by step, every hand visible, with the
// replay tool's verdict.  /replay/{table}/{hand}?game=N (game 1 by default).
import { drawBoard, tileSvg } from "./board.js";
import { api, el } from "./common.js";
import { describeEvent, t, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const [, , rawTable, rawHand] = location.pathname.split("/");
const tableId = decodeURIComponent(rawTable || "");
const hand = Number(rawHand);
const game = Number(new URLSearchParams(location.search).get("game") || "1");
let replay = null;
let position = 0;

function show() {
  if (!replay) return;
  $("replay-title").textContent = t("replay.title", { table: tableId, game, hand });
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

function go(to) {
  if (!replay) return;
  position = Math.max(0, Math.min(replay.steps.length - 1, to));
  show();
}

async function start() {
  translatePage(show);
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(position - 1));
  $("forward").addEventListener("click", () => go(position + 1));
  $("last").addEventListener("click", () => go(Infinity));
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
    $("fatal").textContent = t("replay.missing", { reason: problem.message });
    $("fatal").hidden = false;
    return;
  }
  $("back-to-table").href = `/play/${encodeURIComponent(tableId)}`;
  $("replay").hidden = false;
  show();
}

start();
