"""What every handler is given: the settings and the services built at start
(muggins.bootstrap builds them; nothing here starts anything)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from muggins.settings import Network, Settings
from muggins.tables.limits import SocketsPerAddress
from muggins.tables.next_step import Timings

if TYPE_CHECKING:
    from muggins.bootstrap import Infrastructure
    from muggins.projections.runner import ProjectorRunner
    from muggins.tables.admission import Admission
    from muggins.tables.analysis import Analyses
    from muggins.tables.bot_workers import BotWorkers
    from muggins.tables.chat import TableChat
    from muggins.tables.commands import Commands
    from muggins.tables.feeds import SpectatorFeeds
    from muggins.tables.follower import Followers
    from muggins.tables.hints import Hints
    from muggins.tables.presence import Presence
    from muggins.tables.scheduler import Scheduler
    from muggins.tables.seating import Seating


class OpenSession(Protocol):
    """A socket the service closes, with a reason, when it shuts down."""

    async def close(self, code: int, reason: str) -> None: ...


@dataclass
class ServiceOptions:
    #: Where people reach the service, for share links.
    base_url: str = "http://127.0.0.1:8000"
    #: A bot's human-like pause before it moves (0 in tests).
    bot_delay: float = 0.8
    #: The pause after a hand ends before the next is dealt.
    hand_pause: float = 2.0
    #: Worker processes the expert thinks in (0: one fewer than the cores, at least one).
    bot_workers: int = 0
    #: The expert's thinking time per decision, unless a table sets its own.
    expert_budget_ms: int = 200
    #: The bot that plays a person's seat when their clock runs out or they leave.
    takeover_bot: Literal["random", "greedy", "expert"] = "expert"
    #: How long a disconnected player has to come back before a bot takes over.
    grace_period: float = 30.0
    #: Run the projectors in this process (the embedded, single-process set-up).
    projectors: bool = True
    #: "all": players, spectators and everything else.  "spectators": only what
    #: spectators and the lobby read (no commands, no bots, no projectors), so
    #: that a crowd of spectators runs beside the players' process, not in it.
    role: Literal["all", "spectators"] = "all"
    #: Commands one connection may send: a burst, then this many a second.
    commands_per_second: float = 10.0
    command_burst: float = 20.0
    #: How often this process looks for tables with a step due.
    poll_interval: float = 0.25
    #: Tables one client address may create a minute (429 beyond).
    tables_per_minute: int = 30
    #: Player secrets one client address may ask to rotate a minute (429 beyond).
    secret_rotations_per_minute: int = 10
    #: WebSockets and event streams one client address may hold open at once.
    sockets_per_address: int = 64
    #: Seconds an address gets no new socket after one of its sockets was
    #: closed for too many refused messages.
    penalty_seconds: float = 10.0
    #: A new table's turn clock when its creator names none.
    turn_clock_seconds: int = 30
    #: The load balancers whose X-Forwarded-For is believed (none by default).
    trusted_proxies: tuple[Network, ...] = ()
    #: Randomness for hand seeds (the OS by default; tests may fix it).
    new_seed: Callable[[], str] = field(default=lambda: secrets.token_hex(32))

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> ServiceOptions:
        """The options the settings give, with ``overrides`` (command-line flags) on top."""
        # Listening on every interface says nothing of how people reach it.
        host = ("localhost" if settings.listen_host in ("0.0.0.0", "::", "")
                else settings.listen_host)
        base_url = settings.public_url or f"http://{host}:{settings.listen_port}"
        values: dict[str, Any] = dict(
            base_url=base_url, bot_delay=settings.bot_delay, hand_pause=settings.hand_pause,
            grace_period=settings.grace_period, projectors=settings.projectors_in_process,
            role=settings.role, tables_per_minute=settings.tables_per_minute,
            sockets_per_address=settings.sockets_per_address,
            penalty_seconds=settings.penalty_seconds,
            turn_clock_seconds=settings.turn_clock_seconds, bot_workers=settings.bot_workers,
            expert_budget_ms=settings.expert_budget_ms, takeover_bot=settings.takeover_bot,
            trusted_proxies=settings.trusted_proxy_networks)
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**values)

    @property
    def timings(self) -> Timings:
        return Timings(bot_delay=self.bot_delay, hand_pause=self.hand_pause)


@dataclass
class Runtime:
    """The table service's objects, built by muggins.tables.service."""

    infra: Infrastructure
    options: ServiceOptions
    seating: Seating
    commands: Commands
    presence: Presence
    #: One follower per table in this process, shared by its seats and its feed.
    followers: Followers
    feeds: SpectatorFeeds
    #: Where bots think (the expert in worker processes).
    bots: BotWorkers
    chat: TableChat
    sockets: SocketsPerAddress
    #: Who may start costly work, and who pays (muggins.tables.admission).
    admission: Admission
    hints: Hints
    analyses: Analyses
    #: None in a spectators-only process.
    scheduler: Scheduler | None = None
    projectors: list[ProjectorRunner] = field(default_factory=list)
    #: Every open socket (closed with a reason at shutdown).
    sessions: set[OpenSession] = field(default_factory=set)

    def share_link(self, table_id: str) -> str:
        return f"{self.options.base_url.rstrip('/')}/play/{table_id}"

    def watch_link(self, table_id: str) -> str:
        return f"{self.options.base_url.rstrip('/')}/watch/{table_id}"

    def play_socket_link(self, table_id: str) -> str:
        base = self.options.base_url.rstrip("/").replace("http", "ws", 1)
        return f"{base}/tables/{table_id}/play"
