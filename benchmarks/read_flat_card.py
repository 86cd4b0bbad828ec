"""How the model reads one held-out card laid flat and square on green felt, through its true outline.

    .venv/bin/python benchmarks/read_flat_card.py --design gnome:plastic --cards QC QS --widths 80 100 130 180
    .venv/bin/python benchmarks/read_flat_card.py --model .cache/cardnet_jbq.onnx --cards QC
    .venv/bin/python benchmarks/read_flat_card.py --cards QC --zooms       # the second look without zoomed crops

No perspective, blur or light: what is left is the model's reading of the design's index. For each card and
width it prints the first look's three best labels, the recogniser's decision after the second look with its
three best, and the suit shares of the suit look (crops moved ``SUIT_LOOK_SHIFT`` down the card).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.training.designs import held_out_decks  # noqa: E402
from models.training.evaluate import add_zooms_argument  # noqa: E402
from models.training.synth import flat_frame  # noqa: E402
from vision.recognizer import _SUIT_OF_FACE, DEFAULT_MODEL, LABELS, SUIT_LOOK_SHIFT, Recognizer  # noqa: E402


def _top(p: np.ndarray, k: int = 3) -> str:
    return " ".join(f"{LABELS[i]} {p[i]:.2f}" for i in np.argsort(p)[::-1][:k])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--design", default="gnome:plastic")
    ap.add_argument("--cards", nargs="+", default=["QC"])
    ap.add_argument("--widths", type=int, nargs="+", default=[80, 100, 130, 180])
    add_zooms_argument(ap)
    args = ap.parse_args()
    decks = held_out_decks()
    if args.design not in decks:
        ap.error(f"{args.design!r} is not a held-out design ({', '.join(sorted(decks))})")
    deck = decks[args.design]
    rec = Recognizer(args.model, second_look_zooms=args.zooms)
    print(f"{args.model.name}, {args.design}, flat on felt, true outlines")
    for card in args.cards:
        for width in args.widths:
            frame, quad = flat_frame(deck(card), width)
            raw = rec.model_probabilities(frame, [quad])[0, : len(LABELS)]
            first = raw / raw.sum()
            read = rec.classify_quads(frame, [quad])[0]
            suits = rec._infer(rec._crops(frame, [quad], shift=SUIT_LOOK_SHIFT))[0, : len(LABELS) - 1] @ _SUIT_OF_FACE
            print(
                f"{card} {width:4d} px  first: {_top(first)}  |  decided {read.card} ({_top(read.probabilities)})"
                f"  |  suit look C {suits[0]:.2f} D {suits[1]:.2f} H {suits[2]:.2f} S {suits[3]:.2f}"
            )


if __name__ == "__main__":
    main()
