"""Complete Frog bot games per second on one core (deal, auction, widow, eleven tricks, settlement).

    .venv/bin/python benchmarks/bench_frog.py [--games N] [--bot heuristic|random] [--rules NAME]

Rates are per wall-clock second and per CPU second of the process (the latter is what one core
costs when other jobs share the machine). Each game: shuffle, execute the packet plan, a FrogMatch deal driven through
the public
verify/act API by seeded bots, settlement posted to the chip ledger. Passed-out deals count as
games too (they are complete deals), and the share of them is printed.
"""

from __future__ import annotations

import argparse
import random
import time

from table.frog.bots import HeuristicBot, RandomBot, play_deal
from table.frog.deal import deal_cards
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK
from table.frog.rules import rule_set
from table.frog.state import Phase


def run(games: int, bot: str, rules_name: str, players: int) -> tuple[float, int, float, float]:
    """(deals per wall second, deals played out, wall seconds, CPU seconds of this process)."""
    rules = rule_set(rules_name).with_options(bust_ends_match=False)
    match = FrogMatch(rules, players)
    make = HeuristicBot if bot == "heuristic" else RandomBot
    bots = {s: make(s) for s in range(players)}
    rng = random.Random(1)
    pack = list(FROG_PACK)
    played = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(games):
        rng.shuffle(pack)
        hands, widow = deal_cards(match.plan(), pack)
        deal = match.new_deal(hands=hands, widow=widow)
        play_deal(deal, bots)
        match.finish(deal)
        played += deal.phase is Phase.OVER
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    assert match.ledger.total == players * rules.starting_chips
    return games / elapsed, played, elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--bot", choices=("heuristic", "random"), default="heuristic")
    parser.add_argument("--rules", default="foster-1909")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the median and best are printed")
    args = parser.parse_args()
    runs = sorted((run(args.games, args.bot, args.rules, args.players) for _ in range(args.repeat)), key=lambda r: r[0])
    rate, played, elapsed, cpu = runs[len(runs) // 2]
    best = runs[-1]
    print(
        f"{args.games} deals ({played} played out, {args.games - played} passed), {args.bot} bots, "
        f"{args.rules}, {args.players} players, median of {args.repeat}: {rate:,.0f} deals/s, "
        f"{played / elapsed:,.0f} played-out deals/s wall clock (best {best[0]:,.0f} and "
        f"{best[1] / best[2]:,.0f}); per CPU second {args.games / cpu:,.0f} and {played / cpu:,.0f}"
    )


if __name__ == "__main__":
    main()
