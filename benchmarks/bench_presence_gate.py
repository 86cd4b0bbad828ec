"""Which detected outlines may start a card track: the tracker's presence gate, measured.

    .venv/bin/python benchmarks/bench_presence_gate.py [--scenes 20] [--model models/cardnet.onnx]

The tracker (``vision/tracker.py``) starts a track for a new sighting when its top label's probability is
at least ``min_presence`` or, failing that, when the model's "not a card" output is at most
``1 - card_presence``. Every outline the detector finds in held-out scenes (realistic and hard, as
``models.training.evaluate``) and on clutter-only tables is put through the recogniser's model and sorted
into *true cards* (matching a card's outline) and *false outlines* (the rest; the recogniser already drops
those with "not a card" >= 0.5). Printed: how many of each each rule lets start a track.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.dataset import match  # noqa: E402
from models.training.evaluate import NORMAL, held_out_scenes  # noqa: E402
from models.training.synth import HARD, make_scene  # noqa: E402
from vision.detect import detect_cards  # noqa: E402
from vision.recognizer import DEFAULT_MODEL, Recognizer  # noqa: E402
from vision.rectify import order_corners  # noqa: E402
from vision.tracker import TrackerConfig  # noqa: E402


def sightings(
    rec: Recognizer, image: np.ndarray, truth: list[tuple[str, np.ndarray]]
) -> list[tuple[bool, float, float]]:
    """(is a true card, top label's probability, presence) per outline the recogniser keeps."""
    quads = [order_corners(q) for q in detect_cards(image, rec.detector)]  # as match expects them
    cards = {id(q) for q in (match(t, quads) for _, t in truth) if q is not None}
    return [
        (id(q) in cards, r.confidence, r.presence)
        for q, r in zip(quads, rec.classify_quads(image, quads), strict=True)
        if r.presence > 1 - rec.meta.not_a_card
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design and kind")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    args = ap.parse_args()
    rec = Recognizer(args.model)
    rows: list[tuple[bool, float, float]] = []
    for spec, seed in ((NORMAL, 7), (HARD, 8)):
        for _, scene in held_out_scenes(designs.held_out_decks(), spec, args.scenes, seed):
            rows += sightings(rec, scene.image, scene.cards)
    rng = np.random.default_rng(9)
    for _ in range(args.scenes * 6):
        scene = make_scene(rng, None, replace(NORMAL, n_cards=0, clutter=int(rng.integers(2, 7))))
        rows += sightings(rec, scene.image, [])
    cfg = TrackerConfig()
    card = np.array([r[0] for r in rows], bool)
    conf = np.array([r[1] for r in rows])
    presence = np.array([r[2] for r in rows])
    rules = {
        f"label probability >= {cfg.min_presence} (before)": conf >= cfg.min_presence,
        f"... or card presence >= {cfg.card_presence} (now)": (conf >= cfg.min_presence)
        | (presence >= cfg.card_presence),
        "every outline the recogniser keeps": np.ones(len(rows), bool),
    }
    out = {
        "command": f"benchmarks/bench_presence_gate.py --scenes {args.scenes}",
        "model": args.model.name,
        "true_cards": int(card.sum()),
        "false_outlines": int((~card).sum()),
        "rules": {
            name: {"true_cards_started": int((keep & card).sum()), "false_outlines_started": int((keep & ~card).sum())}
            for name, keep in rules.items()
        },
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
