"""``cardtable journal check`` and ``cardtable journal accept`` (``docs/journal.md``).

``check`` reads the journal read-only and says whether it is sound: its pages, its chain of writes
against its seal, every game's entries against their hashes. ``accept`` goes on with a journal
refused for being shorter than its seal (or without its seal): copies of its files are kept, then
it is sealed as it is.

Exit codes: 0 sound (check) or accepted / nothing to accept (accept); 2 no journal there, or not a
journal; 3 damaged (check), or damaged beyond accepting (accept); 4 a controller holds the journal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from table.journal import JournalError, default_path


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (
        ("check", "say whether the journal is sound (read-only)"),
        ("accept", "go on with a journal refused as shortened: keep copies, then seal it as it is"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument(
            "--journal", type=Path, default=None, help=f"journal file (default: $CARDTABLE_JOURNAL or {default_path()})"
        )


def run(args: argparse.Namespace) -> int:
    from table.journal_maintenance import accept, verify

    path = args.journal or default_path()
    try:
        if args.action == "accept":
            print(accept(path))
            return 0
        health = verify(path)
    except JournalError as exc:
        print(f"cardtable journal {args.action}: {exc}", file=sys.stderr)
        return exc.exit_code
    if health.problem:
        print(f"cardtable journal check: {health.problem}", file=sys.stderr)
        return 3
    print(f"{path}: sound: {health.games} games, {health.entries} entries, {health.chain}; agrees with its seal")
    return 0
