// Words in English and Spanish.  The language comes from the browser unless
// the reader chose one (kept in localStorage); every page has a switcher.

const WORDS = {
  en: {
    "app.title": "muggins",
    "app.tagline": "All Fives and Muggins dominoes, played fair",
    "lang.label": "Language",
    "sound.on": "Sound on",
    "sound.off": "Sound off",
    "lobby.create": "New table",
    "lobby.preset": "Variant",
    "lobby.waiting": "{n} waiting",
    "lobby.seatInProgress": "seat free, game in progress, score {scores} (unrated)",
    "lobby.seats": "Players",
    "lobby.partners": "Partnerships (seats 1 and 3 against 2 and 4)",
    "lobby.who": "Who sits where",
    "lobby.more": "More options",
    "lobby.seat": "Seat {seat}",
    "lobby.person": "a person",
    "lobby.botRandom": "bot: beginner",
    "lobby.botGreedy": "bot: greedy",
    "lobby.botExpert": "bot: expert",
    "lobby.clock": "Turn clock (seconds)",
    "lobby.target": "Play to (points; leave empty for the game's usual target)",
    "lobby.createButton": "Create table",
    "lobby.created": "Table created. Share this link:",
    "lobby.copy": "Copy link",
    "lobby.copied": "Copied",
    "lobby.go": "Go to the table",
    "lobby.open": "Open tables",
    "lobby.playing": "Games in progress",
    "lobby.none": "None right now.",
    "lobby.freeSeats": "{free} of {seats} seats free",
    "lobby.join": "Join",
    "lobby.watch": "Watch",
    "lobby.leaderboard": "Leaderboard",
    "lobby.rules": "Rules",
    "lobby.guide": "Guide and strategy",
    "lobby.unavailable": "Not available with these players: {reason}",
    "lobby.chat": "Table chat",
    "lobby.hints": "Casual table: hints from the expert bot on request (never rated)",
    "lobby.casual": "casual",
    "lobby.you": "You",
    "lobby.playingAs": "You play as {name}.",
    "lobby.identityWhy": "Playing from another browser or phone? Open this link there, and your games count as one player on the leaderboard.",
    "lobby.identitySecret": "Keep it to yourself: whoever opens it can play as you.",
    "lobby.identityAsk": "Play as the player of this link?",
    "lobby.identityOf": "This link holds the player identity of {name}. Take it, and this browser plays as {name}: its games count as theirs on the leaderboard.",
    "lobby.identityOfSomeone": "This link holds a player's identity (it gives no name). Take it, and this browser plays as that player: its games count as theirs on the leaderboard.",
    "lobby.identityShared": "The browser the link comes from keeps the identity too. Take it only if the link is yours.",
    "lobby.identityReplace": "This browser already has an identity of its own: it would be forgotten here.",
    "lobby.identityAccept": "Play as this player",
    "lobby.identityDecline": "No, thanks",
    "lobby.rotate": "Sign out my other browsers",
    "lobby.rotateWhy": "Gives this browser a new link: the old one stops working, in every browser that opened it.",
    "lobby.rotated": "Done: your other browsers are signed out. Open the new link above in those you still use.",
    "lobby.signedOut": "This browser's identity was changed from another browser and no longer works here. Your next seat starts a new one, unless you open here the new link that browser shows.",
    "lobby.rotateLater": "Too many tries from your address: wait a minute and try again.",
    "board.rank": "#",
    "board.player": "Player",
    "board.rating": "Rating",
    "board.games": "Games",
    "board.won": "Won",
    "board.left": "(left {n})",
    "board.leftTitle": "Left {n} of {games} games and did not come back",
    "board.pph": "Points/hand",
    "board.best": "Best play",
    "board.empty": "No finished games yet.",
    "board.prev": "Previous",
    "board.next": "Next",
    "board.page": "Page {page}",
    "board.game": "Leaderboard for",
    "bot": "bot",
    "bot.level": "bot · {level}",
    "level.random": "beginner",
    "level.greedy": "greedy",
    "level.expert": "expert",
    "partner": "partner",
    "you": "you",
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
    "table.yourTurn": "Your turn: play a green tile",
    "table.clock": "Clock: {s} s",
    "table.clockWarning": "10 seconds left!",
    "table.spectators": "{n} watching",
    "table.you": "you",
    "table.chooseEnd": "This tile fits more than one end: choose where it goes.",
    "table.cancel": "Cancel",
    "table.handOver": "Hand {hand} is over",
    "table.domino": "{name} went out (domino).",
    "table.blocked": "The hand is blocked: nobody can play.",
    "table.targetReached": "The target was reached.",
    "table.finalBoard": "The final board",
    "table.leftInHand": "Tiles left in hand",
    "table.pipsLeft": "{pips} pips",
    "table.seed": "Seed (revealed)",
    "table.commitment": "Commitment (published when the hand began)",
    "table.commitmentCheck": "Anyone can check: the commitment is the SHA-256 of the seed, and the seed deals exactly these hands.",
    "table.verify": "Replay and verify this hand",
    "table.fairness": "The seed and the commitment",
    "table.gameOver": "Game over",
    "table.winner": "{side} won the game.",
    "table.drawnGame": "The game is drawn.",
    "table.rematch": "Rematch",
    "table.botPlaying": "A bot is playing for you (your clock ran out, or you were away).",
    "table.back": "I'm back",
    "life.leftHand": "{names} left: a bot, clearly marked, finishes the hand for them.",
    "life.paused": "The game is paused: {names} left {ago} ago. No hand is dealt until they come back.",
    "life.underAMinute": "less than a minute",
    "life.minutes": "{n} min",
    "life.choicesIn": "If they are not back, you may choose in {n} s.",
    "life.playOn": "Play on with the bot (unrated)",
    "life.openSeat": "Give the seat to a new player (unrated)",
    "life.seatOpen": "{by} gave the seat to a new player: the game goes on (unrated) once someone sits down from the lobby.",
    "life.end": "End the game",
    "life.orWait": "or wait for them.",
    "life.theyChoose": "The players who stayed may wait, play on with the bot or end the game.",
    "life.playingOnWithBot": "{by} chose to play on: a bot plays for {names}. This game is unrated.",
    "life.closed": "The table is closed:",
    "life.closed.finished": "the game is over.",
    "life.closed.abandoned": "the game was ended after {names} left (chosen by {by}). It counts as abandoned by them.",
    "life.closed.abandonedUnsettled": "the game was left unfinished after a player left.",
    "life.closed.everyone-left": "everyone left.",
    "life.closed.idle": "nobody played here for a long while.",
    "life.replays": "Replays",
    "life.rematchAsked": "Rematch asked by {names}: the next game begins when everyone still at the table asks.",
    "life.lobby": "Back to the lobby",
    "table.close": "Close",
    "table.reconnecting": "Connection lost: reconnecting…",
    "table.offline": "You are offline: moves cannot be sent until the connection is back.",
    "table.notSent": "Not sent: you are offline. Wait for the connection to come back.",
    "table.noAnswer": "The server did not answer: reconnecting…",
    "table.reconnected": "Reconnected.",
    "table.connecting": "Connecting…",
    "table.spectating": "You are watching this table.",
    "table.share": "Share link",
    "table.watchLink": "Spectator link",
    "table.log": "History",
    "table.scores": "Scores",
    "table.keyboard": "Keys: ← → choose a tile, Enter plays it (↑ ↓ choose the end), R the rules, S the score sheet.",
    "table.noTable": "There is no such table.",
    "table.muggins": "Call muggins",
    "table.claim": "Points to claim",
    "table.claimHint": "Muggins rule: claim the points your play makes, or an opponent can take them.",
    "table.unclaimed": "{name}'s play made {points} and did not claim them all: call muggins to take them!",
    "table.doesNotFit": "{tile} does not fit any open end.",
    "table.notYourTurn": "It is not your turn.",
    "table.rules": "Rules",
    "table.guide": "Guide and strategy for this game",
    "table.sheet": "Score sheet",
    "table.sheetHand": "Hand",
    "table.sheetTotal": "Total",
    "table.sheetEmpty": "No points yet.",
    "table.board": "Board: {description}",
    "table.boardEmpty": "The board is empty.",
    "table.boardEnd": "{end} shows {n}",
    "table.boardCount": "count {count}",
    "table.partnerOf": "your partner",
    "table.lastMove": "Last move: {move}",
    "table.chat": "Chat",
    "table.hint": "Hint",
    "table.hintText": "The expert would play {play} (worth {points} points to the hand's end).",
    "table.casual": "casual table: hints on, not rated",
    "table.chatSend": "Send",
    "table.chatPlaceholder": "Say something to the table",
    "table.chatOff": "Chat is turned off at this table.",
    "table.chatMute": "Mute {name}",
    "table.chatUnmute": "Unmute {name}",
    "table.chatMuted": "(muted)",
    "table.chatWatching": "watching",
    "table.chatSpectator": "a spectator",
    "table.chatEmpty": "No messages yet.",
    "phrase.gg": "Good game!",
    "phrase.wp": "Well played!",
    "phrase.nice": "Nice one!",
    "phrase.thanks": "Thanks!",
    "phrase.oops": "Oops!",
    "phrase.hi": "Hello!",
    "side.seat": "{name}",
    "side.pair": "{a} & {b}",
    "end.0": "left", "end.1": "right", "end.2": "top", "end.3": "bottom", "end.n": "arm {n}",
    "at.0": "at the left end", "at.1": "at the right end", "at.2": "on the top arm", "at.3": "on the bottom arm", "at.n": "on arm {n}",
    "ev.HandStarted": "Hand {hand} begins: {name} leads.",
    "ev.TilesDealt": "{name} gets {n} tiles.",
    "ev.TileDrawn": "{name} draws a tile.",
    "ev.TilePlayed": "{name} plays {tile} {at}: count {count}.",
    "ev.TileLed": "{name} leads {tile}: count {count}.",
    "ev.claims": " Claims {claim}.",
    "ev.Passed": "{name} passes.",
    "ev.PointsScored.count": "{name} scores {points}.",
    "ev.PointsScored.domino": "{name} goes out: {points} points.",
    "ev.PointsScored.blocked": "{name} wins the blocked hand: {points} points.",
    "ev.PointsScored.muggins": "{name} calls muggins: {points} points.",
    "ev.HandEnded": "Hand {hand} ends.",
    "ev.GameEnded": "The game is over.",
    "ev.byBotForYou": " (played for you by a bot)",
    "ev.byBotFor": " (a bot played for {name})",
    "toast.youDraw": "You draw a tile.",
    "toast.points": "+{points} {name}",
    "award.rounded": "{name}: {raw} pips in the opponents' hands → {points}",
    "guide.tagline": "How to play, with worked examples and strategy",
    "guide.other": "Another variant",
    "guide.rules": "The rules of this variant",
    "guide.examples": "Worked examples",
    "guide.examplesIntro": "One hand's first plays, board by board: the count is the open ends added up.",
    "guide.tips": "Strategy tips",
    "guide.faq": "Questions players ask",
    "analysis.title": "What the expert thinks",
    "analysis.about": "The expert bot judges every choice from what that seat knew then (never the revealed hands): the play it prefers, and the expected points each choice gave up.",
    "analysis.run": "Analyse this hand",
    "analysis.thinking": "Thinking…",
    "analysis.summary": "{n} decisions; {costly} costly; {points} expected points given up in all.",
    "analysis.agrees": "{name}: {play}. The expert agrees.",
    "analysis.prefers": "{name}: {play}. The expert prefers {better}: {points} expected points better.",
    "analysis.lead": "leading {tile}",
    "analysis.play": "{tile} {at}",
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
    "lobby.partnerOf": "Seat {seat} (partner of seat {partner})",
    "table.tiles.one": "1 tile",
    "table.nextHandMine": "Hand {hand} has begun, and it is your turn.",
    "table.nextHand": "Hand {hand} has begun.",
    "table.backToTable": "Back to the table",
    "table.blockedWinner": "The hand is blocked: {name} wins with the fewest pips ({pips}).",
    "table.toPlay": "(to play)",
    "table.backToGame": "Back to the table",
    "table.endCount": "{end} → count {count}",
    "ev.TilesDealtSeat": "{name} is dealt {n} tiles.",
    "ev.SeedSealed": "The hand's seed is sealed (it is revealed when the hand ends).",
    "ev.BoneyardStacked": "{n} tiles go face down to the boneyard.",
    "replay.scores": "Scores",
  },
  es: {
    "app.title": "muggins",
    "app.tagline": "Dominó a cincos (All Fives y Muggins): juego limpio",
    "lang.label": "Idioma",
    "sound.on": "Sonido activado",
    "sound.off": "Sonido desactivado",
    "lobby.create": "Mesa nueva",
    "lobby.preset": "Variante",
    "lobby.waiting": "{n} esperando",
    "lobby.seatInProgress": "asiento libre, partida en curso, tanteo {scores} (no puntúa)",
    "lobby.seats": "Jugadores",
    "lobby.partners": "Por parejas (asientos 1 y 3 contra 2 y 4)",
    "lobby.who": "Quién juega en cada asiento",
    "lobby.more": "Más opciones",
    "lobby.seat": "Asiento {seat}",
    "lobby.person": "una persona",
    "lobby.botRandom": "bot: principiante",
    "lobby.botGreedy": "bot: codicioso",
    "lobby.botExpert": "bot: experto",
    "lobby.clock": "Tiempo por turno (segundos)",
    "lobby.target": "Partida a (puntos; vacío = la meta de la variante)",
    "lobby.createButton": "Crear mesa",
    "lobby.created": "Mesa creada. Comparte este enlace:",
    "lobby.copy": "Copiar enlace",
    "lobby.copied": "Copiado",
    "lobby.go": "Ir a la mesa",
    "lobby.open": "Mesas abiertas",
    "lobby.playing": "Partidas en curso",
    "lobby.none": "Ninguna ahora mismo.",
    "lobby.freeSeats": "{free} de {seats} asientos libres",
    "lobby.join": "Sentarse",
    "lobby.watch": "Mirar",
    "lobby.leaderboard": "Clasificación",
    "lobby.rules": "Reglas",
    "lobby.guide": "Guía y estrategia",
    "lobby.unavailable": "No disponible con estos jugadores: {reason}",
    "lobby.chat": "Chat de la mesa",
    "lobby.hints": "Mesa amistosa: pistas del bot experto a petición (no puntúa)",
    "lobby.casual": "amistosa",
    "lobby.you": "Tú",
    "lobby.playingAs": "Juegas como {name}.",
    "lobby.identityWhy": "¿Juegas desde otro navegador o desde el móvil? Abre allí este enlace y tus partidas contarán como un solo jugador en la clasificación.",
    "lobby.identitySecret": "No lo compartas: quien lo abra puede jugar como tú.",
    "lobby.identityAsk": "¿Jugar como el jugador de este enlace?",
    "lobby.identityOf": "Este enlace contiene la identidad de jugador de {name}. Si la aceptas, este navegador juega como {name}: sus partidas cuentan como suyas en la clasificación.",
    "lobby.identityOfSomeone": "Este enlace contiene la identidad de un jugador (no dice su nombre). Si la aceptas, este navegador juega como ese jugador: sus partidas cuentan como suyas en la clasificación.",
    "lobby.identityShared": "El navegador del que viene el enlace también conserva la identidad. Acéptala solo si el enlace es tuyo.",
    "lobby.identityReplace": "Este navegador ya tiene una identidad propia: aquí se olvidaría.",
    "lobby.identityAccept": "Jugar como este jugador",
    "lobby.identityDecline": "No, gracias",
    "lobby.rotate": "Cerrar sesión en mis otros navegadores",
    "lobby.rotateWhy": "Este navegador recibe un enlace nuevo: el anterior deja de funcionar en todos los navegadores que lo abrieron.",
    "lobby.rotated": "Hecho: tus otros navegadores ya no juegan como tú. Abre el enlace nuevo de arriba en los que sigas usando.",
    "lobby.signedOut": "La identidad de este navegador se cambió desde otro y aquí ya no sirve. Tu próximo asiento empezará una nueva, salvo que abras aquí el enlace nuevo que muestra aquel navegador.",
    "lobby.rotateLater": "Demasiados intentos desde tu dirección: espera un minuto y vuelve a probar.",
    "board.rank": "#",
    "board.player": "Jugador",
    "board.rating": "Nivel",
    "board.games": "Partidas",
    "board.won": "Ganadas",
    "board.left": "(abandonó {n})",
    "board.leftTitle": "Abandonó {n} de {games} partidas sin volver",
    "board.pph": "Puntos/mano",
    "board.best": "Mejor jugada",
    "board.empty": "Aún no hay partidas terminadas.",
    "board.prev": "Anterior",
    "board.next": "Siguiente",
    "board.page": "Página {page}",
    "board.game": "Clasificación de",
    "bot": "bot",
    "bot.level": "bot · {level}",
    "level.random": "principiante",
    "level.greedy": "codicioso",
    "level.expert": "experto",
    "partner": "compañero",
    "you": "tú",
    "table.title": "Mesa {id}",
    "table.sitHere": "Sentarse aquí",
    "table.yourName": "Tu nombre",
    "table.free": "libre",
    "table.waiting": "Esperando jugadores…",
    "table.hand": "Mano {hand}",
    "table.count": "Cuenta",
    "table.boneyard": "Pozo: {n}",
    "table.tiles": "{n} fichas",
    "table.turn": "Le toca a {name}",
    "table.yourTurn": "Te toca: juega una ficha marcada en verde",
    "table.clock": "Tiempo: {s} s",
    "table.clockWarning": "¡Quedan 10 segundos!",
    "table.spectators": "{n} mirando",
    "table.you": "tú",
    "table.chooseEnd": "Esta ficha entra por más de un extremo: elige por dónde.",
    "table.cancel": "Cancelar",
    "table.handOver": "Fin de la mano {hand}",
    "table.domino": "{name} se dominó.",
    "table.blocked": "Tranque: nadie puede jugar.",
    "table.targetReached": "Se alcanzó la meta.",
    "table.finalBoard": "Así quedó la mesa",
    "table.leftInHand": "Fichas que quedaron en la mano",
    "table.pipsLeft": "{pips} puntos",
    "table.seed": "Semilla (revelada)",
    "table.commitment": "Compromiso (publicado al empezar la mano)",
    "table.commitmentCheck": "Cualquiera puede comprobarlo: el compromiso es el SHA-256 de la semilla, y la semilla reparte exactamente estas fichas.",
    "table.verify": "Ver la repetición y verificar esta mano",
    "table.fairness": "La semilla y el compromiso",
    "table.gameOver": "Fin de la partida",
    "table.winner": "{side} ganó la partida.",
    "table.drawnGame": "La partida termina en tablas.",
    "table.rematch": "Revancha",
    "table.botPlaying": "Un bot juega por ti (se te acabó el tiempo o estabas ausente).",
    "table.back": "Ya estoy de vuelta",
    "life.leftHand": "{names} se fue: un bot, bien señalado, termina la mano en su lugar.",
    "life.paused": "La partida está en pausa: {names} se fue hace {ago}. No se reparte hasta que vuelva.",
    "life.underAMinute": "menos de un minuto",
    "life.minutes": "{n} min",
    "life.choicesIn": "Si no vuelve, podrás elegir dentro de {n} s.",
    "life.playOn": "Seguir con el bot (sin puntuar)",
    "life.openSeat": "Dar el asiento a otro jugador (sin puntuar)",
    "life.seatOpen": "{by} dio el asiento a otro jugador: la partida sigue (sin puntuar) cuando alguien se siente desde la lista de mesas.",
    "life.end": "Terminar la partida",
    "life.orWait": "o esperar a que vuelva.",
    "life.theyChoose": "Los que se quedaron pueden esperar, seguir con el bot o terminar la partida.",
    "life.playingOnWithBot": "{by} eligió seguir: un bot juega por {names}. Esta partida no puntúa.",
    "life.closed": "La mesa está cerrada:",
    "life.closed.finished": "la partida terminó.",
    "life.closed.abandoned": "la partida se terminó después de que {names} se fuera (lo eligió {by}). Cuenta como partida abandonada por {names}.",
    "life.closed.abandonedUnsettled": "la partida quedó sin terminar después de que un jugador se fuera.",
    "life.closed.everyone-left": "se fueron todos.",
    "life.closed.idle": "nadie jugó aquí en mucho tiempo.",
    "life.replays": "Repeticiones",
    "life.rematchAsked": "Revancha pedida por {names}: la próxima partida empieza cuando la pidan todos los que siguen en la mesa.",
    "life.lobby": "Volver a las mesas",
    "table.close": "Cerrar",
    "table.reconnecting": "Se perdió la conexión: reconectando…",
    "table.offline": "Estás sin conexión: las jugadas no se pueden enviar hasta que vuelva.",
    "table.notSent": "No se envió: estás sin conexión. Espera a que vuelva.",
    "table.noAnswer": "El servidor no responde: reconectando…",
    "table.reconnected": "Conexión recuperada.",
    "table.connecting": "Conectando…",
    "table.spectating": "Estás mirando esta mesa.",
    "table.share": "Enlace para jugar",
    "table.watchLink": "Enlace para mirar",
    "table.log": "Historial",
    "table.scores": "Tanteo",
    "table.keyboard": "Teclas: ← → eligen ficha, Intro la juega (↑ ↓ eligen el extremo), R las reglas, S la hoja de tanteo.",
    "table.noTable": "No existe esa mesa.",
    "table.muggins": "¡Muggins!",
    "table.claim": "Puntos que cantas",
    "table.claimHint": "Regla muggins: canta los puntos que hace tu jugada; si no, un rival se los puede quedar.",
    "table.unclaimed": "{name} hizo {points} puntos y no los cantó todos: canta «muggins» y son tuyos.",
    "table.doesNotFit": "El {tile} no entra por ningún extremo.",
    "table.notYourTurn": "No es tu turno.",
    "table.rules": "Reglas",
    "table.guide": "Guía y estrategia de este juego",
    "table.sheet": "Hoja de tanteo",
    "table.sheetHand": "Mano",
    "table.sheetTotal": "Total",
    "table.sheetEmpty": "Aún no hay puntos.",
    "table.board": "Mesa: {description}",
    "table.boardEmpty": "La mesa está vacía.",
    "table.boardEnd": "{end}: {n}",
    "table.boardCount": "cuenta {count}",
    "table.partnerOf": "tu compañero",
    "table.lastMove": "Última jugada: {move}",
    "table.chat": "Chat",
    "table.hint": "Pista",
    "table.hintText": "El experto jugaría {play} (vale {points} puntos hasta el fin de la mano).",
    "table.casual": "mesa amistosa: con pistas, no puntúa",
    "table.chatSend": "Enviar",
    "table.chatPlaceholder": "Escribe un mensaje a la mesa",
    "table.chatOff": "El chat está desactivado en esta mesa.",
    "table.chatMute": "Silenciar a {name}",
    "table.chatUnmute": "Dejar de silenciar a {name}",
    "table.chatMuted": "(silenciado)",
    "table.chatWatching": "mirando",
    "table.chatSpectator": "un espectador",
    "table.chatEmpty": "Aún no hay mensajes.",
    "phrase.gg": "¡Buena partida!",
    "phrase.wp": "¡Bien jugado!",
    "phrase.nice": "¡Qué jugada!",
    "phrase.thanks": "¡Gracias!",
    "phrase.oops": "¡Uy!",
    "phrase.hi": "¡Hola!",
    "side.seat": "{name}",
    "side.pair": "{a} y {b}",
    "end.0": "izquierda", "end.1": "derecha", "end.2": "arriba", "end.3": "abajo", "end.n": "brazo {n}",
    "at.0": "por la izquierda", "at.1": "por la derecha", "at.2": "por arriba", "at.3": "por abajo", "at.n": "por el brazo {n}",
    "ev.HandStarted": "Empieza la mano {hand}: sale {name}.",
    "ev.TilesDealt": "{name} recibe {n} fichas.",
    "ev.TileDrawn": "{name} roba del pozo.",
    "ev.TilePlayed": "{name} juega el {tile} {at}: la cuenta queda en {count}.",
    "ev.TileLed": "{name} sale con el {tile}: la cuenta queda en {count}.",
    "ev.claims": " Canta {claim} puntos.",
    "ev.Passed": "{name} pasa.",
    "ev.PointsScored.count": "{name} se anota {points}.",
    "ev.PointsScored.domino": "{name} se dominó y se anota {points}.",
    "ev.PointsScored.blocked": "{name} gana el tranque: {points} puntos.",
    "ev.PointsScored.muggins": "{name} canta muggins: {points} puntos.",
    "ev.HandEnded": "Termina la mano {hand}.",
    "ev.GameEnded": "Se acabó la partida.",
    "ev.byBotForYou": " (un bot jugó por ti)",
    "ev.byBotFor": " (un bot jugó por {name})",
    "toast.youDraw": "Robas del pozo.",
    "toast.points": "+{points} {name}",
    "award.rounded": "{name}: {raw} puntos en las manos rivales → {points}",
    "guide.tagline": "Cómo se juega, con ejemplos y estrategia",
    "guide.other": "Otra variante",
    "guide.rules": "Las reglas de esta variante",
    "guide.examples": "Ejemplos paso a paso",
    "guide.examplesIntro": "Las primeras jugadas de una mano, una a una: la cuenta es la suma de los extremos abiertos.",
    "guide.tips": "Consejos de estrategia",
    "guide.faq": "Preguntas frecuentes",
    "analysis.title": "Lo que piensa el experto",
    "analysis.about": "El bot experto juzga cada decisión con lo que ese asiento sabía entonces (nunca con las manos reveladas): la jugada que prefiere y los puntos esperados que costó cada elección.",
    "analysis.run": "Analizar esta mano",
    "analysis.thinking": "Pensando…",
    "analysis.summary": "{n} decisiones; {costly} costosas; {points} puntos esperados perdidos en total.",
    "analysis.agrees": "{name}: {play}. El experto está de acuerdo.",
    "analysis.prefers": "{name}: {play}. El experto prefiere {better}: {points} puntos esperados mejor.",
    "analysis.lead": "salir con el {tile}",
    "analysis.play": "el {tile} {at}",
    "replay.title": "Repetición: mesa {table}, partida {game}, mano {hand}",
    "replay.first": "Inicio",
    "replay.back": "Atrás",
    "replay.forward": "Adelante",
    "replay.last": "Final",
    "replay.step": "Paso {n} de {total}",
    "replay.fair": "Verificada: reconstruida a partir de la semilla revelada y de las decisiones de los jugadores, coincide exactamente con el registro.",
    "replay.problems": "La verificación encontró problemas:",
    "replay.keys": "Teclas: ← → paso a paso, Inicio/Fin primero/último.",
    "replay.missing": "No se puede repetir esta mano: {reason}",
    "lobby.partnerOf": "Asiento {seat} (compañero del asiento {partner})",
    "table.tiles.one": "1 ficha",
    "table.nextHandMine": "Ya empezó la mano {hand} y te toca.",
    "table.nextHand": "Ya empezó la mano {hand}.",
    "table.backToTable": "Volver a la mesa",
    "table.blockedWinner": "Tranque: gana {name}, con menos puntos en la mano ({pips}).",
    "table.toPlay": "(le toca)",
    "table.backToGame": "Volver a la mesa",
    "table.endCount": "{end} → cuenta {count}",
    "ev.TilesDealtSeat": "{name} recibe {n} fichas.",
    "ev.SeedSealed": "Se sella la semilla de la mano (se revela al terminarla).",
    "ev.BoneyardStacked": "{n} fichas quedan boca abajo en el pozo.",
    "replay.scores": "Tanteo",
  },
};

