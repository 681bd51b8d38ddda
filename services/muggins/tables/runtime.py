"""What every handler is given: the settings and the services built at start
(muggins.tables.service builds them; nothing here starts anything)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from muggins.infra.settings import Settings
from muggins.tables.admission import PayerKind, Quota, Work
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
    from muggins.tables.disputes import Disputes
    from muggins.tables.evidence_files import EvidenceFiles
    from muggins.tables.feeds import SpectatorFeeds
    from muggins.tables.follower import Followers
    from muggins.tables.hints import Hints
    from muggins.tables.presence import Presence
    from muggins.tables.scheduler import Scheduler
    from muggins.tables.seating import Seating


class OpenSession(Protocol):
    """A socket the service closes, with a reason, when it shuts down."""

    async def close(self, code: int, reason: str) -> None: ...


@dataclass(frozen=True)
class ServiceOptions:
    """What the table service is given besides its Settings (every deployed
    knob is a setting: muggins.infra.settings): what no deployment sets, and tests
    turn."""

    #: Commands one connection may send: a burst, then this many a second.
    commands_per_second: float = 10.0
    command_burst: float = 20.0
    #: How often this process looks for tables with a step due.
    poll_interval: float = 0.25
    #: Start the bots' and the spare-time workers before serving (tests that
    #: never think spare the two process starts).
    warm_workers: bool = True
    #: Randomness for hand seeds (the OS by default; tests may fix it).
    new_seed: Callable[[], str] = field(default=lambda: secrets.token_hex(32))
    #: Budgets that differ from muggins.tables.admission's (tests that ask
    #: more than a person would, from one address, of one kind of work).
    quotas: Mapping[tuple[Work, PayerKind], Quota] = field(default_factory=dict)


def timings(settings: Settings) -> Timings:
    """The pauses the settings give a table's next steps."""
    return Timings(bot_delay=settings.bot_delay, hand_pause=settings.hand_pause,
                   idle_close=settings.idle_close, absence_wait=settings.absence_wait)


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
    disputes: Disputes
    evidence_files: EvidenceFiles
    #: None in a spectators-only process.
    scheduler: Scheduler | None = None
    projectors: list[ProjectorRunner] = field(default_factory=list)
    #: Every open socket (closed with a reason at shutdown).
    sessions: set[OpenSession] = field(default_factory=set)

    @property
    def settings(self) -> Settings:
        return self.infra.settings

    def share_link(self, table_id: str) -> str:
        return f"{self.settings.site_url.rstrip('/')}/play/{table_id}"

    def watch_link(self, table_id: str) -> str:
        return f"{self.settings.site_url.rstrip('/')}/watch/{table_id}"

    def play_socket_link(self, table_id: str) -> str:
        base = self.settings.site_url.rstrip("/").replace("http", "ws", 1)
        return f"{base}/tables/{table_id}/play"
