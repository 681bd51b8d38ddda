// @ts-check
// What the table is doing (the server's muggins.domain.table_life): who left
// and since when, the pause and its choices, what was chosen, the close; and
// the notice that a bot plays the reader's seat, with "I'm back".
import { el, personName } from "./common.js";
import { t } from "./i18n.js";
import { $, seatLabel } from "./table-render.js";
import { mySeat } from "./table-state.js";

/** @typedef {import("./table-render.js").Page} Page */
/** @typedef {import("./protocol-types.js").LifeView} LifeView */
/** @typedef {import("./protocol-types.js").MissingSeat} MissingSeat */

/** @param {LifeView} life */
function missingNames(life) {
  return (life.missing ?? []).map((m) => (m.name ? personName(m.name) : seatLabel(m.seat))).join(", ");
}

/**
 * The table's life in a sentence ("" when there is nothing to say).
 * @param {LifeView} life
 */
export function lifeText(life) {
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
  if (life.kind === "paused") return t("life.paused", { names, ago: agoText(life.missing ?? []) });
  if (life.missing?.length) return t("life.leftHand", { names });
  return "";
}

/** @param {MissingSeat[]} missing */
function agoText(missing) {
  const since = Math.max(...missing.map((m) => (m.since ? Date.parse(m.since) : Date.now())));
  const seconds = Math.max(0, Math.round((Date.now() - since) / 1000));
  // In whole minutes: the notice is read out when it changes.
  return seconds < 60 ? t("life.underAMinute") : t("life.minutes", { n: Math.floor(seconds / 60) });
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let lifeTimer;

/** @param {Page} page */
export function renderLife(page) {
  const state = page.state;
  const life = state.life;
  const box = $("life");
  clearTimeout(lifeTimer);
  // What a closed table hides (the rematch, hints) keys on this.
  document.body.dataset.life = life?.kind ?? "";
  const text = life ? lifeText(life) : "";
  box.hidden = !text;
  if (!life || box.hidden) {
    box.replaceChildren();
    renderTakeover(page);
    return;
  }
  box.dataset.kind = life.kind;
  const seat = mySeat(state);
  const mine = seat !== null;
  const iLeft = mine && (life.missing ?? []).some((m) => m.seat === seat);
  const opensIn = life.choices_from ? Date.parse(life.choices_from) - Date.now() : 0;
  const again = () => { lifeTimer = setTimeout(() => renderLife(page), 1000); };
  // The same notice as a second ago (only the times moved on): change the
  // words in place, so that a screen reader is not told it all again and a
  // click on a button is not lost to a redraw.
  const shape = [life.kind, life.reason, life.choice, iLeft, mine, opensIn > 0, document.documentElement.lang].join("|");
  if (box.dataset.shape === shape && document.getElementById("life-text")) {
    $("life-text").textContent = text;
    const wait = document.getElementById("life-wait");
    if (wait) wait.textContent = t("life.choicesIn", { n: Math.ceil(opensIn / 1000) });
    if (life.kind === "paused") again();
    renderTakeover(page);
    return;
  }
  box.dataset.shape = shape;
  const parts = [el("span", { id: "life-text" }, text)];
  if (life.kind === "closed") {
    parts.push(el("a", { class: "button secondary", id: "life-replays", href: `/replay/${encodeURIComponent(page.tableId)}/1?game=${state.game || 1}` }, t("life.replays")),
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
        el("button", { type: "button", id: "life-bot", onclick: () => page.send({ type: "decide", choice: "bot" }) }, t("life.playOn")),
        el("button", { type: "button", class: "secondary", id: "life-seat", onclick: () => page.send({ type: "decide", choice: "seat" }) }, t("life.openSeat")),
        el("button", { type: "button", class: "secondary", id: "life-end", onclick: () => page.send({ type: "decide", choice: "end" }) }, t("life.end")),
        el("span", { class: "muted" }, t("life.orWait"))));
    }
    // The countdown and "left N s ago" move on by themselves.
    again();
  } else if (life.kind === "paused") {
    parts.push(el("span", { class: "muted" }, t("life.theyChoose")));
    again();
  }
  box.replaceChildren(...parts);
  renderTakeover(page);
}

// A bot took the seat (the clock ran out, or the player was away): it is
// the player's to take back, explicitly, right under the status line.
/** @param {Page} page */
function renderTakeover(page) {
  const state = page.state;
  const view = state.view;
  const notice = $("takeover");
  const seat = mySeat(state);
  const mine = view && seat !== null && view.seat !== null && view.seat !== undefined ? view.seats[view.seat] : null;
  // At a closed table there is nothing to take back.
  notice.hidden = !mine?.bot || state.life?.kind === "closed";
  if (notice.hidden) {
    notice.replaceChildren();
    return;
  }
  if (document.getElementById("back") && notice.dataset.lang === document.documentElement.lang) return;
  notice.dataset.lang = document.documentElement.lang;
  notice.replaceChildren(el("span", { id: "bot-playing" }, t("table.botPlaying")),
    el("button", { type: "button", id: "back", onclick: () => page.send({ type: "back" }) }, t("table.back")));
}
