"""What is due at each table, kept durably and done once by whichever
process is alive (a process manager).

Every append says when its table next has something to do (a bot's move,
the next deal, a turn clock running out, a new game's first event): the row
``due`` is written in the append's own transaction.  Each service process
polls for rows that are due, claims them with a lease, derives from the
streams what the step is (next_step), does it through the same commands a
player sends, and lets go.  So:

* a process that dies mid-game leaves its tables' rows behind: another
  process (or the same one restarted) finds them due and carries on;
* two processes cannot both do a step: the claim is exclusive, and should a
  lease run out mid-step, the append's expected version refuses the second;
* nobody calls the scheduler: it reads what is due and acts like a player.

The process that made an append also sets a local timer for steps due
within a few seconds, so that bots answer at once instead of at the next
poll; the row is still what counts.  When that step is the expert's move, it
thinks during its human-like pause (bot_delay) rather than after it: the
move is still made by the step, when due, which takes the decision thought
for exactly that version of the game (and thinks anew if there is none).

What fails: the database away (or a timeout) is waited out by every loop
here, with a growing pause (muggins.infra.retry).  A bug is loud, in two ways.
A table's step that fails with one is logged with its traceback and the
table is held back for BUG_HOLD before it is tried again, while every
other table goes on (per-item work).  A bug in one of the loops
themselves (the poll's, the absence sweep's or the life renewal's query)
ends the scheduler: its process reports it (muggins.infra.background) rather
than spin on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import datetime
import random
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast

import asyncpg
import structlog
from prometheus_client import Counter, Histogram

from muggins.bots.ladder import BUDGETED, SEARCHING, STRONGEST, BotLevel
from muggins.domain.streams import game_stream, table_stream
from muggins.eventstore.records import ConcurrencyError
from muggins.infra.retry import Backoff, Retry
from muggins.infra.sql import load_queries
from muggins.rules.commands import AnyCommand, CallMuggins, StartHand
from muggins.rules.errors import IllegalMove
from muggins.tables.bot_workers import BotWorkers
from muggins.tables.commands import Commands, Game
from muggins.tables.errors import TRANSIENT
from muggins.tables.next_step import Step, Timings, next_step, turn_began
from muggins.tables.presence import LIFE_SECONDS, Presence
from muggins.tables.seals import Seals
from muggins.tables.seating import Seating, Table
from muggins.tables.wakeups import DerivedStep, Wakeups

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
log = structlog.get_logger(__name__)

STEPS = Counter("muggins_scheduled_steps_total", "Steps the scheduler carried out", ["kind"])
BOT_MOVE_WAIT = Histogram("muggins_bot_move_wait_seconds",
                          "From a searching bot's move falling due to its decision in hand "
                          "(0 when it was thought during the pause)",
                          buckets=(0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5))
THOUGHT_AHEAD = Counter("muggins_bot_thought_ahead_total",
                        "Expert decisions thought during the bot's pause, by whether its move "
                        "used them (used) or the table had moved on (wasted)", ["outcome"])
FAILURES = Counter("muggins_scheduler_failures_total",
                   "Scheduler attempts that failed and will be retried", ["where"])

#: Steps due within this many seconds get a local timer as well as the row.
QUICK_HORIZON = 5.0
#: Steps one claim may carry out before it lets go (others get their turn).
STEPS_PER_CLAIM = 8
#: The pauses between retries of a failing loop or table step: they double
#: from the first up to the cap.
BACKOFF = Backoff(first=0.25, cap=5.0)
#: Seconds a table whose step failed with a bug (not an outage) waits
#: before it is tried again: long enough not to fill the log.
BUG_HOLD = 60.0
#: Decisions thought ahead that may wait for their step at once (one per
#: table; past it the oldest is dropped).
MAX_THOUGHT_AHEAD = 10_000
#: Tables whose last weighed versions _think_ahead keeps (the oldest forgotten first).
MAX_WEIGHED = 10_000


class Scheduler:
    def __init__(
        self,
        pool: asyncpg.Pool,
        seating: Seating,
        commands: Commands,
        presence: Presence,
        timings: Timings,
        *,
        wakeups: Wakeups | None = None,
        process_id: str,
        new_seed: Callable[[], str],
        grace_period: float = 30.0,
        bots: BotWorkers | None = None,
        takeover_bot: BotLevel = STRONGEST,
        seals: Seals,
        lease: float = 3.0,
        poll_interval: float = 0.25,
        batch: int = 64,
        concurrency: int = 32,
    ) -> None:
        self.pool = pool
        self.seating = seating
        self.commands = commands
        self.presence = presence
        self.timings = timings
        self.process_id = process_id
        self.new_seed = new_seed
        self.grace_period = grace_period
        #: Where bots think (the expert in worker processes).
        self.bots = bots or BotWorkers(1)
        #: The bot that plays a person's seat taken over.
        self.takeover_bot = takeover_bot
        #: Seals each ended hand, signed.
        self.seals = seals
        #: Seconds a claim holds: a step takes milliseconds, and the tables a
        #: killed process held wait this long before another takes them.  A
        #: step that outlives its lease (the database paused) may be tried by
        #: another process too: the append's expected version keeps it once.
        self.lease = lease
        self.poll_interval = poll_interval
        self.batch = batch
        self.concurrency = concurrency
        self._slots = asyncio.Semaphore(concurrency)
        #: Steps that failed in a row, per table: the pause before the next try grows.
        self._failures: dict[str, int] = {}
        #: Tables this process is advancing now, and any wake-up asked meanwhile.
        self._running: dict[str, float | None] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Per table, the expert's decision being thought during its pause:
        #: (game, version, seat, level) it is for, and the thinking.
        self._thought: dict[str, tuple[tuple[int, int, int, BotLevel],
                                       asyncio.Task[AnyCommand]]] = {}
        #: Per table, the versions (table, game number, game version) whose
        #: next step _think_ahead has weighed.
        self._weighed: dict[str, tuple[int, int, int]] = {}
        self._closing = False
        # Appends through seating and commands wake this process at once.
        (wakeups or seating.wakeups).listen(self.soon)

    # ------------------------------------------------------------ waking up

    def soon(self, key: str, seconds: float | None, derived: DerivedStep | None = None) -> None:
        """An append made ``key`` due in ``seconds``: try it then, here
        (``derived``: what is due and at which versions, when the append derived it)."""
        if self._closing or seconds is None or seconds > QUICK_HORIZON:
            return
        if seconds > 0:
            try:
                self._think_ahead(key, seconds, derived)
            except Exception as error:  # only a head start: never the append's failure
                FAILURES.labels("think-ahead").inc()
                log.error("could not think a bot's move ahead; it is thought when due",
                          table=key, error=repr(error), exc_info=error)
        if key in self._running:  # asked while advancing it: tried once it lets go
            earlier = self._running[key]
            self._running[key] = seconds if earlier is None else min(earlier, seconds)
            return
        loop = asyncio.get_running_loop()
        loop.call_later(max(0.0, seconds), self._spawn_claim, key)

    def _spawn_claim(self, key: str) -> None:
        if not self._closing and key not in self._running:
            self._spawn(self._claim_and_advance(key))

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        # A fresh context: a step must not log as the request that caused it.
        task = asyncio.get_running_loop().create_task(_logged(coroutine),
                                                      context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # A task cancelled before it began (the scheduler stopping) never ran
        # the step: closed, not left to warn that it was never awaited.
        task.add_done_callback(lambda _: coroutine.close())

    async def _claim_and_advance(self, key: str) -> None:
        try:
            claimed = await self.pool.fetchrow(QUERIES["claim_one"], self.process_id,
                                               self.lease, key, *self._streams(key))
        except TRANSIENT as error:  # the poll finds it later
            FAILURES.labels("claim").inc()
            log.warning("could not claim a due table; the poll will", table=key,
                        error=repr(error))
            return
        if claimed is not None:
            await self._advance_claimed(key, claimed, self._known_game(key))

    # ------------------------------------------------------------ thinking ahead

    def _think_ahead(self, table_id: str, seconds: float,
                     derived: DerivedStep | None = None) -> None:
        """If what is due in ``seconds`` is the expert's move, think it out
        now, from the table and game as this process just wrote them: the
        pause a bot waits as a person would is the workers' time to think,
        and the queue of decisions may take up to that pause before any is
        shortened (BotWorkers.budget)."""
        table = self.seating.known(table_id)
        if table is None or not table.state.game:
            return
        game = self.commands.known_game(table_id, table.state.game)
        if game is None or game.state is None:
            return
        # Each version of the table and its game is weighed once: a wake-up
        # again at the same versions (a step rescheduled, a row not yet due)
        # finds it weighed, thought or not.
        versions = (table.version, game.number, game.version)
        if self._weighed.get(table_id) == versions:
            return
        if derived is not None and derived[1] == versions:
            step: Step | None = derived[0]
        else:  # a seat's change, or another append since: derived here, from these versions
            step = next_step(table.state, game.state, 0.0, self.timings)
        if step is None or step.kind != "bot-move" or step.seat is None:
            self._weigh(table_id, versions)
            return
        level = self._level(table, step.seat)
        if level not in BUDGETED:  # the other levels decide in milliseconds
            self._weigh(table_id, versions)
            return
        key = (game.number, game.version, step.seat, level)
        thought = self._thought.get(table_id)
        if thought is not None and thought[0] == key:
            self._weigh(table_id, versions)
            return  # told twice of one version: it is being thought already
        self._forget_thought(table_id)
        task = asyncio.get_running_loop().create_task(
            self.bots.move(level, game.state, game.hand_events, _decision_seed(table_id, game),
                           table.state.bot_budget_ms, slack_ms=1000 * seconds),
            context=contextvars.Context())
        self._thought[table_id] = (key, task)
        self._weigh(table_id, versions)
        while len(self._thought) > MAX_THOUGHT_AHEAD:
            self._forget_thought(next(iter(self._thought)))

    def _weigh(self, table_id: str, versions: tuple[int, int, int]) -> None:
        """Note that these versions of the table and its game were weighed
        for a thought ahead: a wake-up again at them (a step rescheduled, a
        row not yet due) does nothing.  Noted only once weighed whole, so a
        failure midway is weighed again at the next wake-up."""
        self._weighed.pop(table_id, None)  # the newest last: the oldest go first
        self._weighed[table_id] = versions
        while len(self._weighed) > MAX_WEIGHED:
            del self._weighed[next(iter(self._weighed))]

    def _forget_thought(self, table_id: str) -> None:
        """Drop a thought its table moved on from.  Not cancelled: a worker
        cannot be stopped mid-thought, and the decision stays counted in
        the workers' queue (BotWorkers.waiting) until it is really done."""
        if self._thought.pop(table_id, None) is not None:
            THOUGHT_AHEAD.labels("wasted").inc()

    async def _decision(self, table: Table, game: Game, seat: int) -> AnyCommand:
        """The bot's move at ``seat``: the one thought during its pause when
        it was for this very version of the game, else thought now."""
        assert game.state is not None
        table_id = table.state.table_id
        level = self._level(table, seat)
        thought = self._thought.get(table_id)
        began = time.monotonic()
        if (thought is not None and thought[0] == (game.number, game.version, seat, level)
                and not thought[1].cancelled()):
            del self._thought[table_id]
            command = await thought[1]
            THOUGHT_AHEAD.labels("used").inc()
        else:
            self._forget_thought(table_id)
            command = await self.bots.move(level, game.state, game.hand_events,
                                           _decision_seed(table_id, game),
                                           table.state.bot_budget_ms)
        if level in SEARCHING:
            BOT_MOVE_WAIT.observe(time.monotonic() - began)
        return command

    def _level(self, table: Table, seat: int) -> BotLevel:
        return cast(BotLevel, table.state.seats[seat].bot_level or self.takeover_bot)

    # ------------------------------------------------------------ the loops

    async def run(self, stop: asyncio.Event) -> None:
        """Poll for due tables, sweep for absent players and renew this
        process's life until ``stop``.  The database away is waited out; a
        bug in one of these loops ends the scheduler (raised here)."""
        loops = [
            asyncio.create_task(self._forever(stop, "poll", self._poll, self.poll_interval)),
            asyncio.create_task(self._forever(stop, "absent", self._sweep_absent, 1.0)),
            asyncio.create_task(self._forever(stop, "renew", self.presence.renew,
                                              LIFE_SECONDS / 3)),
        ]
        stopped = asyncio.ensure_future(stop.wait())
        try:
            done, _ = await asyncio.wait([stopped, *loops], return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not stopped:
                    task.result()  # a loop ends only by a bug: raised here
        finally:
            self._closing = True
            stopped.cancel()
            for task in loops:
                task.cancel()
            for task in loops:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            ending: list[asyncio.Task[Any]] = [task for _, task in self._thought.values()]
            ending += self._tasks
            self._thought.clear()
            for pending in ending:
                pending.cancel()
            for pending in ending:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pending

    async def _forever(self, stop: asyncio.Event, name: str,
                       work: Callable[[], Coroutine[Any, Any, None]], every: float) -> None:
        retry = Retry(f"scheduler-{name}", TRANSIENT, backoff=BACKOFF, stop=stop,
                      message="scheduler loop failed; retrying")
        while not stop.is_set():
            try:
                await work()
            except Exception as error:
                FAILURES.labels(name).inc()
                await retry.failed(error)  # raises a bug
                continue
            retry.succeeded()
            await retry.pause(every * random.uniform(0.8, 1.2))

    async def _poll(self) -> None:
        room = min(self.batch, self.concurrency - len(self._running))
        if room <= 0:
            return
        keys = await self.pool.fetch(QUERIES["claim_due"], self.process_id, self.lease, room)
        for row in keys:
            if row["key"] in self._running:  # advancing here already: again once it lets go
                self._running[row["key"]] = 0.0
                continue
            self._spawn(self._advance_claimed(row["key"]))

    async def _sweep_absent(self) -> None:
        for table_id, seat in await self.presence.absent(self.grace_period):
            try:
                await self._take_over_absent(table_id, seat)
                await self.presence.forget_absence(table_id, seat)
            except Exception as error:  # this seat next sweep; the others now
                FAILURES.labels("absent").inc()
                if isinstance(error, TRANSIENT):
                    log.warning("could not hand an absent player's seat to a bot",
                                table=table_id, seat=seat, error=repr(error))
                else:  # a bug: loud, but the other seats still get their bot
                    log.error("handing an absent player's seat to a bot failed",
                              table=table_id, seat=seat, error=repr(error), exc_info=error)

    async def _take_over_absent(self, table_id: str, seat: int) -> None:
        table = await self.seating.table(table_id, fresh=True)
        if not table.state.game:
            return
        game = await self.commands.game(table_id, table.state.game)
        state = game.state
        if state is None:
            return
        # Over too: who is still seated decides a rematch, and with nobody
        # left the table closes (muggins.domain.table_life).
        await self.seating.take_over(
            table_id, seat, "absent", game=game.number, version=game.version,
            hand=state.hand.number if state.hand else state.hands_played)

    # ------------------------------------------------------------ one table

    async def _advance_claimed(self, key: str, claimed: asyncpg.Record | None = None,
                               claimed_game: int = 0) -> None:
        if self._slots.locked():  # the row will be old by the time a slot frees: read anew
            claimed = None
        async with self._slots:
            self._running[key] = None
            failed = False
            hold: float | None = None
            try:
                failed = not await self._advance(key, claimed, claimed_game)
            except TRANSIENT as error:  # the row stays due: tried again after a pause
                failed = True
                FAILURES.labels("step").inc()
                log.warning("a table's step failed; it will be retried", table=key,
                            error=repr(error))
            except Exception as error:  # a bug: loud, and the table waits BUG_HOLD
                failed, hold = True, BUG_HOLD
                FAILURES.labels("step").inc()
                log.error("a table's step failed with an error that is not an outage; "
                          f"it is tried again in {BUG_HOLD:.0f} s", table=key,
                          error=repr(error), exc_info=error)
            finally:
                again = self._running.pop(key, None)
                if failed:
                    await self._hold(key, hold)
                else:
                    self._failures.pop(key, None)
                    await self._release(key)
                    if again is not None:
                        self.soon(key, again)

    async def _hold(self, key: str, pause: float | None = None) -> None:
        """Keep a table whose step failed for a while (``pause``, else
        longer each time in a row), so that a step that cannot succeed does
        not spin."""
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        while len(self._failures) > 10_000:
            del self._failures[next(iter(self._failures))]
        if pause is None:
            pause = BACKOFF.ceiling(failures + 1)
        try:
            await self.pool.execute(QUERIES["hold_due"], key, self.process_id, pause)
        except TRANSIENT as error:  # the lease runs out by itself
            log.warning("could not hold a failing table back", table=key, error=repr(error))

    async def _release(self, key: str) -> None:
        try:
            await self.pool.execute(QUERIES["release_due"], key, self.process_id)
        except TRANSIENT as error:  # the lease runs out by itself
            log.warning("could not let a table go; its lease will run out", table=key,
                        error=repr(error))

    def _known_game(self, table_id: str) -> int:
        """The table's game as far as this process knows (0: none, or the
        table unknown here)."""
        known = self.seating.known(table_id)
        return known.state.game if known else 0

    def _streams(self, table_id: str, game: int | None = None) -> tuple[str, str]:
        """The table's stream and game ``game``'s (the known one by default)."""
        game = self._known_game(table_id) if game is None else game
        return table_stream(table_id), game_stream(table_id, game)

    async def _table_and_game(self, table_id: str, row: asyncpg.Record,
                              asked_game: int) -> tuple[Table, Game | None]:
        """The table and its game at the versions ``row`` found in the store
        (``row`` asked for game ``asked_game``'s): what this process holds at
        them already is not read again (a bot's step between two of its own
        moves reads nothing)."""
        table = await self.seating.table(table_id, at_least=row["table_version"])
        if not table.state.game:
            return table, None
        # The game's version is known only for the game the row asked about.
        asked = asked_game != 0 and asked_game == table.state.game
        game = await self.commands.game(table_id, table.state.game,
                                        at_least=row["game_version"] if asked else None)
        return table, game

    async def _advance(self, table_id: str, claimed: asyncpg.Record | None = None,
                       claimed_game: int = 0) -> bool:
        """Carry out what is due at the table now, step by step, until what
        is next is not due yet (an append wrote when it is).  False when a
        step was refused (nothing changed: it is tried again after a pause).
        ``claimed``: the row as the claim returned it, for game ``claimed_game``."""
        row, asked_game = claimed, claimed_game
        for steps in range(STEPS_PER_CLAIM + 1):
            if row is None:
                asked_game = self._known_game(table_id)
                row = await self.pool.fetchrow(QUERIES["due_now"], table_id,
                                               *self._streams(table_id, asked_game))
            if row is None:
                return True  # nothing is due (the game ended through another process)
            if not row["due"]:
                # The last append wrote when the next step is: a timer here
                # for it (tried once this claim lets go), and the poll anyway.
                self.soon(table_id, max(0.0, row["due_in"]))
                return True
            if steps == STEPS_PER_CLAIM:  # more is due now: again once this claim lets go
                self._running[table_id] = 0.0
                return True
            table, game = await self._table_and_game(table_id, row, asked_game)
            waited = 0.0
            if game is not None and game.last_event_at is not None:
                began = turn_began(game.last_event_at, _seat_changed_at(table, game))
                waited = (row["now"] - began).total_seconds()
            elif table.state.game == 0 and table.last_event_at is not None:
                waited = (row["now"] - table.last_event_at).total_seconds()
            step = next_step(table.state, game.state if game else None, waited, self.timings)
            if step is None:
                await self.pool.execute(QUERIES["forget_due"], table_id, row["generation"])
                return True
            if step.after > 0:
                await self.pool.execute(QUERIES["reschedule"], table_id, row["generation"],
                                        step.after)
                self.soon(table_id, step.after, None if game is None else
                          (step, (table.version, game.number, game.version)))
                return True
            if not await self._do(step, table, game):
                return False
            STEPS.labels(step.kind).inc()
            row = None
        return True  # not reached: the last round returns before a step

    async def _do(self, step: Step, table: Table, game: Game | None) -> bool:
        """Carry ``step`` out; False if it was refused (nothing changed)."""
        table_id = table.state.table_id
        if step.kind == "close" and step.reason is not None:
            try:
                await self.seating.close(table, step.reason)
            except ConcurrencyError:  # somebody acted meanwhile: derived anew
                return False
            return True
        if step.kind == "seal" and game is not None:
            try:
                await self.seals.seal(table, game)
            except ConcurrencyError:  # somebody acted meanwhile: derived anew
                return False
            return True
        if step.kind == "rematch":
            try:
                await self.seating.begin_rematch(table)
            except ConcurrencyError:  # somebody acted meanwhile: derived anew
                return False
            return True
        if step.kind == "start-game" or game is None or game.state is None:
            await self.commands.start_game(table)
            return True
        state = game.state
        try:
            if step.kind == "deal":
                await self.commands.submit(table_id, StartHand(seed=self.new_seed()),
                                           actor="system", expected_game=game.number,
                                           known_version=game.version)
            elif step.kind == "bot-call" and step.seat is not None:
                await self.commands.submit(table_id, CallMuggins(seat=step.seat),
                                           actor=f"bot:{step.seat}", expected_game=game.number,
                                           known_version=game.version, for_bot=step.seat)
            elif step.kind == "bot-move" and step.seat is not None:
                command = await self._decision(table, game, step.seat)
                await self.commands.submit(table_id, command,
                                           actor=f"bot:{step.seat}", expected_game=game.number,
                                           known_version=game.version, for_bot=step.seat)
            elif step.kind == "clock-out" and step.seat is not None and state.hand is not None:
                await self.seating.take_over(table_id, step.seat, "clock", game=game.number,
                                             version=game.version, hand=state.hand.number)
        except IllegalMove as error:
            # The table moved on since the step was derived (another process,
            # a player's move): derived anew on the next try.
            log.info("a scheduled step was refused", table=table_id, step=step.kind,
                     code=error.code, reason=str(error))
            return False
        return True


def _decision_seed(table_id: str, game: Game) -> str:
    """A bot's luck for one decision: the same wherever and whenever it is thought."""
    return f"{table_id}/{game.number}/{game.version}"


def _seat_changed_at(table: Table, game: Game) -> datetime.datetime | None:
    """When the seat on turn last changed hands between its player and a bot."""
    state = game.state
    if state is None or state.hand is None:
        return None
    return table.changed_at.get(state.hand.turn)


async def _logged(step: Coroutine[Any, Any, None]) -> None:
    """A step that failed in a way nobody foresaw is logged, never lost
    silently: the table stays due, so the poll tries it again."""
    try:
        await step
    except Exception as error:
        FAILURES.labels("unexpected").inc()
        log.error("a scheduled step failed unexpectedly; the poll will retry",
                  error=repr(error), exc_info=True)
