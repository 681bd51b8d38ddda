"""What a hostile client may make the server do, bounded.

HTTP requests are limited by litestar's own rate-limit middleware (table
creation per address: app.py).  Inside a WebSocket, where no middleware
reaches, each connection has a TokenBucket for what it may ask (commands, a
spectator's resends) and Strikes for what it got wrong: past the limit the
socket is closed with the policy code 1008.  Sockets per address are
counted here too, per process.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Literal

from muggins.tables.metrics import OPEN_SOCKETS

#: What a socket carries: a seat's play, a spectator's WebSocket or event stream.
SocketKind = Literal["play", "watch", "events"]

#: WebSocket close code for a client that broke the rules of the protocol.
POLICY_VIOLATION = 1008


class TokenBucket:
    """``burst`` at once, then ``per_second``."""

    def __init__(self, per_second: float, burst: float) -> None:
        self.per_second = per_second
        self.burst = burst
        self.tokens = burst
        self.refilled = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.refilled) * self.per_second)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Strikes:
    """Bad messages a connection sent: past ``limit`` within ``window``
    seconds it is closed (each one got an error reply until then)."""

    def __init__(self, limit: int = 20, window: float = 60.0) -> None:
        self.limit = limit
        self.window = window
        self._times: list[float] = []

    def add(self) -> bool:
        """Count one; True when that was one too many."""
        now = time.monotonic()
        self._times = [t for t in self._times if now - t < self.window]
        self._times.append(now)
        return len(self._times) > self.limit


class SocketsPerAddress:
    """Open WebSockets and event streams per client address, in this process;
    and addresses sent away for a while after a socket of theirs was closed
    for breaking the protocol (a client that reconnects to flood again)."""

    def __init__(self, limit: int, penalty: float = 0.0) -> None:
        self.limit = limit
        #: Seconds an address is refused new sockets after a policy close.
        self.penalty = penalty
        self._open: Counter[str] = Counter()
        self._refused_until: dict[str, float] = {}

    def take(self, address: str, kind: SocketKind) -> bool:
        """One more socket of ``kind`` from ``address``; False (and nothing
        taken) past the limit or while the address is sent away."""
        until = self._refused_until.get(address)
        if until is not None:
            if time.monotonic() < until:
                return False
            del self._refused_until[address]
        if self._open[address] >= self.limit:
            return False
        self._open[address] += 1
        OPEN_SOCKETS.labels(kind).inc()
        return True

    def send_away(self, address: str) -> None:
        """``address`` broke the protocol: no new socket for ``penalty`` seconds."""
        if self.penalty <= 0:
            return
        if len(self._refused_until) > 100_000:  # forget the oldest: memory stays bounded
            now = time.monotonic()
            self._refused_until = {a: t for a, t in self._refused_until.items() if t > now}
        self._refused_until[address] = time.monotonic() + self.penalty

    def give_back(self, address: str, kind: SocketKind) -> None:
        OPEN_SOCKETS.labels(kind).dec()
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def lease(self, address: str, kind: SocketKind) -> SocketLease | None:
        """A slot for one more socket from ``address`` (None: it has too many),
        given back exactly once by ``release``."""
        if not self.take(address, kind):
            return None
        return SocketLease(self, address, kind)



class SocketLease:
    """One socket's place in its address's count, released once whoever
    asks (muggins.tables.watch.EventStream releases an event stream's when
    its body is dropped unstarted, as well as when it ends)."""

    def __init__(self, sockets: SocketsPerAddress, address: str, kind: SocketKind) -> None:
        self._sockets = sockets
        self.address = address
        self.kind: SocketKind = kind
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._sockets.give_back(self.address, self.kind)

