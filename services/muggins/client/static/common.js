// Small helpers every page uses.
import { t } from "./i18n.js";

// An element with attributes and children: el("a", {href: "/"}, "home").
export function el(name, attributes = {}, ...children) {
  const element = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// Fetch JSON; a non-2xx answer throws an Error carrying the server's detail,
// its stable code and a spent budget's wait (i18n.js refusalOf says it).
export async function api(path, options = {}) {
  const response = await fetch(path, {
    ...options,
    headers: { "Content-Type": "application/json", ...(options.headers || {}) },
  });
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((body && (body.detail || body.message)) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    error.code = body && body.code;
    // A spent budget's wait (seconds), for the page to say in its language.
    error.retryAfter = (body && body.retry_after) ?? null;
    throw error;
  }
  return body;
}

// The player's identity across tables (no account: an id and a secret).
export function playerIdentity() {
  try {
    return JSON.parse(localStorage.getItem("muggins.player") || "null");
  } catch {
    return null;
  }
}

export function rememberIdentity(playerId, secret) {
  if (secret) localStorage.setItem("muggins.player", JSON.stringify({ player_id: playerId, secret }));
}

// A guest's name ("Guest 417", "Invitado 417"): in either language it is
// the guest's number, read in the reader's words.  (The server keeps the
// words the guest sat with; every page says them in its own language.)
const GUEST_NAME = /^(?:Guest|Invitado) (\d{1,6})$/;

/** A guest's name in the reader's words ("Invitado 417"). @param {number} number */
export function guestName(number) {
  return t("lobby.guestName", { n: number });
}

/**
 * A name as the reader reads it: a guest's in the reader's language, any
 * other as typed.
 * @param {string} name
 */
export function personName(name) {
  const guest = GUEST_NAME.exec(name);
  return guest ? guestName(Number(guest[1])) : name;
}

/** The name this person typed ("" for a guest, who typed none). */
export function savedName() {
  const name = localStorage.getItem("muggins.name") || "";
  return GUEST_NAME.test(name) ? "" : name; // (kept as words before the number was)
}

/** The guest number this browser sits with when no name was typed (null: none yet). */
export function guestNumber() {
  const kept = Number(localStorage.getItem("muggins.guest"));
  if (Number.isInteger(kept) && kept > 0) return kept;
  const old = GUEST_NAME.exec(localStorage.getItem("muggins.name") || "");
  return old ? Number(old[1]) : null;
}

/** The name this browser sits and chats with: the typed one, else the guest's in the reader's words. */
export function nameToSitWith() {
  const number = guestNumber();
  return savedName() || (number === null ? "" : guestName(number));
}

/**
 * Remember the name someone sat with: a guest's as its number (so that it
 * reads in whatever language the next page is in), any other as typed.
 * @param {string} name
 */
export function rememberName(name) {
  const guest = GUEST_NAME.exec(name);
  if (guest) {
    localStorage.setItem("muggins.guest", guest[1]);
    localStorage.removeItem("muggins.name");
  } else {
    localStorage.setItem("muggins.name", name);
  }
}

/** Where the seat this browser holds at a table is kept (the table page reads it). @param {string} tableId */
export function seatKey(tableId) {
  return `muggins.seat.${tableId}`;
}

/**
 * Sit at a table's seat, as the lobby's "Play now" and the table page both
 * do: the player's identity goes with the request (one this server does not
 * know is dropped and the seat asked for without it); the identity granted,
 * the name and the seat's token are kept for the table page.
 * @param {string} tableId
 * @param {number} seat
 * @param {string} name
 */
export async function takeSeat(tableId, seat, name) {
  /** @param {unknown} player */
  const request = (player) => api(`/tables/${encodeURIComponent(tableId)}/seats/${seat}`, {
    method: "POST", body: JSON.stringify(player ? { name, player } : { name }),
  });
  let granted;
  try {
    granted = await request(playerIdentity());
  } catch (problem) {
    if (/** @type {any} */ (problem).status !== 403) throw problem;
    localStorage.removeItem("muggins.player"); // an identity this server does not know
    granted = await request(null);
  }
  rememberIdentity(granted.player_id, granted.player_secret);
  rememberName(name);
  localStorage.setItem(seatKey(tableId), JSON.stringify({ seat: granted.seat, token: granted.token }));
  return granted;
}

// Names of the sides: a seat's name, or "A & B" for partners.
export function sideNames(view, wordsPair) {
  const seats = view.seats;
  const sides = view.scores.length;
  const names = [];
  for (let side = 0; side < sides; side += 1) {
    const members = seats.filter((s) => (seats.length === 4 && sides === 2 ? s.seat % 2 === side : s.seat === side));
    const nameOf = (/** @type {{name?: string | null, seat: number}} */ member) => (member.name === null || member.name === undefined ? `#${member.seat}` : personName(member.name));
    names.push(members.length === 2 ? wordsPair(nameOf(members[0]), nameOf(members[1])) : (members[0] ? nameOf(members[0]) : `#${side}`));
  }
  return names;
}

// Touch screens get big targets and no keyboard hints: marked on <body> as
// "touch" (the pointer media query is not told by every browser).
export function markTouch() {
  const touch = matchMedia("(pointer: coarse)").matches || navigator.maxTouchPoints > 0;
  document.body.classList.toggle("touch", touch);
}
