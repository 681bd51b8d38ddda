// @ts-check
// The rules and the score sheet, each in a dialog.
import { el } from "./common.js";
import { t } from "./i18n.js";
import { $, guideAddress, sidesWords } from "./table-render.js";
import { scoreLine } from "./table-result.js";

/** @typedef {import("./table-state.js").TableState} TableState */

/**
 * @param {TableState} state
 * @param {HTMLElement} target
 */
export function rulesList(state, target) {
  target.replaceChildren(...(state.info?.rules ?? []).flatMap((r) => [el("dt", {}, r.topic), el("dd", {}, r.text)]));
}

/** @param {TableState} state */
export function openRules(state) {
  if (!state.info) return;
  rulesList(state, $("rules-dialog-list"));
  /** @type {HTMLAnchorElement} */ ($("guide-link")).href = guideAddress(state);
  /** @type {HTMLDialogElement} */ ($("rules-dialog")).showModal();
}

/** @param {TableState} state */
export function openSheet(state) {
  const view = state.view;
  const body = $("sheet-body");
  const hands = Object.entries(state.sheet).map(([hand, lines]) => /** @type {const} */ ([Number(hand), lines]));
  if (!view || !hands.length) {
    body.replaceChildren(el("p", { class: "muted" }, t("table.sheetEmpty")));
  } else {
    const sides = sidesWords(state);
    const totals = view.scores.map(() => 0);
    const rows = hands.map(([hand, lines]) => {
      const perSide = view.scores.map(() => 0);
      for (const line of lines) perSide[line.side] += line.points;
      perSide.forEach((points, side) => { totals[side] += points; });
      return el("tr", {}, el("th", { scope: "row" }, hand),
        ...perSide.map((points, side) => el("td", { class: "num", title: lines.filter((l) => l.side === side).map((l) => scoreLine(state, l)).join("\n") }, points || "·")));
    });
    const details = hands.map(([hand, lines]) => el("li", {},
      el("strong", {}, t("table.hand", { hand })),
      el("ul", {}, ...(lines.length ? lines.map((line) => el("li", {}, scoreLine(state, line))) : [el("li", {}, "—")]))));
    body.replaceChildren(
      el("table", { class: "board sheet", id: "score-sheet" },
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("table.sheetHand")), ...sides.map((name) => el("th", { scope: "col", class: "num" }, name)))),
        el("tbody", {}, ...rows),
        el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, t("table.sheetTotal")), ...totals.map((points) => el("td", { class: "num" }, points))))),
      el("ul", { class: "score-details" }, ...details));
  }
  /** @type {HTMLDialogElement} */ ($("sheet-dialog")).showModal();
}
