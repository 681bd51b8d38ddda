"""What a process holds of each stream it reads (a table, a game): the
latest version it has seen, within a bound, the least recently kept going
first past it.

One rule for every such cache: a version is never replaced by an older one.
A read that began before an append (another task of the same process) may
end after it, and putting its older version back answered reads with a table
a game behind (CI saw a rematch's table read as game 1)."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class Versioned(Protocol):
    @property
    def version(self) -> int: ...


V = TypeVar("V", bound=Versioned)


class LatestVersions(Generic[V]):
    """Each stream's latest version seen, at most ``bound`` streams."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._held: dict[str, V] = {}

    def get(self, stream: str) -> V | None:
        return self._held.get(stream)

    def keep(self, stream: str, value: V) -> V:
        """Keep ``value`` unless a later version is held; the one kept."""
        held = self._held.pop(stream, None)
        if held is not None and held.version > value.version:
            value = held
        self._held[stream] = value
        while len(self._held) > self.bound:
            del self._held[next(iter(self._held))]
        return value
