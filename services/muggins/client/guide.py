"""The guide to each preset: its rules in words, worked examples drawn as
boards (made by the rules engine itself, so they can never disagree with
the game), strategy tips and questions players ask, in English and Spanish.

Seed 003 offers "a complete guide with strategy tips and FAQ"; this is ours.
"""

from __future__ import annotations

import msgspec

from muggins.domain.views import LayoutView, RuleLine, count_parts, layout_view_of
from muggins.rules.describe import Language, describe, preset_summary, preset_title
from muggins.rules.layout import Layout
from muggins.rules.placing import place, with_lead
from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.ruleset import Ruleset
from muggins.rules.scoring import points_for_count, round_to_five
from muggins.rules.tiles import Tile, make_tile

#: The plays the examples walk through: the lead, then (tile, arm).  Steps a
#: preset's layout cannot take (a spinner's arm where there is no spinner)
#: are left out.
EXAMPLE_PLAYS: tuple[tuple[Tile, int | None], ...] = (
    (make_tile(6, 4), None),
    (make_tile(4, 3), 1),
    (make_tile(6, 6), 0),
    (make_tile(6, 2), 0),
    (make_tile(6, 5), 2),
    (make_tile(3, 3), 1),
)

END_WORDS = {
    "en": ("at the left end", "at the right end", "on the top arm", "on the bottom arm"),
    "es": ("por la izquierda", "por la derecha", "por arriba", "por abajo"),
}


class Example(msgspec.Struct, frozen=True):
    caption: str
    layout: LayoutView
    points: int


class Guide(msgspec.Struct, frozen=True):
    preset: str
    title: str
    summary: str
    rules: list[RuleLine]
    examples: list[Example]
    award_example: str
    tips: list[str]
    questions: list[tuple[str, str]]


def _say(language: Language, english: str, spanish: str) -> str:
    return spanish if language == "es" else english


def _caption(rules: Ruleset, layout: Layout, tile: Tile, end: int | None,
             language: Language) -> tuple[str, int]:
    parts = count_parts(layout)
    points = points_for_count(layout.count, rules.scoring)
    sum_text = " + ".join(str(p) for p in parts) + (f" = {layout.count}" if len(parts) > 1 else "")
    shown = f"{tile.high}-{tile.low}"
    where = (_say(language, f"{shown} leads", f"Sale el {shown}") if end is None
             else _say(language, f"{shown} goes {END_WORDS['en'][end]}",
                       f"El {shown} va {END_WORDS['es'][end]}"))
    if rules.scoring == "none":
        outcome = _say(language, "no points during play in this game",
                       "en este juego no hay puntos durante la mano")
    elif points:
        outcome = _say(language, f"it scores {points}", f"da {points} puntos")
    else:
        outcome = _say(language, "no score", "no da puntos")
    count_word = _say(language, "the open ends add up to", "los extremos suman")
    return f"{where}: {count_word} {sum_text}; {outcome}.", points


def examples(rules: Ruleset, language: Language) -> list[Example]:
    """The EXAMPLE_PLAYS under ``rules``: each board after the play and what it scores."""
    layout: Layout | None = None
    shown = []
    for tile, end in EXAMPLE_PLAYS:
        if end is None:
            layout = with_lead(tile, rules.spinner)
        elif layout is None or end >= len(layout.ends) or not layout.fits(tile, end):
            continue
        else:
            layout = place(layout, tile, end, rules.spinner)
        caption, points = _caption(rules, layout, tile, end, language)
        shown.append(Example(caption, layout_view_of(layout), points))
    return shown


def _award_example(rules: Ruleset, language: Language) -> str:
    if rules.hand_award == "one-point":
        return _say(language, "Going out scores one point for the hand, whatever is left "
                    "in the other hands.",
                    "Quien se domina se anota un punto por la mano, queden los puntos que "
                    "queden en las otras manos.")
    if rules.rounding == "none":
        return _say(language,
                    "Going out while the others hold 13 pips scores exactly 13.",
                    "Si te dominas y a los rivales les quedan 13 puntos, te anotas exactamente 13.")
    return _say(language,
                f"Going out while the others hold 13 pips scores {round_to_five(13)} "
                f"(12 would give {round_to_five(12)}: the nearest five).",
                f"Si te dominas y a los rivales les quedan 13 puntos, te anotas "
                f"{round_to_five(13)} (con 12 serían {round_to_five(12)}: se redondea al múltiplo "
                "de 5 más cercano).")


