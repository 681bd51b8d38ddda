// Short sounds for what a player should not miss: their turn, a score, a
// draw, the last seconds of the clock.  Made with WebAudio (no files), off
// with one switch that the browser remembers.
import { el } from "./common.js";
import { t } from "./i18n.js";

const STORAGE_KEY = "muggins.sound";
// Each sound: [frequency in Hz, seconds] notes played one after the other.
const SOUNDS = {
  turn: [[660, 0.09], [880, 0.12]],
  score: [[784, 0.08], [988, 0.08], [1175, 0.14]],
  draw: [[330, 0.07]],
  tick: [[1000, 0.05]],
  warning: [[880, 0.12], [660, 0.12]],
};

let context = null;
// What was played, newest last (a page's tests read it; capped).
export const played = [];

export function soundOn() {
  return localStorage.getItem(STORAGE_KEY) !== "off";
}

export function playSound(kind) {
  if (!soundOn() || !SOUNDS[kind]) return;
  played.push(kind);
  if (played.length > 50) played.shift();
  document.body.dataset.lastSound = kind;
  try {
    context = context || new AudioContext();
    // A context made before the reader touched the page starts suspended.
    if (context.state === "suspended") context.resume().catch(() => {});
    let at = context.currentTime;
    for (const [frequency, seconds] of SOUNDS[kind]) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.12, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + seconds);
      at += seconds;
    }
  } catch {
    // No audio here (or not allowed yet): the page works the same without.
  }
}

// Browsers let sound start only after the reader has touched the page: wake
// the context at the first touch, so that later sounds are heard.
for (const kind of ["pointerdown", "keydown"]) {
  addEventListener(kind, () => {
    if (context && context.state === "suspended") context.resume().catch(() => {});
  }, { once: true, capture: true });
}

// The on/off switch, as a button that says what it is.
export function soundSwitch() {
  const button = el("button", { type: "button", class: "secondary sound-switch", id: "sound-switch" });
  const show = () => {
    const on = soundOn();
    button.textContent = on ? t("sound.on") : t("sound.off");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.dataset.on = on ? "true" : "false";
  };
  button.addEventListener("click", () => {
    localStorage.setItem(STORAGE_KEY, soundOn() ? "off" : "on");
    show();
  });
  show();
  button.refresh = show;
  return button;
}
