// Words in English and Spanish.  The language comes from the browser unless
// the reader chose one (kept in localStorage); every page has a switcher.

const WORDS = {
  en: {
    "app.title": "muggins",
    "app.tagline": "All Fives and Muggins dominoes, played fair",
    "lang.label": "Language",
    "lobby.create": "New table",
    "lobby.preset": "Game",
    "lobby.waiting": "{n} waiting",
    "lobby.seats": "Players",
    "lobby.partners": "Partnerships (seats 0 and 2 against 1 and 3)",
    "lobby.bots": "Bots",
    "lobby.seat": "Seat {seat}",
    "lobby.person": "a person",
    "lobby.botRandom": "bot (random)",
    "lobby.botGreedy": "bot (greedy)",
    "lobby.clock": "Turn clock (seconds)",
    "lobby.target": "Play to (points; empty: the preset's)",
    "lobby.createButton": "Create table",
    "lobby.created": "Table created. Share this link:",
    "lobby.copy": "Copy link",
    "lobby.copied": "Copied",
    "lobby.go": "Go to the table",
    "lobby.open": "Open tables",
    "lobby.playing": "Being played",
    "lobby.none": "None right now.",
    "lobby.freeSeats": "{free} of {seats} seats free",
    "lobby.join": "Join",
    "lobby.watch": "Watch",
    "lobby.leaderboard": "Leaderboard",
    "lobby.rules": "Rules",
    "lobby.unavailable": "Not for this seating: {reason}",
    "board.rank": "#",
    "board.player": "Player",
    "board.rating": "Rating",
    "board.games": "Games",
    "board.won": "Won",
    "board.pph": "Points/hand",
    "board.best": "Best play",
    "board.empty": "No finished games yet.",
    "board.prev": "Previous",
    "board.next": "Next",
    "board.page": "Page {page}",
    "bot": "bot",
    "table.title": "Table {id}",
    "table.sitHere": "Sit here",
    "table.yourName": "Your name",
    "table.free": "free",
    "table.waiting": "Waiting for players…",
    "table.hand": "Hand {hand}",
    "table.count": "Count",
    "table.boneyard": "Boneyard: {n}",
    "table.tiles": "{n} tiles",
    "table.turn": "{name} to play",
    "table.yourTurn": "Your turn",
    "table.clock": "clock: {s} s",
    "table.spectators": "{n} watching",
    "table.you": "you",
    "table.chooseEnd": "This tile fits more than one end: choose where it goes.",
    "table.cancel": "Cancel",
    "table.handOver": "Hand {hand} is over",
    "table.domino": "{name} went out.",
    "table.blocked": "The game is blocked.",
    "table.targetReached": "The target was reached.",
    "table.pips": "{name}: {tiles} ({pips} pips)",
    "table.seed": "Seed (revealed)",
    "table.commitment": "Commitment (published when the hand began)",
    "table.verify": "Replay and verify this hand",
    "table.gameOver": "Game over",
    "table.winner": "{side} won the game.",
    "table.drawnGame": "The game is drawn.",
    "table.rematch": "Rematch",
    "table.botPlaying": "A bot is playing for you (your clock ran out, or you were away).",
    "table.back": "I'm back",
    "table.close": "Close",
    "table.reconnecting": "Connection lost: reconnecting…",
    "table.reconnected": "Reconnected.",
    "table.connecting": "Connecting…",
    "table.spectating": "You are watching this table.",
    "table.share": "Share link",
    "table.watchLink": "Spectator link",
    "table.log": "What happened",
    "table.scores": "Scores",
    "table.keyboard": "Keys: ← → choose a tile, Enter plays it (↑ ↓ choose the end).",
    "table.noTable": "There is no such table.",
    "table.muggins": "Call muggins",
    "table.claim": "Points to claim",
    "side.seat": "{name}",
    "side.pair": "{a} & {b}",
    "end.0": "left", "end.1": "right", "end.2": "up", "end.3": "down", "end.n": "arm {n}",
    "ev.HandStarted": "Hand {hand} begins: {name} leads.",
    "ev.TilesDealt": "{name} gets {n} tiles.",
    "ev.TileDrawn": "{name} draws a tile.",
    "ev.TilePlayed": "{name} plays {tile} on the {end}: count {count}.",
    "ev.TileLed": "{name} leads {tile}: count {count}.",
    "ev.Passed": "{name} passes.",
    "ev.PointsScored.count": "{name} scores {points}.",
    "ev.PointsScored.domino": "{name} goes out: {points} points.",
    "ev.PointsScored.blocked": "{name} wins the blocked hand: {points} points.",
    "ev.PointsScored.muggins": "{name} calls muggins: {points} points.",
    "ev.HandEnded": "Hand {hand} ends.",
    "ev.GameEnded": "The game is over.",
    "replay.title": "Replay: table {table}, game {game}, hand {hand}",
    "replay.first": "First",
    "replay.back": "Back",
    "replay.forward": "Forward",
    "replay.last": "Last",
    "replay.step": "Step {n} of {total}",
    "replay.fair": "Verified: rebuilt from the revealed seed and the players' decisions, it is exactly the record.",
    "replay.problems": "Verification found problems:",
    "replay.keys": "Keys: ← → step, Home/End first/last.",
    "replay.missing": "This hand cannot be replayed: {reason}",
  },
  es: {
    "app.title": "muggins",
    "app.tagline": "Dominó All Fives y Muggins, jugado limpio",
    "lang.label": "Idioma",
    "lobby.create": "Mesa nueva",
    "lobby.preset": "Juego",
    "lobby.waiting": "{n} esperando",
    "lobby.seats": "Jugadores",
    "lobby.partners": "Por parejas (asientos 0 y 2 contra 1 y 3)",
    "lobby.bots": "Bots",
    "lobby.seat": "Asiento {seat}",
    "lobby.person": "una persona",
    "lobby.botRandom": "bot (al azar)",
    "lobby.botGreedy": "bot (codicioso)",
    "lobby.clock": "Tiempo por turno (segundos)",
    "lobby.target": "Jugar a (puntos; vacío: los de la variante)",
    "lobby.createButton": "Crear mesa",
    "lobby.created": "Mesa creada. Comparte este enlace:",
    "lobby.copy": "Copiar enlace",
    "lobby.copied": "Copiado",
    "lobby.go": "Ir a la mesa",
    "lobby.open": "Mesas abiertas",
    "lobby.playing": "En juego",
    "lobby.none": "Ninguna ahora mismo.",
    "lobby.freeSeats": "{free} de {seats} asientos libres",
    "lobby.join": "Unirse",
    "lobby.watch": "Mirar",
    "lobby.leaderboard": "Clasificación",
    "lobby.rules": "Reglas",
    "lobby.unavailable": "No para estos jugadores: {reason}",
    "board.rank": "#",
    "board.player": "Jugador",
    "board.rating": "Puntuación",
    "board.games": "Partidas",
    "board.won": "Ganadas",
    "board.pph": "Puntos/mano",
    "board.best": "Mejor jugada",
    "board.empty": "Aún no hay partidas terminadas.",
    "board.prev": "Anterior",
    "board.next": "Siguiente",
    "board.page": "Página {page}",
    "bot": "bot",
    "table.title": "Mesa {id}",
    "table.sitHere": "Sentarse aquí",
    "table.yourName": "Tu nombre",
    "table.free": "libre",
    "table.waiting": "Esperando jugadores…",
    "table.hand": "Mano {hand}",
    "table.count": "Cuenta",
    "table.boneyard": "Para robar: {n}",
    "table.tiles": "{n} fichas",
    "table.turn": "Juega {name}",
    "table.yourTurn": "Te toca",
    "table.clock": "reloj: {s} s",
    "table.spectators": "{n} mirando",
    "table.you": "tú",
    "table.chooseEnd": "Esta ficha encaja en más de una punta: elige dónde va.",
    "table.cancel": "Cancelar",
    "table.handOver": "Fin de la mano {hand}",
    "table.domino": "{name} se quedó sin fichas.",
    "table.blocked": "El juego está cerrado.",
    "table.targetReached": "Se alcanzó la meta.",
    "table.pips": "{name}: {tiles} ({pips} puntos)",
    "table.seed": "Semilla (revelada)",
    "table.commitment": "Compromiso (publicado al empezar la mano)",
    "table.verify": "Repetir y verificar esta mano",
    "table.gameOver": "Fin de la partida",
    "table.winner": "{side} ganó la partida.",
    "table.drawnGame": "La partida queda en tablas.",
    "table.rematch": "Revancha",
    "table.botPlaying": "Un bot juega por ti (se te acabó el tiempo o estabas ausente).",
    "table.back": "Ya volví",
    "table.close": "Cerrar",
    "table.reconnecting": "Conexión perdida: reconectando…",
    "table.reconnected": "Reconectado.",
    "table.connecting": "Conectando…",
    "table.spectating": "Estás mirando esta mesa.",
    "table.share": "Enlace para jugar",
    "table.watchLink": "Enlace para mirar",
    "table.log": "Lo que pasó",
    "table.scores": "Puntos",
    "table.keyboard": "Teclas: ← → eligen ficha, Intro la juega (↑ ↓ eligen la punta).",
    "table.noTable": "No existe esa mesa.",
    "table.muggins": "Cantar muggins",
    "table.claim": "Puntos que cantas",
    "side.seat": "{name}",
    "side.pair": "{a} y {b}",
    "end.0": "izquierda", "end.1": "derecha", "end.2": "arriba", "end.3": "abajo",
    "end.n": "brazo {n}",
    "ev.HandStarted": "Empieza la mano {hand}: sale {name}.",
    "ev.TilesDealt": "{name} recibe {n} fichas.",
    "ev.TileDrawn": "{name} roba una ficha.",
    "ev.TilePlayed": "{name} juega {tile} por la {end}: cuenta {count}.",
    "ev.TileLed": "{name} sale con {tile}: cuenta {count}.",
    "ev.Passed": "{name} pasa.",
    "ev.PointsScored.count": "{name} se anota {points}.",
    "ev.PointsScored.domino": "{name} se queda sin fichas: {points} puntos.",
    "ev.PointsScored.blocked": "{name} gana el cierre: {points} puntos.",
    "ev.PointsScored.muggins": "{name} canta muggins: {points} puntos.",
    "ev.HandEnded": "Termina la mano {hand}.",
    "ev.GameEnded": "Se acabó la partida.",
    "replay.title": "Repetición: mesa {table}, partida {game}, mano {hand}",
    "replay.first": "Inicio",
    "replay.back": "Atrás",
    "replay.forward": "Adelante",
    "replay.last": "Final",
    "replay.step": "Paso {n} de {total}",
    "replay.fair": "Verificada: reconstruida con la semilla revelada y las decisiones de los jugadores, coincide exactamente con lo registrado.",
    "replay.problems": "La verificación encontró problemas:",
    "replay.keys": "Teclas: ← → paso a paso, Inicio/Fin primero/último.",
    "replay.missing": "No se puede repetir esta mano: {reason}",
  },
};

