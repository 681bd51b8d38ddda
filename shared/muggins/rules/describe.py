"""A ruleset in words, as a table shows it before anyone sits, in English or Spanish."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from muggins.rules.ruleset import Ruleset

Language = Literal["en", "es"]
LANGUAGES: tuple[Language, ...] = ("en", "es")

PRESET_SUMMARIES: dict[str, str] = {
    "playelephant": "All Fives as PlayElephant plays it: the first double is a spinner, "
    "every multiple of 5 scores, game to 250 (200 in pairs), ended the moment it is reached.",
    "muggins": "Muggins without a spinner: the line keeps two ends, each opponent's hand "
    "is rounded, the highest double leads.",
    "all-fives": "All Fives each for themselves: spinner, game to 150 checked at the end "
    "of each hand.",
    "draw": "The Draw game: no points during play; draw when stuck; the first out wins.",
    "block": "The Block game: no points during play, no drawing; the first out wins.",
    "sniff": "Sniff: Muggins with the first double as a spinner.",
    "five-up": "Five-Up: Muggins where every double is a spinner.",
    "all-threes": "All Threes: Muggins scoring multiples of 3.",
    "fives-and-threes": "Fives and Threes, the pub game: a point per five and per three, "
    "one point for the hand, game to 61.",
    "classic-muggins": "Muggins as printed in 1864, with the 1868 muggins rule: claim your "
    "count or an opponent takes it; 200 for two players, 150 for three or four.",
}


PRESET_SUMMARIES_ES: dict[str, str] = {
    "playelephant": "All Fives como lo juega PlayElephant: el primer doble es spinner (cuatro "
    "brazos), todo múltiplo de 5 puntúa, partida a 250 (200 en parejas), ganada en el momento "
    "en que se alcanza.",
    "muggins": "Muggins sin spinner: la línea tiene siempre dos extremos, la mano de cada rival "
    "se redondea, sale el doble más alto.",
    "all-fives": "All Fives cada uno por su cuenta: con spinner, partida a 150 comprobada al "
    "final de cada mano.",
    "draw": "Juego de robo: sin puntos durante el juego; se roba cuando no se puede jugar; "
    "gana quien se queda sin fichas.",
    "block": "Juego de bloqueo: sin puntos durante el juego y sin robar; gana quien se queda "
    "sin fichas.",
    "sniff": "Sniff: Muggins con el primer doble como spinner.",
    "five-up": "Five-Up: Muggins en el que todo doble es spinner.",
    "all-threes": "All Threes: Muggins que puntúa múltiplos de 3.",
    "fives-and-threes": "Fives and Threes, el juego de taberna: un punto por cada cinco y por "
    "cada tres, un punto por la mano, partida a 61.",
    "classic-muggins": "Muggins como se imprimió en 1864, con la regla muggins de 1868: canta "
    "tus puntos o un rival se los queda; 200 a dos jugadores, 150 a tres o cuatro.",
}


#: Each preset's name as players know it, in English and in Spanish.
PRESET_TITLES: dict[str, tuple[str, str]] = {
    "playelephant": ("All Fives (PlayElephant)", "All Fives (PlayElephant)"),
    "muggins": ("Muggins, no spinner", "Muggins sin spinner"),
    "all-fives": ("All Fives to 150", "All Fives a 150"),
    "draw": ("Draw dominoes", "Dominó de robo"),
    "block": ("Block dominoes", "Dominó de bloqueo"),
    "sniff": ("Sniff", "Sniff"),
    "five-up": ("Five-Up", "Five-Up"),
    "all-threes": ("All Threes", "All Threes (múltiplos de tres)"),
    "fives-and-threes": ("Fives and Threes", "Fives and Threes (cincos y treses)"),
    "classic-muggins": ("Classic Muggins (claim your points)",
                        "Muggins clásico (canta tus puntos)"),
}


def preset_title(name: str, language: Language = "en") -> str:
    english, spanish = PRESET_TITLES.get(name, (name, name))
    return spanish if language == "es" else english


def preset_summary(name: str, language: Language = "en") -> str:
    summaries = PRESET_SUMMARIES_ES if language == "es" else PRESET_SUMMARIES
    return summaries.get(name, "")


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
                   "Sin spinner: la línea tiene siempre dos extremos; los dobles van atravesados.")
    if rules.spinner == "first-double":
        return say(
            "The first double played is the spinner: once both its long sides hold a tile, "
            "its short sides open too, and the layout grows in four directions.",
            "El primer doble jugado es el spinner: cuando sus dos lados largos tienen ficha, "
            "se abren también los cortos y la mesa crece en cuatro direcciones.",
        )
    return say(
        "Every double is a spinner, opening its short sides once both long sides are covered.",
        "Todo doble es spinner: abre sus lados cortos cuando los dos largos están cubiertos.",
    )


def _scoring(rules: Ruleset, say: Say) -> str:
    claim = (
        say(" You must claim your points with the play; an opponent may call “muggins” on a "
            "count you missed or got wrong and take it.",
            " Debes cantar tus puntos con la jugada; un rival puede cantar «muggins» si no los "
            "cantas o te equivocas, y se los queda.")
        if rules.muggins_rule
        else say(" The server counts for everyone.", " El servidor cuenta por todos.")
    )
    if rules.scoring == "fives":
        text = say("After each play the open ends are added; a multiple of 5 scores that total.",
                   "Tras cada jugada se suman los extremos abiertos; un múltiplo de 5 puntúa ese "
                   "total.")
    elif rules.scoring == "threes":
        text = say("After each play the open ends are added; a multiple of 3 scores that total.",
                   "Tras cada jugada se suman los extremos abiertos; un múltiplo de 3 puntúa ese "
                   "total.")
    elif rules.scoring == "fives-and-threes":
        text = say(
            "After each play the open ends are added: one point for each 5 in a multiple of 5, "
            "one for each 3 in a multiple of 3 (15 scores 8).",
            "Tras cada jugada se suman los extremos abiertos: un punto por cada 5 en un múltiplo "
            "de 5 y uno por cada 3 en un múltiplo de 3 (15 da 8).",
        )
    else:
        return say("No points during play.", "No hay puntos durante el juego.")
    return text + claim


def _award(rules: Ruleset, say: Say) -> str:
    if rules.hand_award == "one-point":
        return say(
            "The player who goes out, or holds the lowest hand when blocked, scores 1 point.",
            "Quien se domina, o tiene la mano más baja si hay tranque, "
            "gana 1 punto.",
        )
    if rules.rounding == "total":
        rounding = say("added up and rounded to the nearest 5 (12 → 10, 13 → 15)",
                       "sumados y redondeados al 5 más cercano (12 → 10, 13 → 15)")
    elif rules.rounding == "per-opponent":
        rounding = say("each opponent's hand rounded to the nearest 5, then added",
                       "la mano de cada rival redondeada al 5 más cercano, y luego sumadas")
    else:
        rounding = say("counted as they are", "contados tal cual")
    domino = say(f"Going out scores the opponents' remaining pips, {rounding}.",
                 f"Quedarse sin fichas da los puntos que les quedan a los rivales, {rounding}.")
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
        f"{domino} Un tranque lo gana el total de puntos más bajo, que se lleva "
        f"{blocked}; un empate en el más bajo no da nada.",
    )


def _target(rules: Ruleset, say: Say) -> str:
    if rules.target is None:
        return say("One hand decides the game; a blocked tie is a drawn game.",
                   "Una mano decide la partida; un cierre empatado es partida en tablas.")
    if rules.target_check == "immediate":
        return say(
            f"Game to {rules.target} points, won the moment a play reaches it, even mid-hand "
            "(no end-of-hand points then).",
            f"Partida a {rules.target} puntos, ganada en el momento en que una jugada los "
            "alcanza, aunque sea a mitad de mano (entonces no hay puntos de final de mano).",
        )
    return say(
        f"Game to {rules.target} points, checked at the end of each hand: the highest score "
        "at or over it wins; a tie at the top plays another hand.",
        f"Partida a {rules.target} puntos, comprobada al final de cada mano: gana la puntuación "
        "más alta que llegue; un empate arriba juega otra mano.",
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
        say("Then the player who went out leads", "Después sale quien se quedó sin fichas")
        if rules.next_leader == "domino-player"
        else say("Then the winner of the hand leads", "Después sale quien ganó la mano")
    )
    otherwise = {
        "lottery": say("a lottery decides", "decide un sorteo"),
        "highest-double": say("the highest double leads again",
                              "vuelve a salir el doble más alto"),
        "left-of-previous-leader": say("the seat left of the previous leader leads",
                                       "sale el asiento a la izquierda del anterior"),
    }[rules.leader_without_winner]
    return say(f"{first} {following}; otherwise {otherwise}.",
               f"{first} {following}; si no, {otherwise}.")


def describe(rules: Ruleset, language: Language = "en") -> list[tuple[str, str]]:
    """(topic, sentence) pairs that explain every knob of ``rules``."""

    def say(english: str, spanish: str) -> str:
        return spanish if language == "es" else english

    deal = say(
        f"{rules.tiles_per_seat} tiles each from a double-{rules.max_pip} set of "
        f"{rules.set_size}; {rules.boneyard_size} stay face down in the boneyard.",
        f"{rules.tiles_per_seat} fichas cada uno de un juego doble-{rules.max_pip} de "
        f"{rules.set_size}; {rules.boneyard_size} quedan boca abajo en el pozo.",
    )
    drawing = (
        say("You must play if you can. If you cannot, you draw one tile at a time until one "
            "fits and play it; you pass only when the boneyard is empty.",
            "Si puedes jugar, debes hacerlo. Si no, robas de una en una hasta que una encaje y "
            "la juegas; solo pasas cuando el pozo está vacío.")
        if rules.drawing == "draw"
        else say("You must play if you can; if you cannot, you pass. Nobody draws.",
                 "Si puedes jugar, debes hacerlo; si no, pasas. Nadie roba.")
    )
    lines = [
        (say("Players", "Jugadores"), _seating(rules, say) + "."),
        (say("Deal", "Reparto"), deal),
        (say("Layout", "Mesa"), _spinner(rules, say)),
        (say("Turn", "Turno"), drawing),
        (say("Scoring", "Puntos"), _scoring(rules, say)),
        (say("End of hand", "Final de mano"), _award(rules, say)),
        (say("Game", "Partida"), _target(rules, say)),
        (say("Lead", "Salida"), _leaders(rules, say)),
    ]
    summary = preset_summary(rules.preset, language)
    if summary:
        lines.insert(0, (say("Game", "Juego"),
                         f"{preset_title(rules.preset, language)}: {summary}"))
    return lines
