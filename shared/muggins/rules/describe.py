"""A ruleset in words, as a table shows it before anyone sits, in English or Spanish."""

from __future__ import annotations

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
    "muggins": "Muggins sin spinner: la línea tiene siempre dos puntas, la mano de cada rival "
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


def _seating_es(rules: Ruleset) -> str:
    if rules.partnerships:
        return "4 jugadores en dos parejas (asientos 0 y 2 contra 1 y 3)"
    return f"{rules.seats} jugadores, cada uno por su cuenta"


def _spinner_es(rules: Ruleset) -> str:
    if rules.spinner == "none":
        return "Sin spinner: la línea tiene siempre dos puntas; los dobles van cruzados."
    if rules.spinner == "first-double":
        return (
            "El primer doble jugado es el spinner: cuando sus dos lados largos tienen ficha, "
            "se abren también los cortos y la mesa crece en cuatro direcciones."
        )
    return "Todo doble es spinner: abre sus lados cortos cuando los dos largos están cubiertos."


def _scoring_es(rules: Ruleset) -> str:
    claim = (
        " Debes cantar tus puntos con la jugada; un rival puede cantar «muggins» si no los "
        "cantas o te equivocas, y se los queda."
        if rules.muggins_rule
        else " El servidor cuenta por todos."
    )
    if rules.scoring == "fives":
        text = "Tras cada jugada se suman las puntas abiertas; un múltiplo de 5 puntúa ese total."
    elif rules.scoring == "threes":
        text = "Tras cada jugada se suman las puntas abiertas; un múltiplo de 3 puntúa ese total."
    elif rules.scoring == "fives-and-threes":
        text = (
            "Tras cada jugada se suman las puntas abiertas: un punto por cada 5 en un múltiplo "
            "de 5 y uno por cada 3 en un múltiplo de 3 (15 da 8)."
        )
    else:
        return "No hay puntos durante el juego."
    return text + claim


def _award_es(rules: Ruleset) -> str:
    if rules.hand_award == "one-point":
        return ("Quien se queda sin fichas, o tiene la mano más baja si se cierra el juego, "
                "gana 1 punto.")
    if rules.rounding == "total":
        rounding = "sumados y redondeados al 5 más cercano (12 → 10, 13 → 15)"
    elif rules.rounding == "per-opponent":
        rounding = "la mano de cada rival redondeada al 5 más cercano, y luego sumadas"
    else:
        rounding = "contados tal cual"
    domino = f"Quedarse sin fichas da los puntos que les quedan a los rivales, {rounding}."
    if rules.blocked_award == "opponents":
        blocked = "lo mismo"
    elif rules.blocked_award == "opponents-minus-own":
        blocked = ("los puntos de los rivales menos los propios, redondeados igual (nunca "
                   "menos de 0)")
    else:
        blocked = "los puntos de todos los demás, contados tal cual"
    return (
        f"{domino} Un juego cerrado lo gana el total de puntos más bajo, que se lleva "
        f"{blocked}; un empate en el más bajo no da nada."
    )


def _target_es(rules: Ruleset) -> str:
    if rules.target is None:
        return "Una mano decide la partida; un cierre empatado es partida en tablas."
    if rules.target_check == "immediate":
        return (
            f"Partida a {rules.target} puntos, ganada en el momento en que una jugada los "
            "alcanza, aunque sea a mitad de mano (entonces no hay puntos de final de mano)."
        )
    return (
        f"Partida a {rules.target} puntos, comprobada al final de cada mano: gana la puntuación "
        "más alta que llegue; un empate arriba juega otra mano."
    )


def _leaders_es(rules: Ruleset) -> str:
    first = (
        "Un sorteo decide quién sale en la primera mano, con cualquier ficha."
        if rules.first_leader == "lottery"
        else "Sale quien tenga el doble más alto (si nadie tiene dobles, la ficha más pesada)."
    )
    if rules.target is None:
        return first
    following = (
        "Después sale quien se quedó sin fichas"
        if rules.next_leader == "domino-player"
        else "Después sale quien ganó la mano"
    )
    otherwise = {
        "lottery": "decide un sorteo",
        "highest-double": "vuelve a salir el doble más alto",
        "left-of-previous-leader": "sale el asiento a la izquierda del anterior",
    }[rules.leader_without_winner]
    return f"{first} {following}; si no, {otherwise}."


def _describe_es(rules: Ruleset) -> list[tuple[str, str]]:
    deal = (
        f"{rules.tiles_per_seat} fichas cada uno de un juego doble-{rules.max_pip} de "
        f"{rules.set_size}; {rules.boneyard_size} quedan boca abajo para robar."
    )
    drawing = (
        "Si puedes jugar, debes hacerlo. Si no, robas de una en una hasta que una encaje y la "
        "juegas; solo pasas cuando no quedan fichas para robar."
        if rules.drawing == "draw"
        else "Si puedes jugar, debes hacerlo; si no, pasas. Nadie roba."
    )
    lines = [
        ("Jugadores", _seating_es(rules) + "."),
        ("Reparto", deal),
        ("Mesa", _spinner_es(rules)),
        ("Turno", drawing),
        ("Puntos", _scoring_es(rules)),
        ("Final de mano", _award_es(rules)),
        ("Partida", _target_es(rules)),
        ("Salida", _leaders_es(rules)),
    ]
    summary = PRESET_SUMMARIES_ES.get(rules.preset)
    if summary:
        lines.insert(0, ("Variante", f"{rules.preset}: {summary}"))
    return lines


