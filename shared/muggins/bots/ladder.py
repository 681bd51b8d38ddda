"""The names of the bots' levels: the ladder a person chooses from, and the
reference bots beside it, and the expert's thinking time.  Names and numbers
only (the bots are muggins.bots.levels), so that what knows no rules, the
settings among them, can name a level and default to its budget."""

from __future__ import annotations

from typing import Literal, get_args

#: The levels a person chooses from, weakest first.
LadderLevel = Literal["easy", "medium", "hard", "expert"]
LADDER: tuple[LadderLevel, ...] = get_args(LadderLevel)
#: The strongest level: the one that stands in for a person (takeovers).
STRONGEST: LadderLevel = LADDER[-1]
#: Bots outside the ladder: yardsticks for tests and benchmarks, and what
#: tables stored before the ladder name (their events keep these names).
ReferenceLevel = Literal["random", "greedy"]
#: Every level a bot can be made at.
BotLevel = Literal[LadderLevel, ReferenceLevel]
BOT_LEVELS: tuple[BotLevel, ...] = get_args(BotLevel)
#: The ladder's levels that are a reference bot under another name.
SAME_AS: dict[BotLevel, ReferenceLevel] = {"medium": "greedy"}
#: The levels that search: they think in the service's worker processes,
#: never on its event loop (muggins.tables.bot_workers).
SEARCHING: frozenset[BotLevel] = frozenset({"hard", "expert"})
#: The searching levels that think for a time budget (the others search a
#: fixed number of simulations): only these share the workers' time under load.
BUDGETED: frozenset[BotLevel] = frozenset({"expert"})
#: The expert's thinking time per decision, unless told otherwise: the
#: smallest measured to keep the full strength of the expert of 2026-12-02 at
#: 200 ms (it won 53.8% [50.7, 56.9] of 1,000 duplicate games against it,
#: and at 10 ms 48.2% [45.1, 51.3]; docs/bots.md), a tenth of the CPU of a
#: decision at 200.
EXPERT_BUDGET_MS = 20
