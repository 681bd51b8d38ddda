"""The expert as it stood on 2026-12-02 (commit 70fbf46), frozen: issue #27's yardstick.

"Today's expert at 200 ms" for ``bench_expert --against-frozen``: its
knowledge, position, sampler, search and bot, copied whole with only their
imports renamed, so that improving ``muggins.expert`` cannot move the bar it
is measured against.  Never edit these files; a new yardstick is a new
copy.  ``tests/benchmarks/frozen_yardstick.py`` builds and loads it.
"""
