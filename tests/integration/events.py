"""Events the store's and the bus's tests append: ``MOVE``, one play that scores."""

from __future__ import annotations

from muggins.rules.events import PointsScored, TilePlayed
from muggins.rules.tiles import Tile

#: A play of the 4-1 that makes the count 10, and its points.
MOVE = [TilePlayed(1, 0, Tile(1, 4), 0, 10, None), PointsScored(1, 0, 0, 10, "count")]
