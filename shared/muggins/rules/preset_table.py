"""The presets as a Markdown table (docs/presets.md embeds it; a test keeps
the two equal)."""

from __future__ import annotations

from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.ruleset import Ruleset

COLUMNS = (
    "preset",
    "seats",
    "tiles each",
    "spinner",
    "scoring",
    "rounding",
    "hand award",
    "blocked award",
    "target",
    "target check",
    "first leader",
    "next leader",
    "leader without winner",
    "drawing",
    "muggins rule",
)


def _per_seating(name: str, value_of: object) -> str:
    values: dict[str, list[str]] = {}
    for seats, partners in seatings(name):
        rules = preset(name, seats, partners)
        value = str(value_of(rules))  # type: ignore[operator]
        label = f"{seats}p" if partners else str(seats)
        values.setdefault(value, []).append(label)
    if len(values) == 1:
        return next(iter(values))
    return " / ".join(f"{v} ({', '.join(labels)})" for v, labels in values.items())


def _target(rules: Ruleset) -> str:
    return "one hand" if rules.target is None else str(rules.target)


def preset_table() -> str:
    """Every preset, one row, every knob a column; "4p" means four in partnerships."""
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for name in PRESETS:
        seats = ", ".join(f"{s} in partnerships" if p else str(s) for s, p in seatings(name))
        cells = [
            f"`{name}`",
            seats,
            _per_seating(name, lambda r: r.tiles_per_seat),
            _per_seating(name, lambda r: r.spinner),
            _per_seating(name, lambda r: r.scoring),
            _per_seating(name, lambda r: r.rounding),
            _per_seating(name, lambda r: r.hand_award),
            _per_seating(name, lambda r: r.blocked_award),
            _per_seating(name, _target),
            _per_seating(name, lambda r: r.target_check),
            _per_seating(name, lambda r: r.first_leader),
            _per_seating(name, lambda r: r.next_leader),
            _per_seating(name, lambda r: r.leader_without_winner),
            _per_seating(name, lambda r: r.drawing),
            _per_seating(name, lambda r: "on" if r.muggins_rule else "off"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
