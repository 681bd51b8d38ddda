// @ts-check
// What the page tells once, from the reducer's notices (table-state.js): a
// short toast, a sound, the tiles just drawn sliding from the boneyard into
// the hand.  Nothing here changes the state.
import { personName } from "./common.js";
import { refusal, t, tileText } from "./i18n.js";
import { playSound } from "./sounds.js";
import { mySeat } from "./table-state.js";

/** @typedef {import("./table-state.js").TableState} TableState */
/** @typedef {import("./table-state.js").Notice} Notice */

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/**
 * A short message over the felt's foot (never over the board's top row).
 * @param {string} text
 * @param {number} [ms]
 */
export function toast(text, ms = 1800, { news = false } = {}) {
  const element = /** @type {HTMLElement} */ (document.getElementById("toast"));
  element.textContent = text;
  // News of the moves (points, draws, passes) is also in the log and the
  // scores: style.css lets it give way to "which end?"; anything else the
  // page says (not sent, an error) is never hidden.
  element.classList.toggle("news", news);
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { element.hidden = true; }, ms);
}

export function hideToast() {
  const element = document.getElementById("toast");
  if (element) element.hidden = true;
}

/**
 * @param {TableState} state
 * @param {number} seat
 */
function nameOf(state, seat) {
  const name = state.names[seat];
  return name === null || name === undefined ? t("lobby.seat", { seat: seat + 1 }) : personName(name);
}

/**
 * Tell what the last message brought (after the page was drawn with it).
 * @param {TableState} state
 */
export function tell(state) {
  const lines = [];
  for (const notice of state.notices) {
    switch (notice.kind) {
      case "points":
        lines.push(t("toast.points", { points: notice.points, name: nameOf(state, notice.seat) }));
        playSound("score");
        break;
      case "drew":
        if (notice.seat === mySeat(state)) {
          lines.push(notice.n === 1 ? t("toast.youDrewOne") : t("toast.youDrew", { n: notice.n }));
          playSound("draw");
        } else {
          lines.push(notice.n === 1 ? t("toast.drewOne", { name: nameOf(state, notice.seat) })
            : t("toast.drew", { name: nameOf(state, notice.seat), n: notice.n }));
        }
        break;
      case "passed":
        lines.push(t("ev.Passed", { name: nameOf(state, notice.seat) }));
        break;
      case "turn":
        playSound("turn");
        break;
      case "game-over":
        playSound("score");
        break;
      case "error":
        toast(refusal(notice.code, notice.message, notice.retryAfter), 4000);
        break;
      case "drawn-tiles":
        slideIn(notice.tiles);
        break;
      default:
        break;
    }
  }
  // One move's news in one toast ("You drew 3 · +10 Ana").
  if (lines.length) toast(lines.join(" · "), lines.length > 1 ? 2600 : 1800, { news: true });
}

/**
 * The tiles just drawn glide from the boneyard (in the status bar) to their place in the hand.
 * @param {Array<[number, number]>} tiles
 */
function slideIn(tiles) {
  const from = document.getElementById("boneyard")?.getBoundingClientRect();
  if (!from || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  for (const tile of tiles) {
    const button = document.querySelector(`#hand .tile-button[data-tile="${tileText(tile)}"]`);
    if (!(button instanceof HTMLElement) || typeof button.animate !== "function") continue;
    const to = button.getBoundingClientRect();
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    button.animate([
      { transform: `translate(${dx}px, ${dy}px) scale(0.5)`, opacity: 0.4 },
      { transform: "none", opacity: 1 },
    ], { duration: 550, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" });
  }
}
