"""What the pip look costs: classification time per frame with and without it, on the held-out designs'
realistic and hard scenes.

    .venv/bin/python benchmarks/pip_look_cost.py [--scenes 4] [--seed 2024]

Each frame's cards are classified through their true outlines (``classify_quads``, no detection) by two
recognisers, one with ``pip_look=False`` and one with the shipped pip look, alternating which goes first;
one thread, process CPU time. Realistic scenes are dealt as ``models.training.evaluate`` deals them from
``--seed``, hard ones from ``--seed + 1``. Prints per kind the mean and median per frame both ways, the cards
per frame the pip model read, and the extra milliseconds per card it read.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.training.designs import held_out_decks  # noqa: E402
from models.training.evaluate import NORMAL, held_out_scenes  # noqa: E402
from models.training.synth import HARD  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=4, help="scenes per held-out design and kind")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    without, with_look = Recognizer(threads=1, pip_look=False), Recognizer(threads=1)
    assert with_look.pip_look is not None
    read = with_look.pip_look.read
    looked: list[int] = []

    def counting(frame: object, quads: list[object]) -> object:
        looked[-1] += len(quads)
        return read(frame, quads)  # type: ignore[arg-type]

    with_look.pip_look.read = counting  # type: ignore[method-assign,assignment]
    decks = held_out_decks()
    for kind, spec, seed in (("realistic", NORMAL, args.seed), ("hard", HARD, args.seed + 1)):
        times: dict[str, list[float]] = {"without": [], "with": []}
        per_frame: list[int] = []
        for i, (_, scene) in enumerate(held_out_scenes(decks, spec, args.scenes, seed)):
            quads = [q for _, q in scene.cards]
            order: list[tuple[str, Recognizer]] = [("without", without), ("with", with_look)]
            for name, rec in order if i % 2 else order[::-1]:
                if name == "with":
                    looked.append(0)
                t0 = time.process_time()
                rec.classify_quads(scene.image, quads)
                times[name].append((time.process_time() - t0) * 1000)
            per_frame.append(looked[-1])
        mean = {k: statistics.fmean(v) for k, v in times.items()}
        cards = statistics.fmean(per_frame)
        print(f"{kind}: {len(per_frame)} frames, {cards:.2f} cards per frame read by the pip model")
        for k, v in times.items():
            print(
                f"  classify {k} the pip look: mean {mean[k]:.2f} ms, median {statistics.median(v):.2f} ms per frame "
                "(process CPU)"
            )
        extra = mean["with"] - mean["without"]
        print(f"  the pip look: +{extra:.2f} ms per frame, {extra / max(cards, 1e-9):.2f} ms per card it read")


if __name__ == "__main__":
    main()
