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
// open table page.  So it is suspended after a quiet spell (long enough
// that the last seconds' ticks of a clock do not stop and start the
// output each second), and the next sound resumes it.
const QUIET_SECONDS = 2;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let quietTimer;
// When the last note scheduled ends, in the context's own time (which
// stands still while it is suspended or still resuming).
let lastNoteEnd = 0;
// Sounds asked for so far: a suspension under way when another comes is undone.
let asked = 0;

function suspendWhenQuiet() {
  clearTimeout(quietTimer);
  quietTimer = setTimeout(() => {
    quietTimer = undefined;
    if (!context || context.state !== "running") return;
    // Notes not played yet (a slow resume held the clock): wait again.
    if (context.currentTime < lastNoteEnd) {
      suspendWhenQuiet();
      return;
    }
    const mark = asked;
    context.suspend().then(() => {
      if (asked !== mark) context.resume().catch(() => {});
    }).catch(() => {});
  }, QUIET_SECONDS * 1000);
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
        body.audioState = context.state;
        if (context.state !== "running") return;
        body.audioRuns = String(Number(body.audioRuns || 0) + 1);
        // Running, whoever resumed it: quiet again after the quiet spell.
        if (quietTimer === undefined) suspendWhenQuiet();
      });
      document.body.dataset.audioState = context.state;
    }
    // Suspended between sounds, or made before the reader touched the page.
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
    lastNoteEnd = Math.max(lastNoteEnd, at);
    suspendWhenQuiet();
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
      context.resume().catch(() => {});
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
