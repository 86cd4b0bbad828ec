"""What the second look's zoomed crops cost: classification time per frame with and without them, on the
held-out designs' hard scenes, where many cards are unsure.

    .venv/bin/python benchmarks/second_look_cost.py [--scenes 4] [--seed 2025] [--zooms 1.15 1.3]

Each frame's cards are classified through their true outlines (``classify_quads``, no detection) by two
recognisers, one with ``second_look_zooms=()`` and one with ``--zooms``, alternating which goes first;
one thread, process CPU time. Prints the mean and median per frame, the cards per frame that got the
second look, and the extra milliseconds per unsure card.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.training.designs import held_out_decks  # noqa: E402
from models.training.synth import HARD, make_scene  # noqa: E402
from vision.events import UNKNOWN  # noqa: E402
from vision.recognizer import SECOND_LOOK_BELOW, SECOND_LOOK_ZOOMS, Recognizer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=4, help="hard scenes per held-out design")
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--zooms", type=float, nargs="+", default=list(SECOND_LOOK_ZOOMS))
    args = ap.parse_args()
    without = Recognizer(threads=1, second_look_zooms=())
    with_zooms = Recognizer(threads=1, second_look_zooms=args.zooms)
    first_only = Recognizer(threads=1, second_look=False)
    times: dict[str, list[float]] = {"without": [], "with": []}
    unsure_per_frame: list[int] = []
    for d, (_, deck) in enumerate(sorted(held_out_decks().items())):
        rng = np.random.default_rng([args.seed, d])
        for i in range(args.scenes):
            scene = make_scene(rng, deck, HARD)
            quads = [q for _, q in scene.cards]
            first = first_only.classify_quads(scene.image, quads)
            unsure_per_frame.append(sum(r.card == UNKNOWN or r.confidence < SECOND_LOOK_BELOW for r in first))
            order = [("without", without), ("with", with_zooms)]
            for name, rec in order if i % 2 else order[::-1]:
                t0 = time.process_time()
                rec.classify_quads(scene.image, quads)
                times[name].append((time.process_time() - t0) * 1000)
    frames = len(unsure_per_frame)
    mean = {k: statistics.fmean(v) for k, v in times.items()}
    print(f"{frames} hard frames, {statistics.fmean(unsure_per_frame):.2f} cards per frame get the second look")
    for k, v in times.items():
        print(
            f"classify {k} zooms: mean {mean[k]:.2f} ms, median {statistics.median(v):.2f} ms per frame (process CPU)"
        )
    extra = (mean["with"] - mean["without"]) / max(1e-9, statistics.fmean(unsure_per_frame))
    print(
        f"zooms {tuple(args.zooms)}: +{mean['with'] - mean['without']:.2f} ms per frame, {extra:.2f} ms per unsure card"
    )


if __name__ == "__main__":
    main()
