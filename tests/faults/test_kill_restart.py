"""SIGKILL the service mid-game and start it again: every game must still end.

What must happen next at a table (a bot's move, the next deal, a turn
clock) has to survive the process: 30 tables in play, the service killed
without warning, a new process on the same port; the scripted people
reconnect with ``since``.  Every game must end, verify, and hold every
move the people saw confirmed exactly once.
"""

from __future__ import annotations

import pytest

from muggins.eventstore.store import EventStore
from tests.support.processes import Launcher
from tests.support.scripted_players import Scenario, play_through

#: About 65 moves and 4 hands a game to 150: long enough to be mid-game at the
#: kill; after the restart every game over within 60 s, no table silent 20 s.
SCENARIO = Scenario(human_tables=10, bot_tables=20, target=150, clock=5, play_first=3.0,
                    finish=60.0, stall=20.0)
BOT_DELAY = 0.05


async def kill_and_restart(launcher: Launcher, store: EventStore, *, kill: bool) -> None:
    service = launcher.service("serve", bot_delay=BOT_DELAY, hand_pause=1.0)
    await service.start_ready()

    async def the_kill() -> str:
        if not kill:
            return "with no fault"
        service.kill()
        restarted_in = await service.start_ready()
        return (f"after the service was SIGKILLed mid-game and restarted "
                f"({restarted_in:.1f} s to ready)")

    humans = await play_through(service.url, [service.ws_url], store, the_kill, SCENARIO)
    if kill:
        reconnected = [h for h in humans if h.connections > 1]
        assert reconnected, "harness: no scripted person noticed the kill"


@pytest.mark.slow
async def test_every_game_ends_after_the_service_is_killed_and_restarted(
    launcher: Launcher, store: EventStore
) -> None:
    await kill_and_restart(launcher, store, kill=True)
