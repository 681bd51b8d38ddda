"""Wake-ups: an append that makes a step due soon tells this process at once.

Seating and Commands are given one ``Wakeups`` when they are built and call
``due(key, seconds)`` after an append that wrote a ``due`` row; the
scheduler, built after them, is the one listener.  The due row in the
database is what counts (any process finds it); this is only the quick path
that lets a bot answer now instead of at the next poll.  Commands also hand
over the step they derived for that row, with the versions it was derived
at, so that the scheduler thinks a bot's move ahead without deriving it again.
"""

from __future__ import annotations

from collections.abc import Callable

from muggins.tables.next_step import Step

#: A step as its append derived it, with the versions it was derived at:
#: (table version, game number, game version).  Another append may come
#: between the derivation and the wake-up (a seat taken over): a listener
#: uses the step only at those very versions.
DerivedStep = tuple[Step, tuple[int, int, int]]
#: (key, seconds, the step when the caller derived it: None leaves it to the listener)
Listener = Callable[[str, float | None, DerivedStep | None], None]


class Wakeups:
    def __init__(self) -> None:
        self._listener: Listener | None = None

    def listen(self, listener: Listener) -> None:
        """``listener(key, seconds, derived)`` is told of every due step from now
        on (one listener)."""
        if self._listener is not None:
            raise RuntimeError("the wake-ups already have their listener")
        self._listener = listener

    def due(self, key: str, seconds: float | None, derived: DerivedStep | None = None) -> None:
        """An append made ``key`` due in ``seconds`` (None: not by the clock);
        ``derived``, what is due and at which versions, when the append derived it."""
        if self._listener is not None:
            self._listener(key, seconds, derived)
