"""The collector's settings for a serving process (muggins.infra.collector):
checked in a process of its own, as they are process-wide."""

from __future__ import annotations

import json
import subprocess
import sys

from muggins.infra.collector import FULL_EVERY, MIDDLE_EVERY, YOUNG_EVERY


def test_a_serving_process_freezes_its_start_and_spaces_its_collections() -> None:
    probe = ("import gc, json; from muggins.infra.collector import settle_for_serving; "
             "before = gc.get_threshold(); settle_for_serving(); "
             "print(json.dumps([before, gc.get_threshold(), gc.get_freeze_count()]))")
    before, after, frozen = json.loads(subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
    assert before == [700, 10, 10]  # Python's own, for the record
    assert after == [YOUNG_EVERY, MIDDLE_EVERY, FULL_EVERY]
    assert frozen > 1000  # the imports and what start-up made
