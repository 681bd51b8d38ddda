// @ts-check
// The table's chat: what was said (the state's `chat`), the quick phrases,
// and muting a name (kept in the browser).
import { el, nameToSitWith, personName } from "./common.js";
import { t } from "./i18n.js";
import { $, seatLabel } from "./table-render.js";

/** @typedef {import("./table-render.js").Page} Page */

const MUTED_KEY = "muggins.muted";
const PHRASES = ["hi", "gg", "wp", "nice", "thanks", "oops"];

function mutedNames() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

/**
 * @param {Page} page
 * @param {string} name
 */
function toggleMute(page, name) {
  const muted = mutedNames();
  if (muted.has(name)) muted.delete(name); else muted.add(name);
  localStorage.setItem(MUTED_KEY, JSON.stringify([...muted]));
  renderChat(page, { force: true });
}

/** @type {unknown} */
let drawnChat = null;

/** @param {Page} page */
export function renderChat(page, { force = false } = {}) {
  const chat = page.state.chat;
  if (!force && chat === drawnChat) return;
  drawnChat = chat;
  const muted = mutedNames();
  const list = $("chat");
  const lines = chat.map((line) => {
    const silenced = muted.has(line.name);
    // A spectator's line always says so, whatever name they gave: nobody watching reads as seated.
    // (A spectator who gave no name is "spectator" on the wire: said in the reader's words.)
    const spectator = line.seat === null || line.seat === undefined;
    const shownName = spectator && line.name === "spectator" ? t("table.chatSpectator") : personName(line.name);
    const who = !spectator ? `${shownName} (${seatLabel(line.seat)})`
      : line.name === "spectator" ? shownName : `${shownName} (${t("table.chatWatching")})`;
    return el("li", { class: silenced ? "muted-line" : null, dataset: { id: String(line.id) } },
      el("button", {
        type: "button", class: "chat-name", title: t(silenced ? "table.chatUnmute" : "table.chatMute", { name: shownName }),
        "aria-label": t(silenced ? "table.chatUnmute" : "table.chatMute", { name: shownName }),
        onclick: () => toggleMute(page, line.name),
      }, who), ": ",
      el("span", { class: "chat-text" }, silenced ? t("table.chatMuted") : line.phrase ? t(`phrase.${line.phrase}`) : line.text));
  });
  list.replaceChildren(...(lines.length ? lines : [el("li", { class: "muted" }, t("table.chatEmpty"))]));
  list.scrollTop = list.scrollHeight;
}

/**
 * @param {Page} page
 * @param {Record<string, unknown>} content
 */
function chatMessage(page, content) {
  return page.state.mode === "watch" ? { type: "chat", name: nameToSitWith(), ...content } : { type: "chat", ...content };
}

/** The chat's form and phrases, in the reader's words. @param {Page} page */
export function setUpChat(page) {
  const on = page.state.info?.chat !== false;
  $("chat-form").hidden = !on;
  $("phrases").hidden = !on;
  $("chat-off").hidden = on;
  /** @type {HTMLInputElement} */ ($("chat-text")).placeholder = t("table.chatPlaceholder");
  $("phrases").replaceChildren(...PHRASES.map((phrase) => el("button", {
    type: "button", class: "secondary small phrase", dataset: { phrase },
    onclick: () => page.send(chatMessage(page, { phrase }), { expectAnswer: false }),
  }, t(`phrase.${phrase}`))));
  renderChat(page, { force: true });
}

/**
 * @param {Page} page
 * @param {SubmitEvent} event
 */
export function sendChat(page, event) {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($("chat-text"));
  const text = input.value.trim();
  if (!text) return;
  if (page.send(chatMessage(page, { text }), { expectAnswer: false })) input.value = "";
}
