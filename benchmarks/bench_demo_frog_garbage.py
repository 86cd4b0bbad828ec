"""Frog and Garbage at the table: seeded demo games with cheating bots through the real controller
(journal, table loop, mock-pin seat buttons, dealer commands), scored against the simulation's truth.

    .venv/bin/python benchmarks/bench_demo_frog_garbage.py [--games 20] [--cheat 0.1] [--kills 10]
    .venv/bin/python benchmarks/bench_demo_frog_garbage.py --vision [--games 10] [--deals 1]


For each game: does the refereed result equal the truth, how many cheats were committed, flagged
and missed, how many flags matched no cheat (invented). Rule sets, player counts and the dealer's
card reader vary with the seed. Then ``--kills`` games per game type are killed and restarted three
times at random world steps and must still end with the true result. Prints one JSON object.

``--vision``: Frog only, through the real camera pipeline (simulated camera frames, the ONNX
recogniser, the watcher and tracker) instead of the direct senses; ``--deals`` deals per game
(default: the rule set's session); no kills.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

from table.demo.run_frog_garbage import FrogGarbageDemo, run

FROG = (("foster-1909", 3), ("modern", 4), ("foster-1909", 5), ("solo-slough", 6), ("straight-solo", 7),
        ("coeur-d-alene", 3), ("modern", 3))
GARBAGE = (("standard", 3), ("four-flush", 4), ("seven-card", 5), ("stud", 4), ("buy", 6), ("short", 8),
           ("bingo-kitty", 5), ("high-stakes", 3), ("everything", 4))


def games(game: str, count: int, cheat: float, folder: Path, *, kills: bool, senses: str = "direct",
          deals: int | None = None) -> dict[str, Any]:
    table = FROG if game == "frog" else GARBAGE
    rows = []
    for seed in range(count):
        rules, players = table[seed % len(table)]
        reader = seed % 3 != 2
        kill_at: tuple[int, ...] = ()
        if kills:
            rng = random.Random(seed)
            kill_at = tuple(sorted(rng.randrange(5, 120 if game == "frog" else 200) for _ in range(3)))
        cfg = FrogGarbageDemo(game, rules=rules, players=players, seed=seed, cheat=cheat, card_reader=reader,
                              journal=folder / f"{game}-{seed}-{int(kills)}.db", kill_at=kill_at, timeout=300,
                              senses=senses, deals=deals if game == "frog" else None)
        out = run(cfg)
        rows.append({"seed": seed, "rules": rules, "players": players, "card_reader": reader,
                     "agree": out.agree, "cheats": len(out.cheats), "flagged": len(out.cheats) - len(out.missed),
                     "missed": len(out.missed), "invented": len(out.invented), "restarts": out.restarts,
                     "seconds": round(out.seconds, 2), "error": out.error})
    return {
        "games": len(rows),
        "agree": sum(r["agree"] for r in rows),
        "cheats": sum(r["cheats"] for r in rows),
        "flagged": sum(r["flagged"] for r in rows),
        "missed": sum(r["missed"] for r in rows),
        "invented": sum(r["invented"] for r in rows),
        "restarts": sum(r["restarts"] for r in rows),
        "mean_seconds": round(statistics.mean(r["seconds"] for r in rows), 2),
        "max_seconds": max(r["seconds"] for r in rows),
        "failures": [r for r in rows if not r["agree"] or r["missed"] or r["invented"] or r["error"]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cheat", type=float, default=0.1)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--vision", action="store_true", help="Frog through the real camera pipeline")
    parser.add_argument("--deals", type=int, default=None, help="with --vision: Frog deals per game")
    args = parser.parse_args()
    out: dict[str, Any] = {"cheat": args.cheat}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.vision:
            out["senses"] = "vision"
            out["deals_per_game"] = args.deals
            out["frog"] = games("frog", args.games, args.cheat, folder, kills=False, senses="vision",
                                deals=args.deals)
            print(json.dumps(out, indent=1))
            return
        for game in ("frog", "garbage"):
            out[game] = games(game, args.games, args.cheat, folder, kills=False)
            out[f"{game}_killed"] = games(game, args.kills, args.cheat, folder, kills=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