def _seating(rules: Ruleset) -> str:
    if rules.partnerships:
        return "4 players in two partnerships (seats 0 and 2 against 1 and 3)"
    return f"{rules.seats} players, each for themselves"


def _spinner(rules: Ruleset) -> str:
    if rules.spinner == "none":
        return "No spinner: the line always has two ends; doubles lie crosswise."
    if rules.spinner == "first-double":
        return (
            "The first double played is the spinner: once both its long sides hold a tile, "
            "its short sides open too, and the layout grows in four directions."
        )
    return "Every double is a spinner, opening its short sides once both long sides are covered."


def _scoring(rules: Ruleset) -> str:
    claim = (
        " You must claim your points with the play; an opponent may call “muggins” on a "
        "count you missed or got wrong and take it."
        if rules.muggins_rule
        else " The server counts for everyone."
    )
    if rules.scoring == "fives":
        text = "After each play the open ends are added; a multiple of 5 scores that total."
    elif rules.scoring == "threes":
        text = "After each play the open ends are added; a multiple of 3 scores that total."
    elif rules.scoring == "fives-and-threes":
        text = (
            "After each play the open ends are added: one point for each 5 in a multiple of 5, "
            "one for each 3 in a multiple of 3 (15 scores 8)."
        )
    else:
        return "No points during play."
    return text + claim


def _award(rules: Ruleset) -> str:
    if rules.hand_award == "one-point":
        return "The player who goes out, or holds the lowest hand when blocked, scores 1 point."
    if rules.rounding == "total":
        rounding = "added up and rounded to the nearest 5 (12 → 10, 13 → 15)"
    elif rules.rounding == "per-opponent":
        rounding = "each opponent's hand rounded to the nearest 5, then added"
    else:
        rounding = "counted as they are"
    domino = f"Going out scores the opponents' remaining pips, {rounding}."
    if rules.blocked_award == "opponents":
        blocked = "the same"
    elif rules.blocked_award == "opponents-minus-own":
        blocked = "the opponents' pips minus their own, each rounded the same way (never below 0)"
    else:
        blocked = "the pips of all the others, counted as they are"
    return (
        f"{domino} A blocked hand is won by the lowest pip total, which scores {blocked}; "
        "a tie for lowest scores nothing."
    )


def _target(rules: Ruleset) -> str:
    if rules.target is None:
        return "One hand decides the game; a blocked tie is a drawn game."
    if rules.target_check == "immediate":
        return (
            f"Game to {rules.target} points, won the moment a play reaches it, even mid-hand "
            "(no end-of-hand points then)."
        )
    return (
        f"Game to {rules.target} points, checked at the end of each hand: the highest score "
        "at or over it wins; a tie at the top plays another hand."
    )


def _leaders(rules: Ruleset) -> str:
    first = (
        "A lottery picks who leads the first hand, with any tile."
        if rules.first_leader == "lottery"
        else "The holder of the highest double leads it (nobody with a double: the heaviest "
        "tile)."
    )
    if rules.target is None:
        return first
    following = (
        "Then the player who went out leads"
        if rules.next_leader == "domino-player"
        else "Then the winner of the hand leads"
    )
    otherwise = {
        "lottery": "a lottery decides",
        "highest-double": "the highest double leads again",
        "left-of-previous-leader": "the seat left of the previous leader leads",
    }[rules.leader_without_winner]
    return f"{first} {following}; otherwise {otherwise}."


def describe(rules: Ruleset, language: Language = "en") -> list[tuple[str, str]]:
    """(topic, sentence) pairs that explain every knob of ``rules``."""
    if language == "es":
        return _describe_es(rules)
    set_size = rules.set_size
    deal = (
        f"{rules.tiles_per_seat} tiles each from a double-{rules.max_pip} set of {set_size}; "
        f"{rules.boneyard_size} stay face down in the boneyard."
    )
    drawing = (
        "You must play if you can. If you cannot, you draw one tile at a time until one fits "
        "and play it; you pass only when the boneyard is empty."
        if rules.drawing == "draw"
        else "You must play if you can; if you cannot, you pass. Nobody draws."
    )
    lines = [
        ("Players", _seating(rules) + "."),
        ("Deal", deal),
        ("Layout", _spinner(rules)),
        ("Turn", drawing),
        ("Scoring", _scoring(rules)),
        ("End of hand", _award(rules)),
        ("Game", _target(rules)),
        ("Lead", _leaders(rules)),
    ]
    summary = PRESET_SUMMARIES.get(rules.preset)
    if summary:
        lines.insert(0, ("Preset", f"{rules.preset}: {summary}"))
    return lines
