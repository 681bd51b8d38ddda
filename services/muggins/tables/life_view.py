"""What players and spectators are shown of a table's life
(muggins.domain.table_life): who is missing and since when, when those who stayed
may choose, what was chosen, and why the table closed."""

from __future__ import annotations

import datetime

from muggins.domain.table_life import table_life
from muggins.rules.state import GameState
from muggins.tables.next_step import Timings
from muggins.tables.protocol import LifeView, MissingSeat
from muggins.tables.seating import Table


def missing_since(table: Table, seats: tuple[int, ...]) -> datetime.datetime | None:
    """When the last of ``seats`` went missing (the bot took it: the store's clock)."""
    times = [table.changed_at[seat] for seat in seats if seat in table.changed_at]
    return max(times) if times else None


def choices_from(table: Table, seats: tuple[int, ...], timings: Timings
                 ) -> datetime.datetime | None:
    """When those who stayed may choose for a game paused for ``seats``."""
    since = missing_since(table, seats)
    return since + datetime.timedelta(seconds=timings.absence_wait) if since else None


def life_view(table: Table, game: GameState | None, timings: Timings) -> LifeView:
    life = table_life(table.state, game)
    state = table.state
    missing = [MissingSeat(seat, state.seats[seat].display_name,
                           _iso(table.changed_at.get(seat)))
               for seat in life.missing]
    opens = choices_from(table, life.missing, timings) if life.kind == "paused" else None
    chooser = state.absence_chosen_by
    rematch = ([state.seats[seat].display_name or "?" for seat in state.rematch_asked]
               if life.kind == "between-games" else [])
    return LifeView(life.kind, life.reason, missing, _iso(opens), state.absence_choice,
                    state.seats[chooser].display_name if chooser is not None else None,
                    rematch)


def _iso(moment: datetime.datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
