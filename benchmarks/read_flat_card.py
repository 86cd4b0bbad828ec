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

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.training.designs import held_out_decks  # noqa: E402
from vision.recognizer import _SUIT_OF_FACE, DEFAULT_MODEL, LABELS, SUIT_LOOK_SHIFT, Recognizer  # noqa: E402

FELT = (40, 110, 40)


def flat_frame(card: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """A 1280x720 felt frame with the BGRA ``card`` pasted ``width`` px wide, and its outline."""
    height = round(width * card.shape[0] / card.shape[1])
    small = cv2.resize(card, (width, height), interpolation=cv2.INTER_AREA).astype(np.float32)
    frame = np.full((720, 1280, 3), FELT, np.uint8)
    x, y = 400, 200
    alpha = small[:, :, 3:] / 255.0
    region = frame[y:y + height, x:x + width].astype(np.float32)
    frame[y:y + height, x:x + width] = (small[:, :, :3] * alpha + region * (1 - alpha) + 0.5).astype(np.uint8)
    quad = np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]], np.float32) - 0.5
    return frame, quad


def _top(p: np.ndarray, k: int = 3) -> str:
    return " ".join(f"{LABELS[i]} {p[i]:.2f}" for i in np.argsort(p)[::-1][:k])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--design", default="gnome:plastic")
    ap.add_argument("--cards", nargs="+", default=["QC"])
    ap.add_argument("--widths", type=int, nargs="+", default=[80, 100, 130, 180])
    ap.add_argument("--zooms", type=float, nargs="*", metavar="Z",
                    help="the second look's zoomed-out crops other than the shipped ones (none: without them)")
    args = ap.parse_args()
    decks = held_out_decks()
    if args.design not in decks:
        ap.error(f"{args.design!r} is not a held-out design ({', '.join(sorted(decks))})")
    deck = decks[args.design]
    rec = Recognizer(args.model, **({} if args.zooms is None else {"second_look_zooms": args.zooms}))
    print(f"{args.model.name}, {args.design}, flat on felt, true outlines")
    for card in args.cards:
        for width in args.widths:
            frame, quad = flat_frame(deck(card), width)
            raw = rec.model_probabilities(frame, [quad])[0, :len(LABELS)]
            first = raw / raw.sum()
            read = rec.classify_quads(frame, [quad])[0]
            suits = rec._infer(rec._crops(frame, [quad], shift=SUIT_LOOK_SHIFT))[0, :len(LABELS) - 1] @ _SUIT_OF_FACE
            print(f"{card} {width:4d} px  first: {_top(first)}  |  decided {read.card} ({_top(read.probabilities)})"
                  f"  |  suit look C {suits[0]:.2f} D {suits[1]:.2f} H {suits[2]:.2f} S {suits[3]:.2f}")


if __name__ == "__main__":
    main()
