"""``cardtable demo``: INTERIM main job until the demo table exists.

Bots play a deal of Chinese Ten and the game is printed as a readable table: the deal, every turn
with the layout after it, and the final captures and scores. ``--cheat`` is accepted and does nothing
yet (all hands are shown anyway); ``--record FILE`` writes the game record.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from table.cards import shuffled, standard_pack
from table.chinese_ten import ChineseTenState, Phase, rules_by_name
from table.chinese_ten.bots import BOTS, make_bots
from table.chinese_ten.record import replay, state_record
from table.chinese_ten.render import cards_text, render_move, render_outcome, render_state
from table.errors import ConfigError, TableError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", default="chinese-ten", choices=["chinese-ten"],
                        help="the game to show (only Chinese Ten for now)")
    parser.add_argument("--players", type=int, default=3, help="2, 3 or 4 (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default: a new game each time)")
    parser.add_argument("--rules", default="pagat", help="pagat (default), g4a or red-frog-black-frog")
    parser.add_argument("--bots", default="greedy,random", help="bot per seat, repeated: greedy, random")
    parser.add_argument("--fast", action="store_true", help="no pauses between turns")
    parser.add_argument("--cheat", action="store_true", help="show every hand (always on for now)")
    parser.add_argument("--json", action="store_true", help="print the game record and result as JSON")
    parser.add_argument("--symbols", action="store_true", help="print cards as A♠ 10♦")
    parser.add_argument("--record", metavar="FILE", default=None, help="also write the game record to FILE")


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    try:
        rules = rules_by_name(args.rules)
        rules.check_players(args.players)
        kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
        if not kinds or any(k not in BOTS for k in kinds):
            raise ConfigError("bots", f"expected a list of {', '.join(BOTS)}, not {args.bots!r}")
    except ConfigError as exc:
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    bots = make_bots([kinds[i % len(kinds)] for i in range(args.players)], seed)
    for attempt in range(100):  # the redeal rule may ask for a new deal
        deck = shuffled(standard_pack(), seed + attempt)
        state = ChineseTenState.from_deck(rules, deck, players=args.players, dealer=0)
        if not state.redeal_needed:
            break
        if not args.json:
            print(f"redeal: {state.redeal_reason}")
    pause = 0.0 if args.fast or args.json or not sys.stdout.isatty() else 0.4
    quiet = bool(args.json)

    def say(text: str = "") -> None:
        if not quiet:
            print(text, flush=True)

    say(f"Chinese Ten ({rules.name}), {args.players} players, seed {seed}; seat 0 deals, "
        f"seat {state.to_act} plays first")
    say(", ".join(f"seat {i}: {bot.name} bot" for i, bot in enumerate(bots)))
    if state.opening_capture:
        say(f"four of a kind in the first layout: the dealer takes {cards_text(state.opening_capture)}")
    say()
    say(render_state(state, symbols=args.symbols))
    turn = 0
    try:
        while state.phase in (Phase.PLAY, Phase.FLIP):
            if state.phase is Phase.PLAY:
                turn += 1
                say(f"\nturn {turn}")
            move = bots[state.to_act].choose(state)
            applied = state.apply(move)
            say("  " + render_move(applied, state))
            if state.phase is not Phase.FLIP:
                say("  layout now: " + cards_text(state.layout, symbols=args.symbols))
                if pause:
                    time.sleep(pause)
    except TableError as exc:  # pragma: no cover - a bot bug, reported without a traceback
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 1
    record = state_record(state)
    if args.record:
        with open(args.record, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(record, indent=1) + "\n")
    if args.json:
        print(json.dumps({"record": record, "result": replay(record)}))
        return 0
    outcome = state.outcome
    say("\nfinal table")
    say(render_state(state, symbols=args.symbols))
    if outcome is not None:
        say()
        say(render_outcome(outcome, symbols=args.symbols))
    return 0
