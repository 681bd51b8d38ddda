"""A ruleset in words, as a table shows it before anyone sits, in English or Spanish."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from muggins.rules.ruleset import Ruleset

Language = Literal["en", "es"]
LANGUAGES: tuple[Language, ...] = ("en", "es")

# Each preset in one sentence, in plain words: the lobby lists them for
# players who know no variant by name, so every bit of jargon is said (a
# spinner is "a double that opens four ways").  Spanish uses the players'
# words (docs/glossary.md): "a cincos", "cruce", "robar", "pozo".
PRESET_SUMMARIES: dict[str, str] = {
    "playelephant": "The classic: after each play, add up the open ends; a multiple of 5 "
    "scores it. The first double is a spinner (it opens four ways). Game to 250 (200 in "
    "pairs), won the moment someone reaches it.",
    "muggins": "All Fives' scoring with a plain line: no spinner, so the line keeps two "
    "ends; each opponent's hand is rounded; the highest double leads.",
    "all-fives": "All Fives each for themselves, with a spinner: game to 150, checked at "
    "the end of each hand.",
    "draw": "Plain dominoes, one hand: no points during play; if you cannot play, you draw "
    "from the boneyard; the first out wins.",
    "block": "Plain dominoes, one hand, no drawing: if you cannot play, you pass; the first "
    "out wins.",
    "sniff": "Muggins (multiples of 5 score) with the first double a spinner that "
    "opens four ways.",
    "five-up": "Muggins (multiples of 5 score) where every double is a spinner, so "
    "the layout branches often.",
    "all-threes": "Like Muggins, but multiples of 3 score.",
    "fives-and-threes": "The British pub game: a point for every five and "
    "every three in the count, one point for the hand, game to 61.",
    "classic-muggins": "Muggins as printed in 1864, with the muggins rule: say your points "
    "as you play, or an opponent calls “muggins” and takes them; 200 for two players, 150 "
    "for three or four.",
}


PRESET_SUMMARIES_ES: dict[str, str] = {
    "playelephant": "El clásico: tras cada jugada se suman los extremos abiertos y, si es "
    "múltiplo de 5, se anota. El primer doble es el cruce (abre cuatro salidas). Partida a "
    "250 (200 por parejas), que se gana en cuanto alguien llega.",
    "muggins": "Se anotan los múltiplos de cinco, con la cadena sencilla: sin cruce, siempre "
    "dos extremos; la mano de cada rival se redondea por separado y sale el doble más alto.",
    "all-fives": "A cincos, cada uno por su cuenta y con cruce: partida a 150, que se "
    "comprueba al final de cada mano.",
    "draw": "Dominó de siempre, a una mano: no hay puntos durante la mano; quien no puede "
    "jugar roba del pozo; gana quien se domina primero.",
    "block": "Dominó de siempre, a una mano y sin robar: quien no puede jugar pasa; gana "
    "quien se domina primero.",
    "sniff": "Múltiplos de cinco en el que el primer doble es el cruce y abre cuatro salidas "
    "(en inglés, Sniff).",
    "five-up": "Múltiplos de cinco en el que todos los dobles son cruce, así que la cadena se "
    "ramifica a menudo (en inglés, Five-Up).",
    "all-threes": "Como los múltiplos de cinco, pero se anotan los múltiplos de 3 (en inglés, "
    "All Threes).",
    "fives-and-threes": "El juego de los pubs ingleses (Fives and Threes): un punto por cada "
    "cinco y por cada tres de la cuenta, un punto por ganar la mano; partida a 61.",
    "classic-muggins": "Muggins tal como se publicó en 1864, con la regla muggins: canta tus "
    "puntos al jugar o un rival canta «muggins» y se los queda; a 200 con dos jugadores y a "
    "150 con tres o cuatro.",
}


#: Each preset's name as players know it, in English and in Spanish (the
#: Spanish from the seeds' own words: docs/glossary.md).
PRESET_TITLES: dict[str, tuple[str, str]] = {
    "playelephant": ("All Fives", "Dominó a cincos"),
    "muggins": ("Muggins (no spinner)", "Múltiplos de cinco (sin cruce)"),
    "all-fives": ("All Fives to 150", "A cincos, a 150"),
    "draw": ("Draw dominoes", "Dominó con robo"),
    "block": ("Block dominoes", "Dominó sin robo"),
    "sniff": ("Sniff (Muggins with a spinner)", "Múltiplos de cinco con cruce"),
    "five-up": ("Five-Up (every double a spinner)", "Múltiplos de cinco, todo doble es cruce"),
    "all-threes": ("All Threes", "Múltiplos de tres"),
    "fives-and-threes": ("Fives and Threes", "Cincos y treses"),
    "classic-muggins": ("Classic Muggins (claim your points)",
                        "Muggins clásico (canta tus puntos)"),
}


def preset_title(name: str, language: Language = "en") -> str:
    english, spanish = PRESET_TITLES.get(name, (name, name))
    return spanish if language == "es" else english


def preset_summary(name: str, language: Language = "en") -> str:
    summaries = PRESET_SUMMARIES_ES if language == "es" else PRESET_SUMMARIES
    return summaries.get(name, "")


def seating_words(name: str, language: Language = "en") -> str:
    """How a preset is seated, as a reason to show where it is not:
    "All Fives is played by 2 players or 4 in partnerships"."""
    from muggins.rules.presets import seatings

    spanish = language == "es"
    word_or = " o " if spanish else " or "
    alone = [str(seats) for seats, partners in seatings(name) if not partners]
    ways = []
    if alone:
        counted = ", ".join(alone[:-1]) + word_or + alone[-1] if len(alone) > 1 else alone[0]
        ways.append(f"{counted} {'jugadores' if spanish else 'players'}")
    if any(partners for _, partners in seatings(name)):
        ways.append("4 por parejas" if spanish else "4 in partnerships")
    title = preset_title(name, language)
    if spanish:
        return f"{title} se juega con {word_or.join(ways)}"
    return f"{title} is played by {word_or.join(ways)}"


#: Numbers as Spanish players name a set ("doble seis").
_NUMBERS_ES = {6: "seis", 9: "nueve", 12: "doce", 15: "quince"}

#: Picks the sentence in the reader's language: say(english, spanish).
Say = Callable[[str, str], str]


def _seating(rules: Ruleset, say: Say) -> str:
    if rules.partnerships:
        return say("4 players in two partnerships (seats 1 and 3 against 2 and 4)",
                   "4 jugadores en dos parejas (asientos 1 y 3 contra 2 y 4)")
    return say(f"{rules.seats} players, each for themselves",
               f"{rules.seats} jugadores, cada uno por su cuenta")


def _spinner(rules: Ruleset, say: Say) -> str:
    if rules.spinner == "none":
        return say("No spinner: the line always has two ends; doubles lie crosswise.",
                   "Sin cruce: la cadena tiene siempre dos extremos; los dobles van atravesados.")
    if rules.spinner == "first-double":
        return say(
            "The first double played is the spinner: once both its long sides hold a tile, "
            "its short sides open too, and the layout grows in four directions.",
            "El primer doble que se juega es el cruce (en inglés, spinner): cuando ya hay fichas "
            "en sus dos lados largos, se abren también los cortos y la cadena puede crecer en "
            "cuatro brazos.",
        )
    return say(
        "Every double is a spinner, opening its short sides once both long sides are covered.",
        "Todos los dobles son cruce (en inglés, spinner): cada uno abre sus lados cortos cuando "
        "ya hay fichas en sus dos lados largos.",
    )


def _scoring(rules: Ruleset, say: Say) -> str:
    claim = (
        say(" You must claim your points with the play; an opponent may call “muggins” on a "
            "count you missed or got wrong and take it.",
            " Debes cantar tus puntos al hacer la jugada; si no los cantas o cantas mal, un rival "
            "puede cantar «muggins» y quedárselos.")
        if rules.muggins_rule
        else say(" Points are counted for you.", " Los puntos se cuentan solos.")
    )
    if rules.scoring == "fives":
        text = say("After each play the open ends are added; a multiple of 5 scores that total.",
                   "Tras cada jugada se suman los extremos abiertos (la cuenta); si es múltiplo de "
                   "5, quien jugó se anota esa cantidad.")
    elif rules.scoring == "threes":
        text = say("After each play the open ends are added; a multiple of 3 scores that total.",
                   "Tras cada jugada se suman los extremos abiertos (la cuenta); si es múltiplo de "
                   "3, quien jugó se anota esa cantidad.")
    elif rules.scoring == "fives-and-threes":
        text = say(
            "After each play the open ends are added: one point for each 5 in a multiple of 5, "
            "one for each 3 in a multiple of 3 (15 scores 8).",
            "Tras cada jugada se suman los extremos abiertos: un punto por cada 5 en un múltiplo "
            "de 5 y uno por cada 3 en un múltiplo de 3 (15 da 8).",
        )
    else:
        return say("No points during play.", "No hay puntos durante la mano.")
    return text + claim


def _award(rules: Ruleset, say: Say) -> str:
    if rules.hand_award == "one-point":
        return say(
            "The player who goes out, or holds the lowest hand when blocked, scores 1 point.",
            "Quien se domina, o quien tiene menos puntos si hay tranque, se anota 1 punto.",
        )
    if rules.rounding == "total":
        rounding = say("added up and rounded to the nearest 5 (12 → 10, 13 → 15)",
                       "sumados y redondeados al múltiplo de 5 más cercano (12 → 10, 13 → 15)")
    elif rules.rounding == "per-opponent":
        rounding = say("each opponent's hand rounded to the nearest 5, then added",
                       "redondeando la mano de cada rival al múltiplo de 5 más cercano y "
                       "sumándolas")
    else:
        rounding = say("counted as they are", "tal cual, sin redondear")
    domino = say(f"Going out scores the opponents' remaining pips, {rounding}.",
                 f"Quien se domina se anota los puntos que les quedan a los rivales, {rounding}.")
    if rules.blocked_award == "opponents":
        blocked = say("the same", "lo mismo")
    elif rules.blocked_award == "opponents-minus-own":
        blocked = say(
            "the opponents' pips minus their own, each rounded the same way (never below 0)",
            "los puntos de los rivales menos los propios, redondeados igual (nunca menos de 0)",
        )
    else:
        blocked = say("the pips of all the others, counted as they are",
                      "los puntos de todos los demás, contados tal cual")
    return say(
        f"{domino} A blocked hand is won by the lowest pip total, which scores {blocked}; "
        "a tie for lowest scores nothing.",
        f"{domino} En un tranque gana quien tiene menos puntos en la mano (por parejas, la "
        f"pareja) y se anota {blocked}; si hay empate en el mínimo, nadie se anota nada.",
    )


def _target(rules: Ruleset, say: Say) -> str:
    if rules.target is None:
        return say("One hand decides the game; a blocked tie is a drawn game.",
                   "Una sola mano decide la partida; si el tranque queda empatado, la "
                   "partida termina en empate.")
    if rules.target_check == "immediate":
        return say(
            f"Game to {rules.target} points, won the moment a play reaches it, even mid-hand "
            "(no end-of-hand points then).",
            f"Partida a {rules.target} puntos: se gana en cuanto una jugada alcanza la meta, "
            "aunque sea a mitad de mano (y entonces no se suman los puntos del fin de la mano).",
        )
    return say(
        f"Game to {rules.target} points, checked at the end of each hand: the highest score "
        "at or over it wins; if the top scores tie, another hand is played.",
        f"Partida a {rules.target} puntos, que se comprueba al final de cada mano: gana quien "
        "más puntos tenga entre los que llegan a la meta; si empatan arriba, se juega otra mano.",
    )


def _leaders(rules: Ruleset, say: Say) -> str:
    first = (
        say("A lottery picks who leads the first hand, with any tile.",
            "Un sorteo decide quién sale en la primera mano, con cualquier ficha.")
        if rules.first_leader == "lottery"
        else say("The holder of the highest double leads it (nobody with a double: the heaviest "
                 "tile).",
                 "Sale quien tenga el doble más alto (si nadie tiene dobles, la ficha más "
                 "pesada).")
    )
    if rules.target is None:
        return first
    following = (
        say("Then the player who went out leads", "Después sale quien se dominó")
        if rules.next_leader == "domino-player"
        else say("Then the winner of the hand leads", "Después sale quien ganó la mano")
    )
    otherwise = {
        "lottery": say("a lottery decides", "decide un sorteo"),
        "highest-double": say("the highest double leads again",
                              "vuelve a salir el doble más alto"),
        "left-of-previous-leader": say("the seat left of the previous leader leads",
                                       "sale el jugador a la izquierda de quien salió en "
                                       "la mano anterior"),
    }[rules.leader_without_winner]
    return say(f"{first} {following}; after a blocked hand with no single winner, {otherwise}.",
               f"{first} {following}; tras un tranque sin un único ganador, {otherwise}.")


def describe(rules: Ruleset, language: Language = "en") -> list[tuple[str, str]]:
    """(topic, sentence) pairs that explain every knob of ``rules``."""

    def say(english: str, spanish: str) -> str:
        return spanish if language == "es" else english

    deal = say(
        f"{rules.tiles_per_seat} tiles each from a double-{rules.max_pip} set of "
        f"{rules.set_size}; {rules.boneyard_size} stay face down in the boneyard.",
        f"{rules.tiles_per_seat} fichas para cada jugador de un juego de doble "
        f"{_NUMBERS_ES.get(rules.max_pip, rules.max_pip)} ({rules.set_size} fichas); las "
        f"{rules.boneyard_size} que sobran quedan boca abajo en el pozo.",
    )
    drawing = (
        say("You must play if you can. If you cannot, you draw one tile at a time until one "
            "fits and play it; you pass only when the boneyard is empty.",
            "Si puedes jugar, debes hacerlo. Si no, robas del pozo de una en una hasta sacar una "
            "que encaje, y la juegas; solo pasas cuando el pozo está vacío.")
        if rules.drawing == "draw"
        else say("You must play if you can; if you cannot, you pass. Nobody draws.",
                 "Si puedes jugar, debes hacerlo; si no, pasas. Nadie roba.")
    )
    lines = [
        (say("Players", "Jugadores"), _seating(rules, say) + "."),
        (say("Deal", "Reparto"), deal),
        (say("Layout", "Cadena"), _spinner(rules, say)),
        (say("Turn", "Turno"), drawing),
        (say("Scoring", "Puntos durante la mano"), _scoring(rules, say)),
        (say("End of hand", "Fin de la mano"), _award(rules, say)),
        (say("Target", "Partida"), _target(rules, say)),
        (say("Lead", "Salida"), _leaders(rules, say)),
    ]
    if rules.hints:
        lines.append((say("Hints", "Pistas"), say(
            "A casual table: on your turn you may ask the expert bot for a hint. Games here "
            "are not rated.",
            "Mesa amistosa: en tu turno puedes pedirle una pista al bot experto. Estas "
            "partidas no cuentan para la clasificación.")))
    summary = preset_summary(rules.preset, language)
    if summary:
        lines.insert(0, (say("Variant", "Variante"),
                         f"{preset_title(rules.preset, language)}: {summary}"))
    return lines
