"""``cardtable demo [GAME]``: the demo table, the main job on a machine without hardware.

A simulated world (bots with hands placing and taking cards on a simulated table, the simulated
dealer machine on a pseudo-terminal dealing a shuffled deck, seat buttons on gpiozero mock pins)
watched by the real pipeline: camera frames through the recogniser and tracker to table events,
the referee judging them into the engine, the dealer driven over the serial link, the seat LEDs,
every input journalled. At the end: the score table and whether the refereed result equals the
simulation's truth. Killed and run again with the same command, the game resumes where it was.

``--web [HOST:]PORT`` serves the table page while the game runs (docs/web.md); with ``--host-answers`` the
players leave the referee's questions to the host page, and ``--doubt P`` makes the camera doubt some cards laid
on the layout so that the referee asks about them.

Exit codes: 0 the refereed result equals the truth; 1 it differs (or the game did not finish);
2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from table.errors import TableError
from table.journal import Journal, default_path

GAMES = ("chinese-ten", "frog", "garbage")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default="chinese-ten", choices=GAMES)
    parser.add_argument("--players", type=int, default=3, help="Chinese Ten: 2, 3 or 4 (default 3)")
    parser.add_argument(
        "--seed", type=int, default=None, help="shuffle seed (default: resume the open demo game, or a new seed)"
    )
    parser.add_argument("--rules", default=None, help="Chinese Ten: pagat (default), g4a, red-frog-black-frog")
    parser.add_argument(
        "--deals",
        type=int,
        default=None,
        help="a match of this many deals, the deal passing left (margins or points added up)",
    )
    parser.add_argument(
        "--match", action="store_true", help="Chinese Ten: play deals until the rule set's target (g4a: 1000 points)"
    )
    parser.add_argument("--fast", action="store_true", help="no real-time pacing (frames as fast as they go)")
    parser.add_argument(
        "--cheat",
        type=float,
        default=0.0,
        metavar="P",
        help="bots break a rule with probability P, so the referee can be seen catching them",
    )
    parser.add_argument("--record", metavar="OUT.mp4", default=None, help="write the camera's frames as a video")
    parser.add_argument(
        "--json", action="store_true", help='print {"refereed": ..., "truth": ..., "agree": ..., "flags": [...]}'
    )
    parser.add_argument("--journal", type=Path, default=None, help=f"SQLite journal (default {default_path()})")
    parser.add_argument(
        "--direct",
        action="store_true",
        help="perfect in-process senses instead of the camera pipeline and serial link (a quick "
        "check of the referee alone)",
    )
    parser.add_argument(
        "--vision", action="store_true", help="the camera pipeline (the default; --direct for perfect senses)"
    )
    parser.add_argument("--no-card-reader", action="store_true", help="the dealer machine does not read cards")
    parser.add_argument("--new", action="store_true", help="start a new game even if this one is open")
    parser.add_argument("--timeout", type=float, default=900.0, help="give up after this many seconds")
    from table.web.address import add_web_argument

    add_web_argument(parser, "the game live, with the host's controls")
    parser.add_argument(
        "--host-answers",
        action="store_true",
        help="with --web: the players leave the referee's questions to the host page instead of their buttons",
    )
    parser.add_argument(
        "--doubt",
        type=float,
        default=0.0,
        metavar="P",
        help="Chinese Ten: the camera doubts a card laid on the layout with probability P, so the referee asks",
    )


def run(args: argparse.Namespace) -> int:
    journal_path = args.journal or default_path()
    if args.host_answers and args.web is None:
        print("cardtable demo: --host-answers needs --web (the host answers on the table page)", file=sys.stderr)
        return 2
    if not 0.0 <= args.doubt <= 1.0:
        print(f"cardtable demo: --doubt is a probability from 0 to 1, not {args.doubt}", file=sys.stderr)
        return 2
    args.page = None
    if args.web is not None:
        from table.web.table_page import TablePage

        try:
            args.page = TablePage.start(
                args.web, players=args.players, journal=journal_path, out=sys.stderr if args.json else sys.stdout
            )
        except TableError as exc:
            print(f"cardtable demo: {exc}", file=sys.stderr)
            return 2
    try:
        if args.game != "chinese-ten":
            from table.demo import run_frog_garbage

            args.journal = journal_path
            return run_frog_garbage.run_cli(args)
        return run_chinese_ten(args, journal_path)
    finally:
        if args.page is not None:
            args.page.linger(args.web_linger, sys.stderr if args.json else sys.stdout)
            args.page.stop()


def _resume_seed(journal_path: Path, prefix: str) -> int | None:
    if not journal_path.exists():
        return None
    with Journal(journal_path) as journal:
        for game in reversed(journal.games()):
            if game.status == "open" and game.key.startswith(prefix) and game.key.count(":") == prefix.count(":") + 3:
                seed = game.meta.get("seed")
                return int(seed) if isinstance(seed, int) else None
    return None


def run_chinese_ten(args: argparse.Namespace, journal_path: Path) -> int:
    from table.chinese_ten import rules_by_name
    from table.demo.runner import DemoConfig, run_demo
    from table.demo.view import TerminalView, score_table

    rules = args.rules or "pagat"
    try:
        rules_by_name(rules).check_players(args.players)
        if not 0.0 <= args.cheat <= 1.0:
            raise ValueError(f"--cheat is a probability from 0 to 1, not {args.cheat}")
    except (TableError, ValueError) as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    senses = "direct" if args.direct else "vision"
    seed = args.seed
    if seed is None and not args.new:
        seed = _resume_seed(journal_path, f"demo:chinese-ten:{rules}:{args.players}:")
    if seed is None:
        seed = int(time.time() * 1000) % 1_000_000
    cfg = DemoConfig(
        rules=rules,
        players=args.players,
        seed=seed,
        fast=args.fast,
        cheat=args.cheat,
        journal=journal_path,
        senses=senses,
        card_reader=not args.no_card_reader,
        record=args.record,
        timeout=args.timeout,
        new=args.new,
        doubt=args.doubt,
        host_answers=args.host_answers,
    )
    view = None if args.json else TerminalView()
    if not args.json:
        print(
            f"cardtable demo: Chinese Ten ({rules}), {args.players} players, seed {seed}, cheat {args.cheat:g}; "
            f"journal {journal_path}",
            flush=True,
        )
    if args.deals is not None or args.match:
        return _run_match(cfg, args, view)
    try:
        result = run_demo(cfg, view=view, page=args.page)
    except (TableError, OSError) as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 1
    if result.error:
        print(f"cardtable demo: {result.error}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0 if result.agree else 1
    print()
    if result.resumed:
        print(f"(resumed game {result.game_id} from the journal)")
    if result.refereed:
        print(score_table(result.refereed))
    else:
        print(f"the game did not finish: {result.error}" if result.error else "the game did not finish")
    cheats, flags = result.cheats, result.flags
    print(
        f"\nflags: {len(flags)} ({len(result.invented)} not matching an injected cheat); "
        f"cheats injected: {len(cheats)} ({len(result.missed)} missed)"
    )
    print(
        "the refereed result equals the simulation's truth"
        if result.agree
        else "the refereed result DIFFERS from the simulation's truth"
    )
    print(
        f"game {result.game_id} in {result.seconds:.1f} s, {result.frames} frames; "
        f"`cardtable export {result.game_id}` writes its record"
    )
    return 0 if result.agree else 1


def _run_match(cfg: object, args: argparse.Namespace, view: object) -> int:
    from table.chinese_ten import rules_by_name
    from table.demo.runner import DemoConfig, run_match
    from table.demo.view import score_table

    assert isinstance(cfg, DemoConfig)
    if args.deals is None and rules_by_name(cfg.rules).match_target is None:
        print(f"cardtable demo: the {cfg.rules} rules have no target score; give --deals N", file=sys.stderr)
        return 2
    if args.deals is not None and args.deals < 1:
        print("cardtable demo: --deals must be at least 1", file=sys.stderr)
        return 2
    try:
        match = run_match(cfg, deals=args.deals, view=view, page=args.page)  # type: ignore[arg-type]
    except (TableError, OSError) as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "refereed": [d.refereed for d in match.deals],
                    "truth": [d.truth for d in match.deals],
                    "agree": match.agree,
                    "flags": [f for d in match.deals for f in d.flags],
                    "match": match.summary,
                }
            )
        )
        return 0 if match.agree else 1
    for d in match.deals:
        print(f"\ndeal (game {d.game_id}): " + ("agrees with the truth" if d.agree else "DIFFERS from the truth"))
        if d.refereed:
            print(score_table(d.refereed))
    s = match.summary
    print(
        f"\nmatch after {s['deals']} deals ({s['totals_of']} added up): "
        + ", ".join(f"seat {k} {v}" for k, v in s["totals"].items())
        + f"; leader: seat {', '.join(map(str, s['leaders']))}"
    )
    return 0 if match.agree else 1