export const LANGUAGES = { en: "English", es: "Español" };
const STORAGE_KEY = "muggins.language";

export function language() {
  // ?lang=es in the address wins (a shared link in a language), and is remembered.
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && WORDS[asked]) {
    if (localStorage.getItem(STORAGE_KEY) !== asked) localStorage.setItem(STORAGE_KEY, asked);
    return asked;
  }
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
      const address = new URL(location.href);
      if (address.searchParams.has("lang")) {
        // The switch wins over the address it was opened with.
        address.searchParams.delete("lang");
        history.replaceState(null, "", address);
      }
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

// "at the left end", "on the top arm": where a tile went, as a sentence says it.
export function endPhrase(end) {
  return end <= 3 ? t(`at.${end}`) : t("at.n", { n: end });
}

// A tile as players say it: the higher half first ("6-4", "5-0").
export function tileText(tile) {
  return `${Math.max(tile[0], tile[1])}-${Math.min(tile[0], tile[1])}`;
}

// One event in words, for the log (seat names from `names`).  `by` is who
// made the move ("player", "bot", "system"); `people` says which seats are
// people's (a bot's move at a person's seat is marked); `me` is the reader's seat.
export function describeEvent(event, names, { by = null, people = [], me = null } = {}) {
  const name = (seat) => names[seat] ?? `#${seat + 1}`;
  switch (event.type) {
    case "HandStarted":
      return t("ev.HandStarted", { hand: event.hand, name: name(event.leader) });
    case "TileDrawn":
      return t("ev.TileDrawn", { name: name(event.seat) });
    case "TilePlayed": {
      let text = event.end === null
        ? t("ev.TileLed", { name: name(event.seat), tile: tileText(event.tile), count: event.count })
        : t("ev.TilePlayed", { name: name(event.seat), tile: tileText(event.tile), at: endPhrase(event.end), count: event.count });
      if (event.claim) text += t("ev.claims", { claim: event.claim });
      if (by === "bot" && people[event.seat]) {
        text += event.seat === me ? t("ev.byBotForYou") : t("ev.byBotFor", { name: name(event.seat) });
      }
      return text;
    }
    case "Passed":
      return t("ev.Passed", { name: name(event.seat) });
    case "PointsScored":
      return t(`ev.PointsScored.${event.reason}`, { name: name(event.seat), points: event.points });
    case "HandEnded":
      return t("ev.HandEnded", { hand: event.hand });
    case "GameEnded":
      return t("ev.GameEnded");
    case "TilesDealt":
      return t("ev.TilesDealtSeat", { name: name(event.seat), n: event.tile_count ?? event.tiles?.length ?? 0 });
    case "SeedSealed":
      return t("ev.SeedSealed");
    case "BoneyardStacked":
      return t("ev.BoneyardStacked", { n: event.tile_count ?? event.tiles?.length ?? 0 });
    default:
      return null;
  }
}
