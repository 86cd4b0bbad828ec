"""``cardtable history`` lists the journalled matches and games; ``cardtable export GAME_ID`` writes
a journalled game's record (``docs/records.md``), which ``cardtable replay`` accepts and which
reproduces the score the table kept. ``cardtable history --web [HOST:]PORT`` serves the journal's games on
the table page (its replay viewer steps through any of them) until interrupted.

Both open the journal read-only (SQLite ``mode=ro``): they never write, checkpoint or lock it, so
they are safe while a controller is playing, and on a journal that is refused for writing.

Exit codes: 0 done; 1 no such game, or the game cannot be exported; 2 the journal cannot be read
(no file, not a journal); 3 the journal is damaged or shorter than its seal records: what can be
read is still listed or exported, after a warning on stderr (``docs/journal.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from table.errors import TableError
from table.journal import GameRow, Journal, JournalDamagedError, JournalError, default_path


def _journal_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal", default=None, help=f"journal file (default: $CARDTABLE_JOURNAL or {default_path()})"
    )


def configure_history(parser: argparse.ArgumentParser) -> None:
    _journal_arg(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per match and game")
    from table.web.address import add_web_argument

    add_web_argument(parser, "the journal's games and their replays, until Ctrl-C", linger=False)


def configure_export(parser: argparse.ArgumentParser) -> None:
    _journal_arg(parser)
    parser.add_argument("game_id", type=int, metavar="GAME_ID", help="a game number from `cardtable history`")
    parser.add_argument("--out", default=None, help="write the record here (default: stdout)")


def _open(command: str, path_arg: str | None) -> Journal:
    """The journal opened read-only; a damaged one is opened all the same, with a warning."""
    path = Path(path_arg) if path_arg else default_path()
    if not path.exists():
        raise JournalError(f"no journal at {path}")
    journal = Journal(path, read_only=True)
    if journal.damage:
        print(f"cardtable {command}: warning: {journal.damage}; showing what it holds", file=sys.stderr)
    return journal


def _done(journal: Journal) -> int:
    return JournalDamagedError.exit_code if journal.damage else 0


def _when(t: float | None) -> str:
    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _scores(game: GameRow) -> str:
    if not game.result:
        return ""
    seats = game.result.get("seats", [])
    # what the game settles in: chips (Frog), coins (Garbage), points (Chinese Ten)
    return " ".join(
        f"{s.get('seat')}:{s.get('chips', s.get('coins', s.get('points')))}" for s in seats if isinstance(s, dict)
    )


def game_summary(game: GameRow) -> dict[str, Any]:
    return {
        "type": "game",
        "id": game.id,
        "match": game.match_id,
        "number": game.number,
        "game": game.game,
        "rules": game.rules,
        "players": game.players,
        "dealer": game.dealer,
        "status": game.status,
        "started": game.created,
        "finished": game.finished,
        "result": game.result,
        "key": game.key,
    }


def run_history(args: argparse.Namespace) -> int:
    try:
        journal = _open("history", args.journal)
    except JournalError as exc:
        print(f"cardtable history: {exc}", file=sys.stderr)
        return exc.exit_code
    if args.web is not None:
        journal.close()
        return _serve(args.web, journal.path)
    with journal:
        try:
            return _history(journal, args) or _done(journal)
        except JournalError as exc:
            print(f"cardtable history: {exc}", file=sys.stderr)
            return exc.exit_code


def _history(journal: Journal, args: argparse.Namespace) -> int:
    games = journal.games()
    matches = {m.id: m for m in journal.matches()}
    if args.json:
        for m in matches.values():
            print(
                json.dumps(
                    {
                        "type": "match",
                        "id": m.id,
                        "game": m.game,
                        "rules": m.rules,
                        "players": m.players,
                        "started": m.created,
                        "finished": m.finished,
                        "totals": m.totals,
                    }
                )
            )
        for g in games:
            print(json.dumps(game_summary(g)))
        return 0
    if not games:
        print("no games journalled yet")
        return 0
    print(f"{'game':>5} {'match':>5} {'deal':>4}  {'started':16}  {'status':9} {'game/rules':28} scores")
    for g in games:
        match = "-" if g.match_id is None else str(g.match_id)
        print(
            f"{g.id:>5} {match:>5} {g.number:>4}  {_when(g.created):16}  {g.status:9} "
            f"{g.game + ' ' + g.rules + ' x' + str(g.players):28} {_scores(g)}"
        )
    for m in matches.values():
        kept = m.totals.get("totals") if m.totals else None
        if isinstance(kept, dict):
            totals = " ".join(f"{k}:{v}" for k, v in kept.items())
            print(f"match {m.id}: {m.game} {m.rules}, totals {totals}{' (finished)' if m.finished else ''}")
    return 0


def _serve(address: Any, path: Path) -> int:
    from table.web.table_page import TablePage

    try:
        page = TablePage.start(address, journal=path, live=False)
    except TableError as exc:
        print(f"cardtable history: {exc}", file=sys.stderr)
        return 2
    try:
        page.linger(None)
    finally:
        page.stop()
    return 0


def export_game(journal: Journal, game_id: int) -> dict[str, Any]:
    """The record of journalled game ``game_id`` (raises KeyError when there is none)."""
    from table.controller.registry import referee_module

    game = journal.game(game_id)
    return referee_module(game.game).export_record(game, journal.entries(game_id))


def run_export(args: argparse.Namespace) -> int:
    try:
        journal = _open("export", args.journal)
    except JournalError as exc:
        print(f"cardtable export: {exc}", file=sys.stderr)
        return exc.exit_code
    with journal:
        try:
            record = export_game(journal, args.game_id)
        except KeyError:
            print(f"cardtable export: no game {args.game_id} in {journal.path}", file=sys.stderr)
            return 1
        except JournalError as exc:
            print(f"cardtable export: {exc}", file=sys.stderr)
            return exc.exit_code
        except TableError as exc:
            print(f"cardtable export: game {args.game_id}: {exc}", file=sys.stderr)
            return 1
        except (TypeError, ValueError, AttributeError, IndexError) as exc:
            # entries that pass their hashes but are not what this cardtable writes (a crafted file)
            print(
                f"cardtable export: game {args.game_id}: its entries are not ones this cardtable writes "
                f"({type(exc).__name__}: {exc})",
                file=sys.stderr,
            )
            return JournalDamagedError.exit_code
        text = json.dumps(record, indent=1)
        try:
            if args.out:
                Path(args.out).write_text(text + "\n", encoding="utf-8")
            else:
                print(text)
        except OSError as exc:
            print(f"cardtable export: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        return _done(journal)
