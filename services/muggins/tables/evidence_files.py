"""Evidence files served over HTTP: built one at a time, kept once final.

A new file reads a table's every stream and the store's chain values between
(muggins.replay.evidence_file): costly work, so each is charged to the
client's address and to the site's budget for everyone together
(muggins.tables.admission), and built one at a time per process.  A closed
table's files never change: they are kept (in memory, the most recently
asked), so asking again is a read that costs only a request's token.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from muggins.eventstore.store import EventStore
from muggins.replay.evidence_file import encode_evidence, export_evidence
from muggins.tables.admission import Admission, Payer, count
from muggins.tables.seating import Seating

#: Files kept at once, the least recently asked forgotten first.
KEPT_FILES = 128

FileKey = tuple[str, int | None, int | None]


class EvidenceFiles:
    def __init__(self, store: EventStore, seating: Seating, admission: Admission) -> None:
        self.store = store
        self.seating = seating
        self.admission = admission
        self._kept: OrderedDict[FileKey, bytes] = OrderedDict()
        #: One file built at a time: a crowd of askers queues, the tables do not.
        self._building = asyncio.Lock()

    async def file(self, table_id: str, game: int | None, hand: int | None,
                   address: str) -> bytes:
        """The file's bytes (RecordError: not there; Throttled: over budget)."""
        payer = Payer("address", address)
        self.admission.admit("evidence-request", [payer])
        key = (table_id, game, hand)
        if key in self._kept:
            self._kept.move_to_end(key)
            count("evidence", "cached")
            return self._kept[key]
        self.admission.admit("evidence", [payer, Payer("site", "all")])
        async with self._building:
            final = (await self.seating.table(table_id)).state.closed is not None
            evidence = await export_evidence(self.store, table_id, game, hand)
            body = await asyncio.to_thread(encode_evidence, evidence)
        if final and evidence.checkpoint is not None:
            self._kept[key] = body
            while len(self._kept) > KEPT_FILES:
                self._kept.popitem(last=False)
        return body
