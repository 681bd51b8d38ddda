"""The buckets of every latency histogram along a move's path (seconds), one
set for all, so that the steps' quantiles can be read against each other:
fine where players feel it (a few ms), coarse past a second."""

from __future__ import annotations

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0)