export const LANGUAGES = { en: "English", es: "Español" };
const STORAGE_KEY = "muggins.language";

export function language() {
  const chosen = localStorage.getItem(STORAGE_KEY);
  if (chosen && WORDS[chosen]) return chosen;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const code = wanted.slice(0, 2).toLowerCase();
    if (WORDS[code]) return code;
  }
  return "en";
}

export function t(key, values = {}) {
  const words = WORDS[language()];
  const text = words[key] ?? WORDS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : `{${name}}`));
}

// Fill every [data-t] element's text from its key, set <html lang>, and build
// the switcher in #language (calling onChange after a switch).
export function translatePage(onChange) {
  document.documentElement.lang = language();
  for (const element of document.querySelectorAll("[data-t]")) {
    element.textContent = t(element.dataset.t);
  }
  for (const element of document.querySelectorAll("[data-t-placeholder]")) {
    element.placeholder = t(element.dataset.tPlaceholder);
  }
  const holder = document.getElementById("language");
  if (holder && !holder.querySelector("select")) {
    const label = document.createElement("label");
    label.htmlFor = "language-select";
    label.dataset.t = "lang.label";
    label.textContent = t("lang.label");
    const select = document.createElement("select");
    select.id = "language-select";
    for (const [code, name] of Object.entries(LANGUAGES)) {
      const option = document.createElement("option");
      option.value = code;
      option.textContent = name;
      select.append(option);
    }
    select.addEventListener("change", () => {
      localStorage.setItem(STORAGE_KEY, select.value);
      translatePage(onChange);
      if (onChange) onChange();
    });
    holder.append(label, select);
  }
  const select = document.getElementById("language-select");
  if (select) select.value = language();
}

export function endName(end) {
  return end <= 3 ? t(`end.${end}`) : t("end.n", { n: end });
}

export function tileText(tile) {
  return `${tile[0]}-${tile[1]}`;
}

// One event in words, for the log (seat names from `names`).
export function describeEvent(event, names) {
  const name = (seat) => names[seat] ?? `#${seat}`;
  switch (event.type) {
    case "HandStarted":
      return t("ev.HandStarted", { hand: event.hand, name: name(event.leader) });
    case "TileDrawn":
      return t("ev.TileDrawn", { name: name(event.seat) });
    case "TilePlayed":
      return event.end === null
        ? t("ev.TileLed", { name: name(event.seat), tile: tileText(event.tile), count: event.count })
        : t("ev.TilePlayed", { name: name(event.seat), tile: tileText(event.tile), end: endName(event.end), count: event.count });
    case "Passed":
      return t("ev.Passed", { name: name(event.seat) });
    case "PointsScored":
      return t(`ev.PointsScored.${event.reason}`, { name: name(event.seat), points: event.points });
    case "HandEnded":
      return t("ev.HandEnded", { hand: event.hand });
    case "GameEnded":
      return t("ev.GameEnded");
    default:
      return null; // deals, seeds, the boneyard: not worth a line
  }
}
