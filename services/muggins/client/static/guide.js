// A preset's guide: /guide/{preset}.  Rules in words, worked examples drawn
// as boards (the server's rules engine made them), strategy tips, questions.
import { drawBoard } from "./board.js";
import { api, el } from "./common.js";
import { endName, language, t, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const [, , rawName] = location.pathname.split("/");
const name = decodeURIComponent(rawName || "");

async function show() {
  let guide;
  try {
    guide = await api(`/guides/${encodeURIComponent(name)}?lang=${language()}`);
  } catch (problem) {
    $("fatal").textContent = problem.message;
    $("fatal").hidden = false;
    return;
  }
  document.title = `${guide.title} · muggins`;
  $("guide-title").textContent = guide.title;
  $("guide-summary").textContent = guide.summary;
  // (The first rule names the variant: the title and summary above say it.)
  $("guide-rules").replaceChildren(...guide.rules.slice(1).flatMap((r) => [el("dt", {}, r.topic), el("dd", {}, r.text)]));
  $("guide-examples").replaceChildren(...guide.examples.map((example, index) => {
    const board = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    board.setAttribute("class", "layout example");
    board.setAttribute("role", "img");
    board.setAttribute("aria-label", example.caption);
    const item = el("li", { class: `example${example.points ? " scores" : ""}`, dataset: { step: String(index + 1) } },
      el("div", { class: "final-felt" }, board), el("p", {}, `${index + 1}. ${example.caption}`));
    drawBoard(board, example.layout, { endLabel: endName });
    return item;
  }));
  $("guide-award").textContent = guide.award_example;
  $("guide-tips").replaceChildren(...guide.tips.map((tip) => el("li", {}, tip)));
  $("guide-faq").replaceChildren(...guide.questions.flatMap(([question, answer]) => [el("dt", {}, question), el("dd", {}, answer)]));
  const presets = await api(`/presets?lang=${language()}`);
  $("guide-preset").replaceChildren(...presets.map((p) => el("option", { value: p.preset }, p.title)));
  $("guide-preset").value = name;
  $("guide").hidden = false;
  // A link to a part (the table's "How it works": #faq) finds it once it is drawn.
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
}

translatePage(show);
$("guide-preset").addEventListener("change", () => {
  location.href = `/guide/${encodeURIComponent($("guide-preset").value)}`;
});
show();
