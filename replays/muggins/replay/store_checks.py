"""Holding the store to what the site signed: checkpoints and receipts.

The whole store's chains recomputed (up to a checkpoint, or all of it), and
players' receipts and kept checkpoints checked against what is stored now
(docs/fairness.md, "Signed checkpoints", "Receipts")."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import msgspec

from muggins.eventstore.records import GENESIS_CHAIN, global_link, recomputed_chain
from muggins.eventstore.store import EventStore
from muggins.evidence.checkpoints import checkpoint_at_or_before
from muggins.evidence.documents import Checkpoint, Forgery, Receipt, check_signature
from muggins.evidence.signing import PublicKeys

#: Events read from the store at a time when recomputing its chains.
BATCH = 20_000
#: Problems listed before the rest are counted only.
MAX_LISTED = 10


class StoreReport(msgspec.Struct):
    """What a recomputation of the store found."""

    first: int
    last: int
    events: int = 0
    seconds: float = 0.0
    problems: list[str] = msgspec.field(default_factory=list)
    #: The global value recomputed at each position asked for (``at``).
    computed: dict[int, bytes] = msgspec.field(default_factory=dict)

    @property
    def per_second(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_LISTED:
            self.problems.append(text)
        elif len(self.problems) == MAX_LISTED:
            self.problems.append("… and more: the first ones say where")


async def trusted_start(store: EventStore, before: int, keys: PublicKeys) -> tuple[int, bytes]:
    """Where a recomputation up to ``before`` may start from: just after the
    newest checkpoint before it whose signature holds (its value is then the
    site's word), else the start of the store."""
    position = before - 1
    while position >= 1:
        checkpoint = await checkpoint_at_or_before(store.pool, position)
        if checkpoint is None:
            break
        try:
            check_signature(checkpoint, keys)
        except Forgery:
            position = checkpoint.position - 1
            continue
        return checkpoint.position + 1, bytes.fromhex(checkpoint.global_chain)
    return 1, GENESIS_CHAIN


async def recompute_global(store: EventStore, first: int, previous: bytes, last: int,
                           at: Sequence[int] = ()) -> StoreReport:
    """The global chain from ``first`` (``previous`` being its value at
    ``first - 1``) to ``last``, from the stored stream chain values: every
    position must hold an event, and every stored global value must be the
    recomputed one (the first that is not is named)."""
    report = StoreReport(first, last)
    wanted = set(at)
    started = time.perf_counter()
    expected = first
    chain_value = previous
    while expected <= last:
        links = await store.chain_links(expected, min(last, expected + BATCH - 1))
        if not links:
            report.problem(f"positions {expected} to {last} hold no events: the store was cut "
                           "short (its tail deleted)")
            break
        for position, chain, stored_global in links:
            if position != expected:
                report.problem(f"position {expected} holds no event"
                               + (f" (nor do those up to {position - 1})"
                                  if position > expected + 1 else "")
                               + ": an event was deleted from the store")
            chain_value = global_link(chain_value, chain)
            if stored_global != chain_value:
                report.problem(f"position {position}: the stored global chain value is not "
                               "the one recomputed from the events before it")
                chain_value = stored_global  # name each break once, not every event after
            if position in wanted:
                report.computed[position] = chain_value
            report.events += 1
            expected = position + 1
    report.seconds = time.perf_counter() - started
    return report


async def verify_whole_store(store: EventStore, last: int | None = None,
                             progress: Callable[[int], None] | None = None) -> StoreReport:
    """Every event of the store up to ``last`` (all of them: None): positions
    without a gap, each stream's chain from each event's stored fields, and
    the global chain."""
    head = await store.head_position() if last is None else last
    report = StoreReport(1, head)
    started = time.perf_counter()
    streams: dict[str, tuple[int, bytes]] = {}
    expected = 1
    global_value = GENESIS_CHAIN
    while expected <= head:
        batch = await store.read_all(expected - 1, min(BATCH, head - expected + 1))
        if not batch:
            report.problem(f"positions {expected} to {head} hold no events: the store was cut "
                           "short (its tail deleted)")
            break
        for entry in batch:
            if entry.position != expected:
                report.problem(f"position {expected} holds no event: an event was deleted "
                               "from the store")
            version, previous = streams.get(entry.stream_id, (0, GENESIS_CHAIN))
            name = f"{entry.stream_id} version {entry.stream_version} " \
                   f"(position {entry.position}, {entry.event_type})"
            if entry.stream_version != version + 1:
                report.problem(f"{name}: the stream's version {version + 1} is missing or "
                               "repeated")
            if recomputed_chain(entry, previous) != entry.chain:
                report.problem(f"{name} is changed: its stored fields do not give its chain "
                               "value")
            chain = entry.chain or GENESIS_CHAIN
            streams[entry.stream_id] = (entry.stream_version, chain)
            global_value = global_link(global_value, chain)
            if entry.global_chain != global_value:
                report.problem(f"{name}: the store's chain does not pass through it as stored")
                global_value = entry.global_chain or global_value
            report.events += 1
            expected = entry.position + 1
        if progress is not None:
            progress(expected - 1)
        # Only the last value is asked for here: memory stays flat.
        report.computed = {expected - 1: global_value}
    report.seconds = time.perf_counter() - started
    return report


async def check_checkpoint(store: EventStore, checkpoint: Checkpoint, keys: PublicKeys,
                           from_position: int | None = None) -> tuple[list[str], StoreReport]:
    """Whether the store still reaches ``checkpoint``: its signature first
    (a forgery is named so), then the global chain recomputed up to it, from
    the start of the store (``from_position`` None: every event's content
    checked too) or from the newest trusted checkpoint before ``from_position``."""
    try:
        check_signature(checkpoint, keys)
    except Forgery as forgery:
        return [str(forgery)], StoreReport(0, 0)
    if from_position is None:
        report = await verify_whole_store(store, checkpoint.position)
    else:
        # From a trusted point before both the table and the kept checkpoint.
        first, previous = await trusted_start(
            store, min(from_position, checkpoint.position), keys)
        report = await recompute_global(store, first, previous, checkpoint.position,
                                        at=[checkpoint.position])
    problems = list(report.problems)
    reached = report.computed.get(checkpoint.position)
    if reached is None:
        problems.append(f"the store no longer reaches position {checkpoint.position}: its "
                        "history was cut")
    elif reached.hex() != checkpoint.global_chain:
        problems.append(f"the store's chain recomputed up to position {checkpoint.position} "
                        "is not the one the site signed: the history before the checkpoint "
                        "was changed")
    return problems, report


async def check_receipts(store: EventStore, table: str, receipts: Sequence[Receipt],
                         keys: PublicKeys, table_first: int
                         ) -> tuple[list[tuple[Receipt, list[str]]], list[str]]:
    """Each receipt against the store (its signature, the event it names, and
    the global chain recomputed through its position from the newest trusted
    checkpoint before the table's first event), and what that recomputation
    found wrong on the way, whichever receipt it touches."""
    found: list[tuple[Receipt, list[str]]] = []
    good: list[Receipt] = []
    for receipt in receipts:
        problems: list[str] = []
        try:
            check_signature(receipt, keys)
        except Forgery as forgery:
            found.append((receipt, [str(forgery)]))
            continue
        if receipt.table != table:
            problems.append(f"it is a receipt of table {receipt.table}, not of {table}")
        stored = await store.stream_event(receipt.stream, receipt.version)
        if stored is None:
            problems.append(f"{receipt.stream} has no version {receipt.version} any more: the "
                            "record was cut after the player was given this receipt")
        else:
            if (stored.chain or b"").hex() != receipt.chain:
                problems.append(f"{receipt.stream} version {receipt.version} is not what the "
                                "player was shown: its chain value differs (the game's record "
                                "before it was rewritten)")
            if stored.position != receipt.position:
                problems.append(f"{receipt.stream} version {receipt.version} is at position "
                                f"{stored.position}, the receipt says {receipt.position}")
        at = await store.event_at_position(receipt.position)
        if at is None:
            problems.append(f"position {receipt.position} holds no event any more")
        elif (at.global_chain or b"").hex() != receipt.global_chain:
            problems.append(f"the store's chain at position {receipt.position} is not the one "
                            "on the receipt: the store's history before it was rewritten")
        found.append((receipt, problems))
        if not problems:
            good.append(receipt)
    on_the_way: list[str] = []
    if good:
        first, previous = await trusted_start(
            store, min(table_first, *(r.position for r in good)), keys)
        report = await recompute_global(store, first, previous,
                                        max(r.position for r in good),
                                        at=[r.position for r in good])
        on_the_way = list(report.problems)
        for index, (receipt, problems) in enumerate(found):
            value = report.computed.get(receipt.position)
            if receipt in good and (value is None or value.hex() != receipt.global_chain):
                found[index] = (receipt, [*problems,
                                          "the store's chain, recomputed from the last "
                                          "checkpoint before the table, does not reach the "
                                          "receipt's value: the history was rewritten"])
    return found, on_the_way
