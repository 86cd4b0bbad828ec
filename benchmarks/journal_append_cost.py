"""What one journal entry costs the controller: ``Journal.append`` (the entry, its hash chained to
the game's last, the chain of writes advanced, the commit, the seal updated) under each
``synchronous`` setting, on the disk the journal lives on.

Run: ``.venv/bin/python benchmarks/journal_append_cost.py [--entries 300] [--repeat 5] [--dir /tmp]``.
Prints the median and best milliseconds per append of the repeats, per setting, as JSON lines.
The journal before entries were chained and sealed, for comparison (its ``append`` takes the same
arguments)::

    git archive 599de90 table | tar -x -C /tmp/journal-before
    PYTHONPATH=/tmp/journal-before .venv/bin/python benchmarks/journal_append_cost.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from table.journal import Journal


def per_append_ms(folder: Path, synchronous: str, entries: int) -> float:
    with Journal(folder / f"j-{synchronous}.db", synchronous=synchronous) as journal:
        gid = journal.new_game(key="k", game="chinese-ten", rules="pagat", players=3)
        body = {"src": "camera", "kind": "appeared", "card": "7H", "zone": "layout", "x": 412.5, "y": 233.0}
        start = time.perf_counter()
        for i in range(entries):
            journal.append(gid, "input" if i % 2 == 0 else "verdict", body)
        return (time.perf_counter() - start) / entries * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None, help="where the journals are made (default: a temp folder)")
    args = parser.parse_args(argv)
    for synchronous in ("FULL", "NORMAL"):
        runs = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
                runs.append(per_append_ms(Path(tmp), synchronous, args.entries))
        print(
            json.dumps(
                {
                    "synchronous": synchronous,
                    "entries": args.entries,
                    "median_ms": round(statistics.median(runs), 3),
                    "best_ms": round(min(runs), 3),
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
