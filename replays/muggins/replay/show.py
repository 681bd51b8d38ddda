"""A rebuilt hand told as a person reads it, all at once or step by step."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from muggins.bots.playbyplay import draw_layout, ends_text, narrate, side_name, summary, tiles_text
from muggins.replay.verify import HandVerdict
from muggins.rules.events import Event, GameStarted
from muggins.rules.game import evolve
from muggins.rules.state import GameState


def show_lines(before: GameState, verdict: HandVerdict) -> Iterator[str]:
    """The hand rebuilt from its seed and decisions, told move by move."""
    if verdict.status == "unfinished":
        yield f"Hand {verdict.hand} is still being played: its seed is revealed when it ends."
        return
    yield from narrate(verdict.rebuilt, before)
    if verdict.problems:
        yield ""
        yield f"The record of hand {verdict.hand} could not be rebuilt past this point:"
        for problem in verdict.problems:
            yield f"  {problem}"


class Frame:
    """The table after one event of a hand: what a step shows."""

    def __init__(self, index: int, event: Event, state: GameState) -> None:
        self.index = index
        self.event = event
        self.state = state

    def lines(self, total: int) -> list[str]:
        state = self.state
        rules = state.ruleset
        out = [f"step {self.index + 1}/{total}: {summary(self.event)}", ""]
        hand = state.hand
        if hand is not None:
            out += ["  " + row for row in draw_layout(hand.layout)]
            if hand.layout.lead is not None:
                out.append(f"  open ends: {ends_text(hand.layout)}; count {hand.layout.count}")
            out.append("")
            for seat, tiles in enumerate(hand.hands):
                marker = "→" if seat == hand.turn else " "
                out.append(f" {marker} seat {seat}: {tiles_text(tiles)}")
            out.append(f"   boneyard: {len(hand.boneyard)} tiles")
        out.append(
            "  scores: "
            + " · ".join(f"{side_name(rules, s)} {p}" for s, p in enumerate(state.scores))
        )
        return out


def frames(before: GameState, events: Sequence[Event]) -> list[Frame]:
    state = before
    result: list[Frame] = []
    for event in events:
        if isinstance(event, GameStarted):
            continue
        state = evolve(state, event)
        result.append(Frame(len(result), event, state))
    return result


KEYS_FORWARD = {"n", " ", "\r", "\n", "\x1b[C", "l", "j"}
KEYS_BACK = {"p", "b", "\x1b[D", "h", "k"}
KEYS_FIRST = {"g", "\x1b[H"}
KEYS_LAST = {"G", "\x1b[F"}
KEYS_QUIT = {"q", "\x1b", "\x03"}


def step_through(
    all_frames: Sequence[Frame],
    read_key: Callable[[], str],
    write: Callable[[str], None],
    clear: Callable[[], None],
) -> None:
    """One move at a time: n/space/→ forward, p/b/← back, g first, G last, q quit."""
    if not all_frames:
        write("nothing to show")
        return
    position = 0
    while True:
        clear()
        for line in all_frames[position].lines(len(all_frames)):
            write(line)
        write("")
        write("[n]ext  [p]revious  [g] first  [G] last  [q]uit")
        key = read_key()
        if key in KEYS_QUIT:
            return
        if key in KEYS_FORWARD:
            position = min(position + 1, len(all_frames) - 1)
        elif key in KEYS_BACK:
            position = max(position - 1, 0)
        elif key in KEYS_FIRST:
            position = 0
        elif key in KEYS_LAST:
            position = len(all_frames) - 1
