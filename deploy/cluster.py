#!/usr/bin/env python3
"""The whole site on this machine from real parts (deploy/README.md):

    python3 deploy/cluster.py up        # PostgreSQL, 3 NATS, 2 replicas, spectators,
                                        # projectors, HAProxy on http://127.0.0.1:8080
    python3 deploy/cluster.py status
    python3 deploy/cluster.py kill service-1 | start service-1 | roll
    python3 deploy/cluster.py down

The same as ``python3 deploy/dev.py cluster ...``: it makes the virtual
environment first if needed, then runs ``muggins cluster ...`` in it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dev  # type: ignore[import-not-found]  # beside this file, standard library only

if __name__ == "__main__":
    sys.exit(dev.cluster(sys.argv[1:]))
