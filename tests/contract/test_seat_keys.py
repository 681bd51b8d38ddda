"""The seat keys' contract: PostgreSQL's tables and the in-memory twin keep
players' secrets and seats' tokens alike (muggins.tables.seat_keys)."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

import pytest

from muggins.tables.seat_keys import MemorySeatKeys, PostgresSeatKeys, SeatKey

IMPLEMENTATIONS = [
    pytest.param("memory"),
    pytest.param("postgres", marks=pytest.mark.servers),
]


@pytest.fixture(params=IMPLEMENTATIONS)
def keys(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        return MemorySeatKeys()
    return PostgresSeatKeys(request.getfixturevalue("store").pool)  # the service's role


def hashed(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


async def test_a_grant_keeps_the_token_and_a_new_players_secret(keys: Any) -> None:
    ana = str(uuid.uuid4())
    await keys.grant("Tab1", hashed("t1"), 0, ana, hashed("secret"))
    assert await keys.seat_key("Tab1", hashed("t1")) == SeatKey(0, ana)
    assert await keys.seat_key("Tab2", hashed("t1")) is None  # another table
    assert await keys.seat_key("Tab1", hashed("t2")) is None
    assert await keys.secret_hash(ana) == hashed("secret")
    # A known player sits again: a token, no new secret.
    await keys.grant("Tab2", hashed("t2"), 1, ana, None)
    assert await keys.seat_key("Tab2", hashed("t2")) == SeatKey(1, ana)
    assert await keys.secret_hash(str(uuid.uuid4())) is None


async def test_a_second_grant_of_one_token_or_player_keeps_nothing(keys: Any) -> None:
    ana, bea = str(uuid.uuid4()), str(uuid.uuid4())
    await keys.grant("Tab1", hashed("t1"), 0, ana, hashed("a"))
    with pytest.raises(ValueError):
        await keys.grant("Tab1", hashed("t1"), 1, bea, hashed("b"))
    assert await keys.secret_hash(bea) is None  # both or neither
    with pytest.raises(ValueError):
        await keys.grant("Tab1", hashed("t9"), 1, ana, hashed("again"))
    assert await keys.seat_key("Tab1", hashed("t9")) is None
    assert await keys.secret_hash(ana) == hashed("a")


async def test_a_withdrawn_grant_is_gone(keys: Any) -> None:
    ana, bea = str(uuid.uuid4()), str(uuid.uuid4())
    await keys.grant("Tab1", hashed("t1"), 0, ana, hashed("a"))
    await keys.grant("Tab1", hashed("t2"), 1, bea, hashed("b"))
    await keys.withdraw("Tab1", hashed("t2"), bea)
    await keys.withdraw("Tab1", hashed("never"), None)  # nothing to take back: nothing happens
    assert await keys.seat_key("Tab1", hashed("t2")) is None
    assert await keys.secret_hash(bea) is None
    assert await keys.seat_key("Tab1", hashed("t1")) == SeatKey(0, ana)


async def test_of_two_rotations_from_one_secret_one_wins(keys: Any) -> None:
    ana = str(uuid.uuid4())
    await keys.grant("Tab1", hashed("t1"), 0, ana, hashed("old"))
    assert not await keys.rotate(ana, hashed("wrong"), hashed("new"))
    outcomes = await asyncio.gather(keys.rotate(ana, hashed("old"), hashed("new-1")),
                                    keys.rotate(ana, hashed("old"), hashed("new-2")))
    assert sorted(outcomes) == [False, True]
    assert await keys.secret_hash(ana) == (hashed("new-1") if outcomes[0] else hashed("new-2"))
    assert not await keys.rotate(str(uuid.uuid4()), hashed("old"), hashed("x"))
