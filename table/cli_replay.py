"""``cardtable replay FILE`` and ``cardtable replay --random GAME``.

Exit codes: 0 the record replays; 1 an illegal move (its index and a reason); 2 a malformed record.
Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from table import records
from table.errors import IllegalMoveError, RecordError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="a game record (JSON); see docs/records.md")
    parser.add_argument(
        "--random",
        metavar="GAME",
        choices=sorted(records.GAMES),
        help="write the record of a bot game instead of replaying one",
    )
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default=None, help="named rule set (default: the game's default)")
    parser.add_argument("--out", default=None, help="with --random: where to write the record (default stdout)")


def run(args: argparse.Namespace) -> int:
    if args.random:
        try:
            record = records.game_module(args.random).random_record(
                players=args.players, seed=args.seed, rules=args.rules
            )
        except (RecordError, ValueError) as exc:
            print(f"cardtable replay: {exc}", file=sys.stderr)
            return 2
        text = json.dumps(record, indent=1)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        else:
            print(text)
        return 0
    if not args.file:
        print("cardtable replay: give a record FILE or --random GAME", file=sys.stderr)
        return 2
    try:
        result = records.replay(records.load_record(args.file))
    except IllegalMoveError as exc:
        where = f"move {exc.index}" if exc.index is not None else "record"
        print(f"{args.file}: illegal {where}: {exc.reason}", file=sys.stderr)
        return 1
    except RecordError as exc:
        print(f"{args.file}: malformed record: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0
