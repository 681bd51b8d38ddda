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
// A running AudioContext keeps an audio thread (and the system's audio
// output) busy even in silence, for as long as the page stays open: a
// phone's battery, and in headless Chromium about 1% of the machine per
// open table page.  So it is suspended once the last note has ended, and
// the next sound resumes it.
const QUIET_AFTER_SECONDS = 0.25;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let quietTimer;
// Sounds asked for so far: a suspension under way when another comes is undone.
let asked = 0;

function suspendWhenQuiet(secondsLeft) {
  clearTimeout(quietTimer);
  const mark = asked;
  quietTimer = setTimeout(() => {
    if (!context || context.state !== "running" || asked !== mark) return;
    context.suspend().then(() => {
      if (asked !== mark) context.resume().catch(() => {});
    }).catch(() => {});
  }, (secondsLeft + QUIET_AFTER_SECONDS) * 1000);
}

export function soundOn() {
  return localStorage.getItem(STORAGE_KEY) !== "off";
}

export function playSound(kind) {
  if (!soundOn() || !SOUNDS[kind]) return;
  played.push(kind);
  if (played.length > 50) played.shift();
  document.body.dataset.lastSound = kind;
  asked += 1;
  try {
    if (!context) {
      context = new AudioContext();
      // Its state, and how often it has run, for the page's tests.
      context.addEventListener("statechange", () => {
        const body = document.body.dataset;
        body.audio = context.state;
        if (context.state === "running") body.audioRuns = String(Number(body.audioRuns || 0) + 1);
      });
      document.body.dataset.audio = context.state;
    }
    // Suspended between sounds, or made before the reader touched the page.
    if (context.state === "suspended") context.resume().catch(() => {});
    const start = context.currentTime;
    let at = start;
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
    suspendWhenQuiet(at - start);
  } catch {
    // No audio here (or not allowed yet): the page works the same without.
  }
}

// Browsers let sound start only after the reader has touched the page: wake
// the context at the first touch, so that later sounds are heard.
for (const kind of ["pointerdown", "keydown"]) {
  addEventListener(kind, () => {
    if (context && context.state === "suspended") {
      // What was asked for before the touch plays now; then quiet again.
      context.resume().then(() => suspendWhenQuiet(0)).catch(() => {});
    }
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
