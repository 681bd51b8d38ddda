"""The table service's objects, built in one place on the infrastructure.

``table_service(infra, options)`` builds seating, commands, the scheduler,
presence, followers, spectator feeds, the chat, the bot workers, the
admission policy with the hints and analyses it governs, and the
projectors, each given its collaborators when it is made; starts their
background tasks, and stops them when the block ends.  muggins.bootstrap
builds only the infrastructure under it (servers, pool, bus, relay); the
app (muggins.tables.app) asks for both.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog

from muggins.bootstrap import Infrastructure
from muggins.eventstore.store import TRANSIENT
from muggins.evidence.checkpoints import Checkpointer, register_key
from muggins.evidence.signing import SiteKey
from muggins.infra.settings import Settings
from muggins.projections.read_models import PROJECTIONS
from muggins.projections.runner import ProjectorRunner
from muggins.tables.admission import Admission, quotas_with
from muggins.tables.analysis import Analyses
from muggins.tables.bot_workers import BotWorkers, SpareTimeWorker
from muggins.tables.chat import TableChat
from muggins.tables.commands import Commands
from muggins.tables.disputes import Disputes
from muggins.tables.evidence_files import EvidenceFiles
from muggins.tables.feeds import SpectatorFeeds
from muggins.tables.follower import Followers
from muggins.tables.hints import Hints
from muggins.tables.limits import SocketsPerAddress
from muggins.tables.metrics import BroadcastClock
from muggins.tables.presence import Presence
from muggins.tables.runtime import Runtime, ServiceOptions, timings
from muggins.tables.scheduler import Scheduler
from muggins.tables.seals import Seals
from muggins.tables.seat_keys import PostgresSeatKeys
from muggins.tables.seating import Seating
from muggins.tables.wakeups import Wakeups

log = structlog.get_logger(__name__)


def site_key(settings: Settings) -> SiteKey:
    """The key this process signs with: its file, or a new one made there
    (said in the log: every replica should be given the same file)."""
    path = settings.signing_key_path
    existed = path.exists()
    key = SiteKey.load_or_create(path)
    if not existed:
        log.warning("made a new signing key: give every service replica this same file "
                    "(the setting signing_key_file)", path=str(path), key_id=key.key_id)
    return key


async def listed(infra: Infrastructure, key: SiteKey) -> None:
    """The key among the site's public keys before it signs anything (the
    checkpointer lists it again, should the database be away now)."""
    try:
        await register_key(infra.pool, key)
    except TRANSIENT as error:
        log.warning("could not list the signing key yet; the checkpointer will",
                    error=repr(error))


@asynccontextmanager
async def table_service(infra: Infrastructure, options: ServiceOptions | None = None
                        ) -> AsyncIterator[Runtime]:
    """The table service on ``infra`` (its settings, and ``options``): its
    objects built, its background tasks (scheduler, projectors) running
    until the block ends, each in ``infra.tasks`` (a bug that ends one is
    reported there)."""
    options = options or ServiceOptions()
    settings = infra.settings
    process_id = uuid.uuid4().hex
    players = settings.role == "all"
    wakeups = Wakeups()
    pauses = timings(settings)  # one set of pauses for every part that derives a step
    seating = Seating(PostgresSeatKeys(infra.pool), infra.store, wakeups, pauses)
    broadcast_clock = BroadcastClock()
    commands = Commands(infra.store, seating, pauses, broadcast_clock, wakeups)
    presence = Presence(infra.pool, process_id)
    followers = Followers(infra.bus, infra.store, broadcast_clock)
    feeds = SpectatorFeeds(infra.bus, followers, pauses)
    bots = BotWorkers(settings.bot_workers or max(1, (os.cpu_count() or 2) - 1),
                      settings.expert_budget_ms)
    admission = Admission({**quotas_with(settings.sockets_per_minute), **options.quotas})
    thinker = SpareTimeWorker(settings.expert_budget_ms)
    # Only the processes that serve players sign (seals, checkpoints).
    key = site_key(settings) if players else None
    if key is not None:
        await listed(infra, key)
    scheduler = Scheduler(
        infra.pool, seating, commands, presence, pauses, wakeups=wakeups,
        process_id=process_id, new_seed=options.new_seed, grace_period=settings.grace_period,
        bots=bots, takeover_bot=settings.takeover_bot, poll_interval=options.poll_interval,
        seals=Seals(infra.store, seating, key),
    ) if key is not None else None
    checkpointer = Checkpointer(infra.pool, key, settings.checkpoint_interval,
                                infra.bus.publish) if key is not None else None
    projectors = (
        [ProjectorRunner(infra.pool, infra.store, make()) for make in PROJECTIONS.values()]
        if settings.projectors_in_process and players else []
    )
    runtime = Runtime(infra, options, seating, commands, presence, followers, feeds, bots,
                      TableChat(infra.pool, infra.store, admission),
                      SocketsPerAddress(settings.sockets_per_address, settings.penalty_seconds),
                      admission, Hints(infra.pool, admission, thinker),
                      Analyses(infra.store, admission, thinker), Disputes(seating, commands),
                      EvidenceFiles(infra.store, seating, admission),
                      scheduler, projectors)
    if options.warm_workers and players:
        # Both at once, before this process is ready: their starts are
        # bursts of CPU that would otherwise land amid the first tables' moves.
        await asyncio.gather(bots.start(), thinker.start())
    stop = asyncio.Event()
    tasks = [infra.tasks.start(f"projector-{runner.name}",
                               runner.follow(stop, infra.bus, old_consumers=infra.bus.js))
             for runner in projectors]
    if scheduler is not None:
        tasks.append(infra.tasks.start("scheduler", scheduler.run(stop)))
    if checkpointer is not None:
        tasks.append(infra.tasks.start("checkpointer", checkpointer.run(stop)))
    try:
        yield runtime
    finally:
        stop.set()
        for session in list(runtime.sessions):
            with contextlib.suppress(Exception):
                await session.close(1001, "the server is shutting down")
        for task in tasks:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):
                    await task
        bots.close()
        thinker.close()
        await feeds.close()
        await followers.close()
        if players:
            await presence.close()
