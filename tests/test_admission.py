"""The admission policy alone (no servers): budgets, who is refused, and
work done once for every asker of the same key."""

from __future__ import annotations

import asyncio

import pytest

from muggins.tables.admission import (
    COSTLY_WORK,
    Admission,
    OnceAtATime,
    Payer,
    Quota,
    Throttled,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_payer_gets_its_burst_then_its_rate() -> None:
    clock = Clock()
    admission = Admission({("hint", "seat"): Quota(burst=3, per_minute=6)}, clock)
    seat = [Payer("seat", "t/0")]
    for _ in range(3):
        admission.admit("hint", seat)
    with pytest.raises(Throttled) as refused:
        admission.admit("hint", seat)
    assert refused.value.code == "hint-rate-limited" and refused.value.status == 429
    assert refused.value.payer == "seat" and refused.value.retry_after == pytest.approx(10.0)
    assert refused.value.seconds == 10 and "try again in 10 s" in str(refused.value)
    clock.now += 10.0  # six a minute: one more after ten seconds
    admission.admit("hint", seat)
    with pytest.raises(Throttled):
        admission.admit("hint", seat)


def test_one_payer_out_of_budget_refuses_the_work_and_charges_nobody() -> None:
    clock = Clock()
    admission = Admission({("hint", "seat"): Quota(burst=5, per_minute=1),
                           ("hint", "address"): Quota(burst=1, per_minute=1)}, clock)
    admission.admit("hint", [Payer("seat", "a/0"), Payer("address", "1.2.3.4")])
    before = COSTLY_WORK.labels("hint", "refused-address")._value.get()
    with pytest.raises(Throttled) as refused:
        admission.admit("hint", [Payer("seat", "b/0"), Payer("address", "1.2.3.4")])
    assert refused.value.payer == "address" and "your address" in str(refused.value)
    assert COSTLY_WORK.labels("hint", "refused-address")._value.get() == before + 1
    # The seat that was not at fault was not charged: its whole burst is left.
    for _ in range(5):
        admission.admit("hint", [Payer("seat", "b/0")])


def test_a_flooder_pays_alone() -> None:
    """Many requests from one address cost the other addresses nothing."""
    admission = Admission({("analysis", "address"): Quota(burst=4, per_minute=6)}, Clock())
    refused = 0
    for _ in range(3000):
        try:
            admission.admit("analysis", [Payer("address", "flooder")])
        except Throttled:
            refused += 1
    assert refused == 2996
    admission.admit("analysis", [Payer("address", "someone else")])


def test_the_budgets_kept_are_bounded() -> None:
    admission = Admission({("hint", "address"): Quota(burst=1, per_minute=1)}, Clock(),
                          max_budgets=100)
    for number in range(1000):
        admission.admit("hint", [Payer("address", f"10.0.{number // 256}.{number % 256}")])
    assert len(admission._budgets) == 100


def test_work_without_a_quota_is_not_limited() -> None:
    admission = Admission({}, Clock())
    for _ in range(100):
        admission.admit("chat-seat", [Payer("socket", "s")])


async def test_every_asker_of_the_same_key_gets_the_first_answer() -> None:
    working: OnceAtATime[str, int] = OnceAtATime()
    started = 0
    release = asyncio.Event()

    async def work() -> int:
        nonlocal started
        started += 1
        await release.wait()
        return 42

    askers = [asyncio.create_task(working.answer("k", work)) for _ in range(10)]
    await asyncio.sleep(0)
    release.set()
    assert await asyncio.gather(*askers) == [42] * 10
    assert started == 1
    # Once answered, a new ask works again (the kept answer is the caller's to store).
    await asyncio.sleep(0)
    assert await working.answer("k", work) == 42 and started == 2


async def test_a_failure_reaches_every_asker_and_is_not_kept() -> None:
    working: OnceAtATime[str, int] = OnceAtATime()
    release = asyncio.Event()

    async def failing() -> int:
        await release.wait()
        raise RuntimeError("no")

    askers = [asyncio.create_task(working.answer("k", failing)) for _ in range(3)]
    await asyncio.sleep(0)
    release.set()
    results = await asyncio.gather(*askers, return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)

    async def fine() -> int:
        return 1

    assert await working.answer("k", fine) == 1


async def test_the_work_goes_on_for_the_others_when_the_first_asker_goes_away() -> None:
    working: OnceAtATime[str, int] = OnceAtATime()
    release = asyncio.Event()
    started = 0

    async def slow() -> int:
        nonlocal started
        started += 1
        await release.wait()
        return 7

    first = asyncio.create_task(working.answer("k", slow))
    await asyncio.sleep(0)
    second = asyncio.create_task(working.answer("k", slow))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.sleep(0)
    release.set()
    assert await second == 7 and started == 1


def test_a_spectators_name_may_not_read_as_a_seated_players() -> None:
    from muggins.domain.chat import reads_as

    seated = ["Alice", "Bruno"]
    for lookalike in ("alice", " ALICE ", "Ａｌｉｃｅ", "A\u034flice", "Al\u3164ice",
                      "A.l.i.c.e", "Zoe (Seat 1)", "Zoe (asiento 2)", "!!!"):
        assert reads_as(lookalike, seated), lookalike
    for own in ("Alicia", "Zoe", "Bruna", "Seat"):
        assert not reads_as(own, seated), own
