"""The board's layout time, as the table page lays it after each play.

Every board of random hands (no spinner, the first double, every double),
double-six and double-nine, each laid from the one before it in the page's
phone and desktop boxes (tests/client/layout-checks.mjs), timed under node:
the median, p95 and the longest layout.  A phone's core is several times
slower than this machine's, so what is tens of milliseconds here is a
visible wait there.

``--against REV``: the layout of that commit too (``git show``), timed in
the same run, board by board, beside today's, and the boards on which the
two lay out differently counted (0 for a change meant only to be faster).
``--smoke``: one hand of each kind.  No bar is judged: the figures are for
the issue that asks.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.benchmarks.common import SMOKE, bench_setting

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = ROOT / "services" / "muggins" / "client" / "static" / "layout.js"
SCRIPT = Path(__file__).with_name("layout_times.mjs")


def main() -> int:
    node = shutil.which("node")
    if node is None:
        print("node is not installed (Debian's nodejs): nothing measured")
        return 2
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--against", metavar="REV", help="time this commit's layout too")
    against = parser.parse_args().against
    hands = bench_setting("LAYOUT_HANDS", "6", smoke="1")
    with tempfile.TemporaryDirectory() as folder:
        modules = [str(LAYOUT)]
        if against:
            shown = subprocess.run(
                ["git", "show", f"{against}:services/muggins/client/static/layout.js"],
                cwd=ROOT, capture_output=True, text=True, check=False)
            if shown.returncode != 0:
                print(f"no layout at {against}: {shown.stderr.strip()}")
                return 2
            before = Path(folder, "layout-before.mjs")
            before.write_text(shown.stdout)
            modules.append(str(before))
        result = subprocess.run([node, str(SCRIPT), str(hands), *modules],
                                capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print(result.stdout + result.stderr)
        print("SMOKE RUN BROKEN: the layout's timing failed" if SMOKE else "the timing failed")
        return 1
    names = ["today"] + ([against] if against else [])
    for line in result.stdout.splitlines():
        row = json.loads(line)
        figures = "; ".join(
            f"{name}: median {times['median']:.1f}, p95 {times['p95']:.1f}, "
            f"at most {times['max']:.0f} ms"
            for name, times in zip(names, row["modules"], strict=True))
        differ = f"; laid differently: {row['differ']}" if against else ""
        print(f"double-{row['pips']} {row['box']:<7} {row['boards']:>4} boards  {figures}{differ}")
    if SMOKE:
        print("smoke run: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
