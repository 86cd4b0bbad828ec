"""Measure a model on font-drawn styles it was never trained on: a validation set that is not the held-out designs.

    python -m models.training.validate_fonts --styles 960-1199 --jumbo --scenes 2 --seed 5

The held-out designs (``evaluate``) are what the model card reports and must not steer a change; a change
to the model or to how its readings are decided is chosen here, on ``font_faces`` styles outside the
trained range (training used 0-479), then measured once on the held-out designs. Cards are read through
their true outlines (the recogniser's ``classify_quads``, second look included), so the figure is the
classifier's, not the detector's. Besides named / unknown / wrong it counts the cards read as the other
suit of their colour (a club for a spade): the error a cut suit under a jumbo index invites. ``--pairs``
decides every card's final probabilities again under other ``min_confidence``/``min_margin`` pairs (those
with ``min_confidence`` up to ``SECOND_LOOK_BELOW``, so the cards given the second look are the same).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.training.build_crops import _style_range
from models.training.evaluate import NORMAL, add_both_corners_argument, add_zooms_argument
from models.training.synth import HARD, make_scene
from vision.classify import decide
from vision.errors import SettingError
from vision.recognizer import DEFAULT_MODEL, LABELS, SECOND_LOOK_BELOW, UNKNOWN, Recognizer

_OTHER_SUIT = {"C": "S", "S": "C", "D": "H", "H": "D"}


@dataclass
class Counts:
    cards: int = 0
    named: int = 0
    unknown: int = 0
    wrong: int = 0
    other_suit: int = 0  # wrong, and read as the same rank in the other suit of its colour

    def count(self, read: str, label: str) -> None:
        self.cards += 1
        if read == label:
            self.named += 1
        elif read == UNKNOWN:
            self.unknown += 1
        else:
            self.wrong += 1
            self.other_suit += label != "back" and read == label[0] + _OTHER_SUIT[label[1]]

    def rates(self) -> dict[str, float | int]:
        n = max(1, self.cards)
        return {"cards": self.cards, "named": round(self.named / n, 4), "unknown": round(self.unknown / n, 4),
                "wrong": round(self.wrong / n, 4), "other_suit": round(self.other_suit / n, 4)}


def validate(rec: Recognizer, styles: tuple[int, ...], scenes: int, seed: int,
             pairs: tuple[tuple[float, float], ...] = ()) -> dict[str, Counts]:
    """Counts for realistic and hard scenes, ``scenes`` of each per style, dealt from [seed, style]; with
    ``pairs``, also "realistic c/m" and "hard c/m": the same readings decided under each pair."""
    from models.training.font_faces import font_deck  # Pillow: a training-only dependency
    out = {"realistic": Counts(), "hard": Counts()}
    for conf, margin in pairs:
        if conf > SECOND_LOOK_BELOW:
            raise ValueError(f"min_confidence {conf} is over SECOND_LOOK_BELOW ({SECOND_LOOK_BELOW}): cards "
                             "named under it would not have had the second look, so it cannot be decided again")
        out |= {f"{kind} {conf}/{margin}": Counts() for kind in ("realistic", "hard")}
    for style in styles:
        deck = font_deck(style)
        rng = np.random.default_rng([seed, style])
        for kind, spec in (("realistic", NORMAL), ("hard", HARD)):
            for _ in range(scenes):
                scene = make_scene(rng, deck, spec)
                if not scene.cards:
                    continue
                read = rec.classify_quads(scene.image, [q for _, q in scene.cards])
                labels = [label for label, _ in scene.cards]
                for r, label in zip(read, labels, strict=True):
                    out[kind].count(r.card, label)
                if not pairs:
                    continue
                # an outline the model calls "not a card" stays unknown under every pair
                not_card = [r.presence < 1.0 - rec.meta.not_a_card for r in read]
                probs = np.stack([r.probabilities for r in read])
                for conf, margin in pairs:
                    again = decide(probs, LABELS, conf, margin, UNKNOWN)
                    for (name, _), label, off in zip(again, labels, not_card, strict=True):
                        out[f"{kind} {conf}/{margin}"].count(UNKNOWN if off else name, label)
    return out


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--styles", type=_style_range, default=_style_range("960-1199"), metavar="A-B",
                    help="font_faces styles (never trained: training used 0-479)")
    ap.add_argument("--jumbo", action="store_true", help="only the styles with jumbo indices")
    ap.add_argument("--scenes", type=int, default=2, help="realistic and hard scenes per style")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--pairs", nargs="*", type=_pair, default=[], metavar="CONF/MARGIN",
                    help="also decide the readings under these min_confidence/min_margin pairs, e.g. 0.4/0.1")
    add_zooms_argument(ap)
    add_both_corners_argument(ap)
    args = ap.parse_args(argv)
    from models.training.font_faces import is_jumbo
    styles = tuple(s for s in args.styles if is_jumbo(s)) if args.jumbo else args.styles
    try:
        rec = Recognizer(args.model, second_look_zooms=args.zooms,
                         one_corner_sure=args.one_corner_sure)
    except SettingError as e:
        ap.error(str(e))
    try:
        counts = validate(rec, styles, args.scenes, args.seed, tuple(args.pairs))
    except ValueError as e:
        ap.error(str(e))
    result: dict[str, object] = {"command": "python -m models.training.validate_fonts " + " ".join(sys.argv[1:] if argv is None else argv),
                                 "model": str(args.model), "styles": len(styles),
                                 **{k: v.rates() for k, v in counts.items()}}
    print(json.dumps(result, indent=2))
    return result


def _pair(text: str) -> tuple[float, float]:
    conf, sep, margin = text.partition("/")
    try:
        if sep:
            return float(conf), float(margin)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"expected MIN_CONFIDENCE/MIN_MARGIN such as 0.4/0.1, got {text!r}")


if __name__ == "__main__":
    main()
