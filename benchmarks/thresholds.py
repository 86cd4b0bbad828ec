"""How the `unknown` thresholds trade named cards against wrong names, on held-out designs.

    .venv/bin/python benchmarks/thresholds.py [--scenes 8] [--seeds 2024 99]

The recogniser names a card only when its top label's probability is at least ``min_confidence`` and leads
the second by ``min_margin`` (the model's metadata holds the shipped pair); otherwise it says `unknown`.
Here every held-out scene ``models.training.evaluate`` deals for each seed (realistic and hard) is run once,
and each found card's probabilities are decided again under several pairs: named and wrong, as a share of
all cards. A wrong name is worse at the table than `unknown` (the tracker waits for a better frame), so
this shows what a stricter pair would cost.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.dataset import match  # noqa: E402
from models.training.evaluate import NORMAL, held_out_scenes  # noqa: E402
from models.training.synth import HARD  # noqa: E402
from vision.classify import decide  # noqa: E402
from vision.events import UNKNOWN  # noqa: E402
from vision.recognizer import LABELS, Recognizer  # noqa: E402

PAIRS = ((0.45, 0.15), (0.55, 0.15), (0.6, 0.2), (0.65, 0.2), (0.7, 0.25), (0.75, 0.3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=8, help="scenes per held-out design, kind and seed")
    ap.add_argument("--seeds", type=int, nargs="+", default=[2024, 99])
    args = ap.parse_args()
    rec = Recognizer()
    held = designs.held_out_decks()
    found: dict[str, list[tuple[str, np.ndarray | None]]] = {"realistic": [], "hard": []}
    for seed in args.seeds:
        for spec, offset, kind in ((NORMAL, 0, "realistic"), (HARD, 1, "hard")):
            for _, scene in held_out_scenes(held, spec, args.scenes, seed + offset):
                seen = rec.recognize(scene.image)
                quads = [r.corners for r in seen]
                for label, quad in scene.cards:
                    q = match(quad, quads)
                    probs = None if q is None else next(r for r in seen if r.corners is q).probabilities
                    found[kind].append((label, probs))
    rows = []
    for kind, cards in found.items():
        for conf, margin in PAIRS:
            named = wrong = 0
            for label, probs in cards:
                if probs is None:
                    continue
                ((read, _),) = decide(probs[None], LABELS, conf, margin, UNKNOWN)
                named += read == label
                wrong += read not in (label, UNKNOWN)
            rows.append(
                {
                    "kind": kind,
                    "cards": len(cards),
                    "min_confidence": conf,
                    "min_margin": margin,
                    "shipped": (conf, margin) == (rec.min_confidence, rec.min_margin),
                    "named_pct": round(100 * named / len(cards), 2),
                    "wrong_pct": round(100 * wrong / len(cards), 2),
                }
            )
    command = f"benchmarks/thresholds.py --scenes {args.scenes} --seeds {' '.join(map(str, args.seeds))}"
    print(json.dumps({"command": command, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
