"""Why a command was refused.  Each refusal has its own type and a message a
player can read; a refused command never changes the state."""

from __future__ import annotations


class IllegalMove(ValueError):
    """A command the rules do not allow right now.  ``code`` is stable for clients."""

    code = "illegal-move"


class UnknownTile(IllegalMove):
    code = "unknown-tile"


class TileNotInHand(IllegalMove):
    code = "tile-not-in-hand"


class TileDoesNotMatch(IllegalMove):
    code = "tile-does-not-match"


class NoSuchEnd(IllegalMove):
    code = "no-such-end"


class NotYourTurn(IllegalMove):
    code = "not-your-turn"


class DrawRequired(IllegalMove):
    code = "draw-required"


class MustPlay(IllegalMove):
    code = "must-play"


class MustLeadTile(IllegalMove):
    code = "must-lead-tile"


class NothingToCall(IllegalMove):
    code = "nothing-to-call"


class HandNotInProgress(IllegalMove):
    code = "hand-not-in-progress"


class HandInProgress(IllegalMove):
    code = "hand-in-progress"


class GameOver(IllegalMove):
    code = "game-over"


class InvalidSeed(IllegalMove):
    code = "invalid-seed"


class InvalidRuleset(ValueError):
    """A ruleset whose knobs contradict each other (e.g. partnerships with 3 seats)."""
