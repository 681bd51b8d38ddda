"""Tables played through the load balancer while a test breaks the cluster:
scripted people (reconnecting through HAProxy whenever their socket drops)
and bot tables, then every game held to the store and the rules
(tests/support/scripted_players.py's play_through)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from muggins.cluster.local import LocalCluster
from muggins.eventstore.store import EventStore
from tests.support.processes import unhandled_errors
from tests.support.scripted_players import Scenario, ScriptedHuman
from tests.support.scripted_players import play_through as play_with_a_fault

#: Small: 8 tables, games to 100 (about 20 s with quick bots).
SCENARIO = Scenario(human_tables=4, bot_tables=4, target=100, clock=10, play_first=2.0,
                    finish=90.0, stall=25.0)


async def play_through(cluster: LocalCluster, store: EventStore,
                       fault: Callable[[], Awaitable[str]],
                       scenario: Scenario = SCENARIO) -> list[ScriptedHuman]:
    """Play through HAProxy only, break the cluster with ``fault``, check every game."""
    return await play_with_a_fault(cluster.url, [cluster.url.replace("http", "ws", 1)], store,
                                   fault, scenario)


def no_unhandled_errors(cluster: LocalCluster) -> None:
    """No muggins process logged an exception that escaped every handler."""
    found = []
    for instance in cluster.instances():
        if instance.kind in ("service", "spectators", "projector"):
            path = cluster.logs / f"{instance.name}.log"
            text = path.read_text(errors="replace") if path.exists() else ""
            found += [f"{instance.name}: {line}" for line in unhandled_errors(text)]
    assert not found, "\n".join(found)
