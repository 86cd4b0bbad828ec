"""Garbage engine speed: poker hand evaluation (single- and multi-pack) and whole hands of four phases.

Run: .venv/bin/python benchmarks/bench_garbage.py [--hands N] [--matches M]
Each figure is the best of five repeats on one core (time.perf_counter).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from table.cards import ALL_CARDS, Card, multi_pack
from table.garbage import RULE_SETS, AwaitCard, DeckFeeder, GarbageGame
from table.garbage.bots import choose_move
from table.garbage.hands import best_value, rank5, rank5_four_flush


def best_of(repeats: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_hands(n: int) -> None:
    rng = random.Random(1)
    single = [tuple(rng.sample(ALL_CARDS, 5)) for _ in range(n)]
    three_packs = multi_pack(3)
    multi = [tuple(rng.sample(three_packs, 5)) for _ in range(n)]
    dupes = sum(len(set(h)) < 5 for h in multi)
    sevens = [tuple(rng.sample(three_packs, 7)) for _ in range(n // 10)]

    def loop(fn: Callable[[tuple[Card, ...]], int], hands: list[tuple[Card, ...]]) -> Callable[[], None]:
        def run() -> None:
            for h in hands:
                fn(h)

        return run

    for label, fn, hands in [
        ("rank5, single pack", rank5, single),
        (f"rank5, three packs ({dupes / n:.0%} with a duplicate)", rank5, multi),
        ("rank5_four_flush, three packs", rank5_four_flush, multi),
        ("best_value of 7 (21 fives), three packs", best_value, sevens),
    ]:
        t = best_of(5, loop(fn, hands))
        print(f"{label:52s} {len(hands) / t:12,.0f} hands/s")
    try:
        from phevaluator import evaluate_cards
    except ImportError:
        return
    ids = [tuple(_phe_id(c) for c in h) for h in single]

    def phe() -> None:
        for h in ids:
            evaluate_cards(*h)

    t = best_of(5, phe)
    print(f"{'phevaluator evaluate_cards (reference, single pack)':52s} {len(ids) / t:12,.0f} hands/s")


def _phe_id(card: Card) -> int:
    # phevaluator ids: 4 * rank + suit, rank 0 = deuce ... 12 = ace; suits c d h s
    return 4 * ((int(card.rank) - 2) % 13) + "CDHS".index(str(card)[1])


def play_match(players: int, seed: int, rules_name: str) -> GarbageGame:
    game = GarbageGame(players, rules=RULE_SETS[rules_name])
    rng = random.Random(seed)
    feeder = DeckFeeder.seeded(game.pack, seed)
    deal = 0
    while not game.over:
        if game.deal != deal:
            deal = game.deal
            feeder = DeckFeeder.seeded(game.pack, seed * 1000 + deal)
        if isinstance(game.step, AwaitCard):
            game.supply(feeder.next_card(game))
        else:
            game.play(choose_move(game, rng))
    return game


def bench_hands_of_play(matches: int) -> None:
    for rules_name in ("standard", "seven-card", "everything"):
        hands = matches * 6

        def run(rules_name: str = rules_name) -> None:
            for seed in range(matches):
                play_match(6, seed, rules_name)

        t = best_of(5, run)
        print(f"{'six players, one hand of four phases, ' + rules_name:52s} {t / hands * 1000:9.2f} ms/hand")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()
    bench_hands(args.hands)
    bench_hands_of_play(args.matches)


if __name__ == "__main__":
    main()
