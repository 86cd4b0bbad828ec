"""Build a batch of training crops into a file (lets several batches be made in parallel).

python -m models.training.build_crops --scenes 2000 --seed 11 --out .cache/crops_11.npz
python -m models.training.build_crops --decks fonts --scenes 1500 --seed 41 --out .cache/crops_f41.npz
python -m models.training.build_crops --decks fonts --font-styles 240-479 --scenes 1500 --seed 51 --out ...
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from models.training import dataset, designs


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m models.training.build_crops", description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--hard-share",
        type=float,
        default=0.3,
        help="share of hard scenes (small, close, glare, tilt) among the scenes with cards",
    )
    ap.add_argument(
        "--decks",
        choices=("designs", "fonts", "all"),
        default="designs",
        help="designs: rendered Debian designs and vision.faces drawings; fonts: faces drawn with "
        "the installed fonts (models/training/font_faces.py); all: both",
    )
    ap.add_argument(
        "--font-share", type=float, default=0.3, help="with --decks all: share of scenes dealt from a font-drawn deck"
    )
    ap.add_argument(
        "--font-styles",
        type=style_range,
        default=designs.FONT_STYLES,
        metavar="A-B",
        help="font_faces styles to deal from (default 0-239; from 240 on the pip field varies "
        "and some indices are jumbo)",
    )
    ap.add_argument(
        "--jumbo", action="store_true", help="deal only from the font styles of --font-styles with jumbo indices"
    )
    add_realism(ap)
    return ap


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.jumbo:
        from models.training.font_faces import is_jumbo  # Pillow: a training-only dependency

        args.font_styles = tuple(s for s in args.font_styles if is_jumbo(s))
    decks = {} if args.decks == "fonts" else designs.training_decks()
    if args.decks != "designs":
        decks |= designs.font_decks(args.font_styles)
    crops, labels, stats = dataset.build(
        decks, args.scenes, args.seed, hard_share=args.hard_share, font_share=args.font_share, realism=args.realism
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # The deck names and this command travel with the crops, for the record of a fine-tune on them.
    command = "python -m models.training.build_crops " + " ".join(sys.argv[1:] if argv is None else argv)
    np.savez(args.out, crops=crops, labels=labels, decks=np.array(sorted(decks)), command=np.array(command))
    print(
        f"{args.out}: {len(labels)} examples, detector found {stats['detected']}/{stats['cards']} cards, "
        f"{stats['negatives']} negatives",
        flush=True,
    )


def add_realism(ap: argparse.ArgumentParser) -> None:
    """The ``--realism P`` option (``synth.SceneSpec.realism``), for every command that deals scenes."""
    ap.add_argument(
        "--realism",
        type=probability,
        default=0.0,
        metavar="P",
        help="chance that a scene gets the look of a real photograph of printed cards (models/training/photo_look.py)",
    )


def probability(text: str) -> float:
    """A chance from 0 to 1, for argparse."""
    try:
        p = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= p <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    return p


def style_range(text: str) -> tuple[int, ...]:
    a, _, b = text.partition("-")
    try:
        lo, hi = int(a), int(b or a)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a style range such as 240-479, got {text!r}") from None
    if lo < 0 or hi < lo:
        raise argparse.ArgumentTypeError(f"empty or negative style range {text!r}")
    return tuple(range(lo, hi + 1))


if __name__ == "__main__":
    main()
