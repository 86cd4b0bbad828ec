"""Chinese Ten engine speed: validating one move, and complete 3-player bot games per second.

Run: ``.venv/bin/python benchmarks/bench_chinese_ten.py`` (``--games``, ``--repeat``, ``--json``).
Single-threaded; each figure is the best of ``--repeat`` runs, as wall-clock and as process CPU
time (the CPU figure is steadier on a shared machine). A "game" includes the seeded shuffle, the
deal, three new bots and all 48 moves through the public verifying ``play``/``flip``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.cards import Card, shuffled, standard_pack  # noqa: E402
from table.chinese_ten import ChineseTenState, rules_by_name  # noqa: E402
from table.chinese_ten.bots import GreedyBot, RandomBot, play_out  # noqa: E402
from table.errors import IllegalMoveError  # noqa: E402


def mid_game_state(*, referee: bool = False) -> ChineseTenState:
    """Seed 7, three players, after six moves (seat 1 about to play)."""
    rules = rules_by_name("pagat")
    deck = shuffled(standard_pack(), 7)
    full = ChineseTenState.from_deck(rules, deck, players=3)
    bots = [GreedyBot(1), GreedyBot(2), GreedyBot(3)]
    for _ in range(6):
        full.apply(bots[full.to_act].choose(full))
    if not referee:
        return full
    state = ChineseTenState(rules, players=3, layout=full.initial_layout)
    for move in full.history:
        state.apply(move)
    return state


def per_call_us(fn: Callable[[], object], number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def bench_validation(repeat: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for label, referee in (("known deal", False), ("referee: hidden hands, unseen stock", True)):
        out.update(bench_state(mid_game_state(referee=referee), label, repeat))
    return out


def bench_state(state: ChineseTenState, label: str, repeat: int) -> dict[str, float]:
    out: dict[str, float] = {}
    seat = state.to_act
    hand = state.hand(seat) or tuple(c for c in standard_pack() if not state.is_seen(c))
    legal = next(iter(state.legal_moves))
    # a card that must capture, laid instead: refused with "capture is compulsory"
    must_capture: Card | None = next((c for c in hand if state.capture_options(c)), None)
    out[f"verify_play, legal ({label})"] = per_call_us(
        lambda: state.verify_play(seat, legal.card, legal.take), 20000, repeat
    )
    out[f"can_play, legal ({label})"] = per_call_us(lambda: state.can_play(seat, legal.card, legal.take), 20000, repeat)
    text_card, text_take = str(legal.card), [str(c) for c in legal.take]
    out[f"verify_play, cards as text ({label})"] = per_call_us(
        lambda: state.verify_play(seat, text_card, text_take), 20000, repeat
    )
    if must_capture is not None:
        card = must_capture

        def refuse() -> None:
            try:
                state.verify_play(seat, card, [])
            except IllegalMoveError:
                pass

        out[f"verify_play, refused with a reason ({label})"] = per_call_us(refuse, 20000, repeat)
    out[f"legal_moves, list all ({label})"] = per_call_us(lambda: list(state.legal_moves), 1000, repeat)
    return out


def bench_games(games: int, repeat: int, bot: type[RandomBot] | type[GreedyBot]) -> dict[str, float]:
    rules = rules_by_name("pagat")
    pack = standard_pack()

    def run() -> None:
        for seed in range(games):
            state = ChineseTenState.from_deck(rules, shuffled(pack, seed), players=3, dealer=seed % 3)
            play_out(state, [bot(seed), bot(seed + 1), bot(seed + 2)])

    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return {"games/s (wall)": games / wall, "games/s (cpu)": games / cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    validation = bench_validation(args.repeat)
    games = {
        key: bench_games(args.games, args.repeat, bot)
        for key, bot in (("random_bot_games", RandomBot), ("greedy_bot_games", GreedyBot))
    }
    if args.json:
        results = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "validation_us": validation,
            **games,
        }
        print(json.dumps(results, indent=1))
        return 0
    print(f"Python {platform.python_version()} on {platform.machine()}, one core, best of {args.repeat}")
    print("validating one move (mid-game, 3 players), microseconds per call:")
    for name, value in validation.items():
        print(f"  {name:<74} {value:7.2f} us")
    for key, rates in games.items():
        print(
            f"complete 3-player games, {key.split('_')[0]} bots ({args.games} games): "
            f"{rates['games/s (wall)']:.0f}/s wall, {rates['games/s (cpu)']:.0f}/s cpu"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
