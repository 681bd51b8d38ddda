// @ts-check
// The table page's connection: one WebSocket at a time, a hello with the
// seat's token (or a spectator's address), a reconnect by itself when it
// drops (asking only for what it missed), a ping when it has been quiet, and
// a connection that stopped answering without closing dropped and made
// again.  It says where it stands in the banner; every message it gets goes
// to `onMessage` as it came (the reducer, table-state.js, folds them).
import { t } from "./i18n.js";

// A ping this often; no answer to it (or to a move) this long means the connection is dead.
const PING_EVERY = 10_000;
const ANSWER_WITHIN = 6_000;

/**
 * @typedef {Object} ConnectionOptions
 * @property {"play" | "watch"} mode
 * @property {string} tableId
 * @property {() => {game: number, version: number, token: string | null}} position what the page holds
 * @property {(message: any) => void} onMessage each message the server sent (already parsed)
 * @property {(kind: string, text: string) => void} banner the connection's state in words ("" hides it)
 * @property {(text: string, ms: number) => void} toast
 * @property {(reason: string) => void} onRefused the seat's token is not valid here (any more)
 */

/** @param {ConnectionOptions} options */
export function createConnection(options) {
  const { mode, tableId, position, banner, toast } = options;
  /** @type {WebSocket | null} */
  let socket = null;
  let retryDelay = 500;
  let wasConnected = false;
  let lostConnection = false;
  let offline = !navigator.onLine;
  // When a ping or a move went out unanswered (performance.now()), or null.
  /** @type {number | null} */
  let awaiting = null;
  let lastPing = 0;
  // Back online on a connection that may have died meanwhile: its first answer clears the banner.
  let confirming = false;
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let reconnectTimer;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let bannerTimer;

  function socketUrl() {
    const base = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/tables/${encodeURIComponent(tableId)}`;
    const { game, version } = position();
    // (the game those versions are of, once the page knows one: another game comes whole)
    if (mode === "watch") return `${base}/watch?since=${version}${game ? `&game=${game}` : ""}`;
    return `${base}/play`;
  }

  function connect() {
    clearTimeout(reconnectTimer);
    if (stopped) return;
    const open = socket?.readyState;
    if (open === WebSocket.OPEN || open === WebSocket.CONNECTING) return; // one at a time
    if (!wasConnected) banner("online", t("table.connecting"));
    const opened = new WebSocket(socketUrl());
    socket = opened;
    awaiting = null;
    opened.addEventListener("open", () => {
      if (socket !== opened) return;
      if (mode === "play") {
        // since: everything of the game after what this page holds (all of
        // it when the page has just opened, so the history is rebuilt).
        // (with the game those versions are of: another game is sent whole)
        const { game, version, token } = position();
        /** @type {{type: "hello", token: string | null, since: number, game?: number}} */
        const hello = { type: "hello", token, since: version };
        if (game) hello.game = game;
        opened.send(JSON.stringify(hello));
      }
    });
    opened.addEventListener("message", (message) => {
      if (socket !== opened) return;
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      awaiting = null;
      if (confirming) answered();
      // A spectator's frame may hold several messages (one move's events and
      // the view after them), as an array.
      for (const one of Array.isArray(data) ? data : [data]) {
        if (one && one.type === "welcome") welcomed();
        options.onMessage(one);
      }
    });
    opened.addEventListener("close", (closed) => {
      if (socket !== opened || stopped) return;
      if (closed.code === 1008 && mode === "play") {
        banner("", "");
        socket = null;
        options.onRefused(closed.reason || "bad token");
        return;
      }
      reconnectLater();
    });
  }

  function welcomed() {
    retryDelay = 500;
    confirming = false;
    if (lostConnection) {
      banner("online", t("table.reconnected"));
      setTimeout(() => { if (!lostConnection && !offline) banner("", ""); }, 3000);
      lostConnection = false;
    } else {
      banner("", "");
    }
    wasConnected = true;
  }

  function reconnectLater() {
    socket = null;
    lostConnection = true;
    banner("offline", offline ? t("table.offline") : t("table.reconnecting"));
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 5000);
  }

  // A connection that stopped answering without closing: drop it and start again.
  function abandonConnection() {
    const dead = socket;
    awaiting = null;
    if (dead) {
      socket = null;
      try { dead.close(); } catch { /* it is gone either way */ }
    }
    toast(t("table.noAnswer"), 3000);
    reconnectLater();
  }

  function connected() {
    return !offline && socket !== null && socket.readyState === WebSocket.OPEN;
  }

  /**
   * Send a message; false (and the player told) when it cannot go now.
   * @param {Record<string, unknown>} message
   * @param {{expectAnswer?: boolean}} how
   */
  function send(message, { expectAnswer = true } = {}) {
    if (!connected() || socket === null) {
      toast(t("table.notSent"), 3500);
      banner("offline", offline ? t("table.offline") : t("table.reconnecting"));
      return false;
    }
    socket.send(JSON.stringify(message));
    if (expectAnswer && awaiting === null) awaiting = performance.now();
    return true;
  }

  function heartbeat() {
    const now = performance.now();
    if (awaiting !== null && now - awaiting > ANSWER_WITHIN) {
      abandonConnection();
      return;
    }
    if (connected() && now - lastPing > PING_EVERY && wasConnected) {
      lastPing = now;
      send({ type: "ping" });
    }
  }

  function goneOffline() {
    offline = true;
    banner("offline", t("table.offline"));
    document.body.dataset.offline = "true";
  }

  function backOnline() {
    offline = false;
    document.body.dataset.offline = "false";
    banner("online", t("table.connecting"));
    if (!socket) {
      connect();
      return;
    }
    // Is the connection still alive?  Its first answer (a pong, or anything
    // that came meanwhile) says so; a dead one is dropped after ANSWER_WITHIN.
    confirming = true;
    send({ type: "ping" });
  }

  // The connection answered after the page was offline: say so, and ask for
  // whatever happened meanwhile (a welcome does both by itself).
  function answered() {
    confirming = false;
    if (offline) return;
    banner("online", t("table.reconnected"));
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => {
      const element = document.getElementById("banner");
      if (!offline && !lostConnection && element?.textContent === t("table.reconnected")) banner("", "");
    }, 2000);
    send({ type: "since", version: position().version }, { expectAnswer: false });
  }

  window.addEventListener("offline", goneOffline);
  window.addEventListener("online", backOnline);
  if (offline) goneOffline();
  setInterval(heartbeat, 250);

  return {
    connect,
    send,
    stop() { stopped = true; socket?.close(); },
  };
}
