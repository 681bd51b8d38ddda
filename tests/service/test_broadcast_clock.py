"""The command-to-broadcast clock times every command of a burst, and
forgets what nobody here broadcasts, with its memory bounded."""

from __future__ import annotations

from muggins.tables.metrics import COMMAND_TO_BROADCAST, MAX_PENDING, BroadcastClock


def _observed() -> float:
    for metric in COMMAND_TO_BROADCAST.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count"):
                return sample.value
    return 0.0


def test_a_burst_settled_once_times_every_command_in_it() -> None:
    clock = BroadcastClock()
    before = _observed()
    for version in (3, 5, 8):
        clock.started("t1-g1", version, 0.0)
    clock.broadcast("t1-g1", 5)
    assert _observed() - before == 2
    clock.broadcast("t1-g1", 9)
    assert _observed() - before == 3
    clock.broadcast("t1-g1", 10)
    assert _observed() - before == 3


def test_unbroadcast_appends_are_forgotten_within_the_bound() -> None:
    clock = BroadcastClock()
    for number in range(MAX_PENDING + 500):
        clock.started(f"t{number}-g1", 1, 0.0)
    assert clock._pending == MAX_PENDING and len(clock._started) == MAX_PENDING
    before = _observed()
    clock.broadcast("t0-g1", 1)  # among the oldest: forgotten
    clock.broadcast(f"t{MAX_PENDING + 499}-g1", 1)
    assert _observed() - before == 1


def test_appends_made_before_anyone_here_followed_the_table_are_not_timed() -> None:
    """A table's first deal is made as its last seat is taken, before its
    players' sockets (and so its follower) are there: it went out to nobody.
    Timed until the first view after the follower began, it counted a whole
    move's wait (seen: 5-25% of bench_service's observations over 100 ms
    while its clients' p99 was 10-50 ms)."""
    clock = BroadcastClock()
    before = _observed()
    for version in (6, 7):
        clock.started("t1-g1", version, 0.0)
    clock.forget("t1-g1", 6)  # the follower starts from version 6
    assert _observed() - before == 0
    clock.broadcast("t1-g1", 7)
    assert _observed() - before == 1
    assert clock._pending == 0 and not clock._started


def test_a_view_that_went_out_before_its_append_returned_times_the_command_at_once() -> None:
    """The relay and the follower are woken on other connections than the
    append's: the view may go out before the command hears it committed.
    Left waiting, it was timed at the next move's view (0.8 s later at a
    bot's table)."""
    clock = BroadcastClock()
    before = _observed()
    clock.broadcast("t1-g1", 9)  # the view at 9 is out...
    clock.started("t1-g1", 9, 0.0)  # ...before the command that made 9 returned
    assert _observed() - before == 1
    assert clock._pending == 0 and not clock._started
    clock.forget("t2-g1", 6)  # a follower began at 6: what made 6 went out to nobody
    clock.started("t2-g1", 6, 0.0)
    assert _observed() - before == 1
    assert clock._pending == 0
