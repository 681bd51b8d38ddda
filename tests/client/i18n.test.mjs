// The page's words (services/muggins/client/static/i18n.js): a refusal in the
// page's language, with the wait the server told where it told one.
//
// tests/client/test_node.py runs this from pytest.

import { test } from "node:test";
import assert from "node:assert/strict";

// What i18n.js reads of a browser: the address's ?lang= and the stored choice.
const stored = new Map();
globalThis.localStorage = {
  getItem: (key) => stored.get(key) ?? null,
  setItem: (key, value) => stored.set(key, String(value)),
};
globalThis.location = { search: "" };
globalThis.navigator = { languages: ["en-GB"], language: "en-GB" };

const { refusal, refusalOf } = await import("../../services/muggins/client/static/i18n.js");

function inLanguage(lang) {
  globalThis.location = { search: `?lang=${lang}` };
}

test("a spent budget's refusal says the wait in the page's language", () => {
  inLanguage("en");
  assert.equal(refusal("hint-rate-limited", "server words", 7), "Too many hints asked: try again in 7 s.");
  assert.equal(refusal("chat-rate-limited", "server words", 3), "Too many messages too fast: wait 3 s.");
  inLanguage("es");
  assert.equal(refusal("hint-rate-limited", "server words", 7), "Demasiadas pistas pedidas: inténtalo de nuevo en 7 s.");
  assert.equal(refusal("too-many-sockets", "server words", 12), "Demasiadas conexiones desde tu dirección: inténtalo de nuevo en 12 s.");
});

test("without a wait, or without words for one, the refusal's own words; unknown codes keep the server's", () => {
  inLanguage("es");
  assert.equal(refusal("hint-rate-limited", "server words"), "Demasiadas pistas pedidas: inténtalo de nuevo en un momento.");
  assert.equal(refusal("not-your-turn", "server words", 5), refusal("not-your-turn", "server words"));
  assert.equal(refusal("something-new", "server words", 5), "server words");
});

test("an HTTP refusal (api()'s error) reads in the page's language, with its wait", () => {
  inLanguage("es");
  assert.equal(refusalOf({ code: "analysis-rate-limited", message: "too many analyses from your address: try again in 9 s", retryAfter: 9 }),
    "Demasiados análisis pedidos desde tu dirección: inténtalo de nuevo en 9 s.");
  assert.equal(refusalOf({ code: "seat-taken", message: "seat 1 is taken" }), "Ese asiento está ocupado: elige otro.");
  assert.equal(refusalOf({ code: "bad-request", message: "Expected `int`, got `str` - at `$.seats`" }), "Expected `int`, got `str` - at `$.seats`");
  assert.equal(refusalOf({ code: null, message: "502 Bad Gateway" }), "502 Bad Gateway");
});
