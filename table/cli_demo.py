"""``cardtable demo [GAME]``: the demo table, the main job on a machine without hardware.

A simulated world (bots with hands placing and taking cards on a simulated table, a dealer machine dealing a
shuffled deck, seat buttons on gpiozero mock pins) watched by the real pipeline: camera frames through the
recogniser and tracker to table events, the referee judging them into the engine, the dealer driven by its
commands, the seat LEDs, every input journalled. At the end: the score and whether the refereed result equals
the simulation's truth. Killed and run again with the same command, the game resumes where it was.

``--web [HOST:]PORT`` serves the table page while the game runs (docs/web.md); with ``--host-answers`` the
players leave the referee's questions to the host page, and ``--doubt P`` makes the camera doubt some cards laid
on the layout so that the referee asks about them.

``--deck NAME`` reads the cards against an enrolled deck (``cardtable deck learn``; ``--decks-dir``), as
``cardtable play --deck`` does: a card of another deck is unknown to the referee, which asks about it. ``--enrol``
first enrols the demo's own deck (the faces its simulated camera draws, laid out in four photos of 13 cards, named
with no questions, as ``cardtable deck learn --yes``), prints one line about it and plays with that profile; with
``--deck NAME`` as well the profile is saved under that name (a deck of that name already there is refused). Both
read cards through the camera, so ``--direct`` refuses them.

Exit codes: 0 the refereed result equals the truth; 1 it differs (or the game did not finish, or ``--enrol`` did
not enrol the whole deck); 2 bad arguments (an unknown deck among them), or the journal is not a journal; 3 the
journal is damaged or shorter than its seal records (refused, nothing written: ``docs/journal.md``); 4 another
controller holds the journal.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from table.demo.config import DEFAULT_RULES, GAMES, DemoConfig, DemoResult, resume_seed
from table.errors import ConfigError, TableError
from table.journal import JournalError, claim, default_path

if TYPE_CHECKING:
    from vision.deck_profile import DeckProfile


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default="chinese-ten", choices=GAMES)
    parser.add_argument(
        "--players", type=int, default=3, help="Chinese Ten 2-4, Frog 3-7 (by rule set), Garbage 3-8 (default 3)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="shuffle seed (default: resume the open demo game of this game, rules and players, or a new seed)",
    )
    parser.add_argument(
        "--rules",
        default=None,
        help="Chinese Ten: pagat (default), g4a, red-frog-black-frog; Frog: foster-1909 (default), modern, "
        "solo-slough, straight-solo, coeur-d-alene; Garbage: standard (default), stud, buy, ...",
    )
    parser.add_argument(
        "--deals",
        type=int,
        default=None,
        help="Chinese Ten: a match of this many deals, the deal passing left (margins added up); "
        "Frog: deals in the session (default one per player)",
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
    senses = parser.add_mutually_exclusive_group()
    senses.add_argument(
        "--direct",
        action="store_true",
        help="perfect in-process senses instead of the camera pipeline (a quick check of the referee alone)",
    )
    senses.add_argument(
        "--vision", action="store_true", help="the camera pipeline (the default; --direct for perfect senses)"
    )
    parser.add_argument(
        "--deck", default=None, metavar="NAME", help="the camera reads the cards against this enrolled deck"
    )
    from vision.cli_deck import add_decks_dir_argument  # numpy and the profiles only when the command is built

    add_decks_dir_argument(parser)
    parser.add_argument(
        "--enrol",
        action="store_true",
        help="enrol the demo's own deck first and play with it (with --deck NAME: saved under NAME)",
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
        help="the camera doubts a card laid on the layout with probability P, so the referee asks",
    )


def run(args: argparse.Namespace) -> int:
    try:
        cfg = config_from(args)
    except JournalError as exc:  # a damaged or busy journal met while looking for a game to resume
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return exc.exit_code
    except (TableError, ValueError) as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    try:
        lock = claim(cfg.journal)  # this demo is the journal's one controller until it ends
    except JournalError as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return exc.exit_code
    with lock:
        if args.enrol:
            enrolled = _enrol(cfg, args)
            if enrolled is None:
                return 1
            cfg = enrolled
        return _serve(cfg, args)


def _enrol(cfg: DemoConfig, args: argparse.Namespace) -> DemoConfig | None:
    """``--enrol``: the demo's deck enrolled (and saved under ``--deck``, when given), the settings that play with
    it; None, having said why, when the deck was not enrolled whole."""
    from table.demo.enrol import enrol_demo_deck
    from vision.deck_profile import DeckError, DeckStore

    out = sys.stderr if args.json else sys.stdout  # --json keeps stdout for the result alone
    enrolment = enrol_demo_deck(cfg.seed, args.deck or "demo")
    print(f"cardtable demo: {enrolment.line()}", file=out, flush=True)
    if enrolment.profile is None:
        for problem in enrolment.problems:
            print(f"cardtable demo: {problem}", file=sys.stderr)
        print("cardtable demo: the deck was not enrolled whole; the game is not played", file=sys.stderr)
        return None
    if args.deck is not None:
        try:
            path = DeckStore(args.decks_dir).save(enrolment.profile)
        except (DeckError, OSError) as exc:
            print(f"cardtable demo: the deck could not be saved: {exc}", file=sys.stderr)
            return None
        print(f"cardtable demo: deck {args.deck} saved to {path}", file=out, flush=True)
    return replace(cfg, deck=enrolment.profile)


def _serve(cfg: DemoConfig, args: argparse.Namespace) -> int:
    page = None
    if args.web is not None:
        from table.web.table_page import TablePage

        try:
            page = TablePage.start(
                args.web, players=cfg.players, journal=cfg.journal, out=sys.stderr if args.json else sys.stdout
            )
        except TableError as exc:
            print(f"cardtable demo: {exc}", file=sys.stderr)
            return 2
    try:
        return _run(cfg, args, page)
    finally:
        if page is not None:
            page.linger(args.web_linger, sys.stderr if args.json else sys.stdout)
            page.stop()


def _run(cfg: DemoConfig, args: argparse.Namespace, page: Any) -> int:
    from table.demo.view import TerminalView

    view = None if args.json else TerminalView()
    if not args.json:
        print(
            f"cardtable demo: {cfg.game} ({cfg.rule_name}), {cfg.players} players, seed {cfg.seed}, "
            f"cheat {cfg.cheat:g}; journal {cfg.journal}",
            flush=True,
        )
    if cfg.game == "chinese-ten" and (args.deals is not None or args.match):
        return _run_match(cfg, args, view, page)
    from table.demo.runner import run_demo

    try:
        result = run_demo(cfg, view=view, page=page)
    except ConfigError as exc:  # an open game that cannot be resumed: --new starts afresh
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    except (TableError, OSError) as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 1
    ok = result.agree and not result.error
    if args.json:
        print(json.dumps(result.to_json()))
        return 0 if ok else 1
    if result.error:
        print(f"cardtable demo: {result.error}", file=sys.stderr)
    print()
    if result.resumed:
        print(f"(resumed game {result.game_id} from the journal)")
    if result.refereed:
        print(score_lines(result.refereed))
    else:
        print("the game did not finish")
    _print_summary(result)
    return 0 if ok else 1


def config_from(args: argparse.Namespace) -> DemoConfig:
    """The demo's settings from the command line; a :class:`ValueError` or :class:`TableError` says what is
    wrong with them."""
    rules = args.rules or DEFAULT_RULES[args.game]
    if args.game == "chinese-ten":
        from table.chinese_ten import rules_by_name

        rules_by_name(rules).check_players(args.players)
    if not 0.0 <= args.cheat <= 1.0:
        raise ValueError(f"--cheat is a probability from 0 to 1, not {args.cheat}")
    if not 0.0 <= args.doubt <= 1.0:
        raise ValueError(f"--doubt is a probability from 0 to 1, not {args.doubt}")
    if args.host_answers and args.web is None:
        raise ValueError("--host-answers needs --web (the host answers on the table page)")
    if args.deals is not None and args.deals < 1:
        raise ValueError("--deals must be at least 1")
    deck = _deck(args)
    journal = args.journal or default_path()
    seed = args.seed
    if seed is None and not args.new:
        seed = resume_seed(journal, args.game, rules, args.players)
    if seed is None:
        seed = int(time.time() * 1000) % 1_000_000
    return DemoConfig(
        game=args.game,
        rules=rules,
        players=args.players,
        seed=seed,
        cheat=args.cheat,
        deals=args.deals if args.game == "frog" else None,
        fast=args.fast,
        card_reader=not args.no_card_reader,
        journal=journal,
        senses="direct" if args.direct else "vision",
        record=args.record,
        timeout=args.timeout,
        new=args.new,
        doubt=args.doubt,
        host_answers=args.host_answers,
        deck=deck,
    )


def _deck(args: argparse.Namespace) -> DeckProfile | None:
    """The enrolled deck ``--deck`` names (None without it, or with ``--enrol``, which makes it); raises
    ``vision.deck_profile.DeckError`` (a ValueError) for a deck not enrolled or not readable, and for ``--enrol``
    meeting a deck of that name already there."""
    if args.direct and (args.deck is not None or args.enrol):
        raise ValueError("--deck and --enrol read the cards through the camera; --direct has no camera")
    if args.deck is None:
        return None
    from vision.deck_profile import DeckError, DeckStore

    store = DeckStore(args.decks_dir)
    if args.enrol:
        if store.path(args.deck).exists():  # checks the name too
            raise DeckError(
                f"a deck named {args.deck!r} exists already in {store.folder}; play it with --deck alone, or "
                f"`cardtable deck remove {args.deck}` first"
            )
        return None
    return store.load(args.deck)


def score_lines(result: dict[str, Any]) -> str:
    """The final score: Chinese Ten's points and margins, Frog's chips, Garbage's coins."""
    game = result.get("game")
    if game == "frog":
        return "\n".join(f"seat {s['seat']}: {s['chips']:+d} chips" for s in result["seats"])
    if game == "garbage":
        return "\n".join(f"seat {s['seat']}: {s['coins']} coins" for s in result["seats"])
    from table.demo.view import score_table

    return score_table(result)


def _print_summary(result: DemoResult) -> None:
    print(
        f"\nflags: {len(result.flags)} ({len(result.invented)} not matching an injected cheat); "
        f"cheats injected: {len(result.cheats)} ({len(result.missed)} missed)"
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


def _run_match(cfg: DemoConfig, args: argparse.Namespace, view: Any, page: Any) -> int:
    from table.chinese_ten import rules_by_name
    from table.demo.runner import run_match

    if args.deals is None and rules_by_name(cfg.rule_name).match_target is None:
        print(f"cardtable demo: the {cfg.rule_name} rules have no target score; give --deals N", file=sys.stderr)
        return 2
    try:
        match = run_match(cfg, deals=args.deals, view=view, page=page)
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
            print(score_lines(d.refereed))
    s = match.summary
    print(
        f"\nmatch after {s['deals']} deals ({s['totals_of']} added up): "
        + ", ".join(f"seat {k} {v}" for k, v in s["totals"].items())
        + f"; leader: seat {', '.join(map(str, s['leaders']))}"
    )
    return 0 if match.agree else 1