def _tips(rules: Ruleset, language: Language) -> list[str]:
    tips = [
        _say(language,
             "Before each play, add up the open ends as they would be after it: the count "
             "is on the screen, and the board shows every end.",
             "Antes de jugar, calcula cómo quedaría la cuenta: la cuenta actual está en "
             "pantalla y en la mesa se ven todos los extremos."),
        _say(language,
             "Do not leave an easy count for the next player: an end of 5 or 0 next to a "
             "count just short of a multiple invites their score.",
             "No dejes la cuenta servida al siguiente: un extremo de 5 o de blanco junto a "
             "una cuenta casi redonda le regala los puntos."),
        _say(language,
             "Watch what others draw or pass on: a player who drew on a 4 and a 6 holds "
             "neither, so those numbers are safe ends against them.",
             "Fíjate en quién roba o pasa: si alguien robó con un 4 y un 6 en los extremos, no "
             "lleva ni cuatros ni seises, así que dejarle esos números es seguro."),
        _say(language,
             "Keep your heavy tiles moving: whoever goes out scores the pips left in the "
             "other hands, so a hand full of sixes is a gift to them.",
             "Suelta pronto las fichas pesadas: quien se domina se anota los puntos que quedan "
             "en las otras manos, y una mano llena de seises es un regalo para él."),
        _say(language,
             "Doubles are hard to place late: play them while their number is still open.",
             "Los dobles son difíciles de colocar al final: juégalos mientras su número siga "
             "abierto en algún extremo."),
    ]
    if rules.spinner != "none":
        tips.append(_say(
            language,
            "The spinner's short sides open once both long sides hold a tile, but they add "
            "to the count only when a tile is played on them; while one long side is free, "
            "the spinner counts its full value.",
            "Los lados cortos del cruce se abren cuando ya hay fichas en sus dos lados "
            "largos, pero solo suman a la cuenta cuando se juega una ficha en ellos. Mientras "
            "un lado largo siga libre, el cruce cuenta entero."))
    if rules.partnerships:
        tips.append(_say(
            language,
            "In partnerships your points and your partner's are one score: set up counts "
            "your partner can make, and never signal: the chat is public on purpose.",
            "Por parejas, tus puntos y los de tu compañero van juntos: déjale cuentas que "
            "pueda hacer, y nada de señas: el chat es público a propósito."))
    if rules.muggins_rule:
        tips.append(_say(
            language,
            "Claim exactly what your play makes before you play it: an opponent who sees "
            "you under-claim calls muggins and takes the points.",
            "Canta exactamente lo que hace tu jugada antes de jugarla: si un rival ve que "
            "cantas de menos, canta «muggins» y se queda los puntos."))
    if rules.drawing == "none":
        tips.append(_say(
            language,
            "Nobody draws in this game: count the tiles of each number that are out, and "
            "block a number your opponent needs.",
            "En este juego nadie roba: cuenta las fichas de cada número que han salido y "
            "cierra el número que necesita tu rival."))
    return tips


def _questions(language: Language) -> list[tuple[str, str]]:
    return [
        (_say(language, "How do I know the deal was fair?",
              "¿Cómo sé que el reparto fue limpio?"),
         _say(language,
              "Each hand begins by publishing a commitment (a SHA-256 hash) of its secret "
              "seed; when the hand ends the seed is revealed. The replay page rebuilds the "
              "whole hand from the seed and the players' decisions and says whether it is "
              "exactly the record.",
              "Cada mano empieza publicando un compromiso (un hash SHA-256) de su semilla "
              "secreta; al acabar la mano se revela la semilla. La página de repetición "
              "reconstruye la mano con la semilla y las decisiones de los jugadores y dice "
              "si coincide exactamente con lo registrado.")),
        (_say(language, "What if my connection drops?", "¿Y si se me corta la conexión?"),
         _say(language,
              "The page reconnects by itself and catches up. If you are away longer than "
              "the grace period, or your clock runs out, a bot plays for you (marked in the "
              "history) until you press \"I'm back\" or make a move.",
              "La página se reconecta sola y se pone al día. Si te ausentas más del tiempo "
              "de cortesía, o se te acaba el tiempo de turno, un bot juega por ti (queda "
              "marcado en el historial) hasta que pulses «Ya estoy de vuelta» o hagas una "
              "jugada.")),
        (_say(language, "Why can't I draw when I want to?",
              "¿Por qué no puedo robar cuando quiero?"),
         _say(language,
              "You must play if you can. Drawing and passing happen by themselves when you "
              "cannot, because there is never anything to choose.",
              "Si puedes jugar, debes hacerlo. Cuando no puedes, se roba y se pasa "
              "automáticamente, porque no hay nada que elegir.")),
        (_say(language, "Who leads each hand?", "¿Quién sale en cada mano?"),
         _say(language,
              "See the 'Lead' line in the rules above.",
              "Lo indican las reglas de arriba, en el apartado «Salida».")),
        (_say(language, "Are the bots cheating?", "¿Hacen trampa los bots?"),
         _say(language,
              "No: a bot decides from what its seat may see, through the same commands as "
              "you, and every hand it plays can be replayed and verified.",
              "No: un bot solo ve lo que vería un jugador en su asiento, juega con las mismas "
              "acciones que tú, y cada mano que juega se puede repetir y verificar.")),
    ]


def guide(name: str, language: Language) -> Guide:
    """The guide to preset ``name`` (LookupError if there is none)."""
    if name not in PRESETS:
        raise LookupError(name)
    seats, partnerships = seatings(name)[0]
    rules = preset(name, seats, partnerships)
    return Guide(
        preset=name,
        title=preset_title(name, language),
        summary=preset_summary(name, language),
        rules=[RuleLine(topic, text) for topic, text in describe(rules, language)],
        examples=examples(rules, language),
        award_example=_award_example(rules, language),
        tips=_tips(rules, language),
        questions=_questions(language),
    )
