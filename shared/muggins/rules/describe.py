"""A ruleset in words, as a table shows it before anyone sits."""

from __future__ import annotations

from muggins.rules.ruleset import Ruleset

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


def describe(rules: Ruleset) -> list[tuple[str, str]]:
    """(topic, sentence) pairs that explain every knob of ``rules``."""
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
