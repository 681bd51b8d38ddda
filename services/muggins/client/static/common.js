// Small helpers every page uses.

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

// Fetch JSON; a non-2xx answer throws an Error carrying the server's detail.
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

export function savedName() {
  return localStorage.getItem("muggins.name") || "";
}

export function rememberName(name) {
  localStorage.setItem("muggins.name", name);
}

// Names of the sides: a seat's name, or "A & B" for partners.
export function sideNames(view, wordsPair) {
  const seats = view.seats;
  const sides = view.scores.length;
  const names = [];
  for (let side = 0; side < sides; side += 1) {
    const members = seats.filter((s) => (seats.length === 4 && sides === 2 ? s.seat % 2 === side : s.seat === side));
    names.push(members.length === 2 ? wordsPair(members[0].name ?? `#${members[0].seat}`, members[1].name ?? `#${members[1].seat}`) : (members[0]?.name ?? `#${side}`));
  }
  return names;
}

// Touch screens get big targets and no keyboard hints: marked on <body> as
// "touch" (the pointer media query is not told by every browser).
export function markTouch() {
  const touch = matchMedia("(pointer: coarse)").matches || navigator.maxTouchPoints > 0;
  document.body.classList.toggle("touch", touch);
}
