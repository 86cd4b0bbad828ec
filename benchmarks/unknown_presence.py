"""How sure the model is that an outline read ``unknown`` is a card: the basis of ``unknown_not_a_card``.

    .venv/bin/python benchmarks/unknown_presence.py [--styles 960-1199] [--seed 5] [--calibrated]

The validation set's frames (``models.training.validate_fonts.validation_scenes``: untrained font styles, one realistic
and one
hard scene per style) through the recogniser with ``unknown_not_a_card`` set back to ``not_a_card``, so that
every outline read ``unknown`` is reported. For each presence bar (1 - the model's "not a card" output) it
counts the outlines read ``unknown`` under it that match no card (false cards a lower bar would drop) and
those that match a card (cards it would lose from *found*; *named* cannot change, an ``unknown`` is not named).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training.build_crops import style_range  # noqa: E402
from models.training.evaluate import matched_outlines  # noqa: E402
from models.training.validate_fonts import validation_scenes  # noqa: E402
from vision.events import UNKNOWN  # noqa: E402
from vision.recognizer import Recognition, Recognizer  # noqa: E402

BARS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)


class Outline(NamedTuple):
    """One outline the recogniser reported."""

    matched: bool  # it outlines a true card
    unknown: bool  # it was read ``unknown``
    presence: float  # 1 - the model's "not a card" output


def outlines_of(truth: list[tuple[str, np.ndarray]], seen: list[Recognition]) -> list[Outline]:
    """Each reported outline of a frame, judged against the frame's true cards (``evaluate.matched_outlines``)."""
    used = set(matched_outlines(truth, [r.corners for r in seen]))
    return [Outline(i in used, r.card == UNKNOWN, r.presence) for i, r in enumerate(seen)]


def summary(rows: list[Outline], bars: tuple[float, ...] = BARS) -> dict[str, object]:
    """The false cards, those of them read unknown and the cards read unknown; and per presence bar, how many
    of the outlines read unknown are under it: false cards the bar would drop, and cards it would lose."""
    return {
        "false_cards": sum(not r.matched for r in rows),
        "false_read_unknown": sum(not r.matched and r.unknown for r in rows),
        "cards_read_unknown": sum(r.matched and r.unknown for r in rows),
        "under_bar": {
            str(bar): {
                "false_cards": sum(not r.matched and r.unknown and r.presence < bar for r in rows),
                "cards": sum(r.matched and r.unknown and r.presence < bar for r in rows),
            }
            for bar in bars
        },
    }


def every_unknown(rec: Recognizer) -> Recognizer:
    """``rec`` reporting every outline it reads unknown: ``unknown_not_a_card`` set back to ``not_a_card``
    (the bar this benchmark measures would otherwise have dropped the very outlines it counts)."""
    rec.meta = dataclasses.replace(rec.meta, unknown_not_a_card=rec.meta.not_a_card)
    return rec


def measure(
    rec: Recognizer, styles: tuple[int, ...], seed: int, *, calibrated: bool = False
) -> dict[str, list[Outline]]:
    """Every outline ``rec`` reports in the validation set's frames of ``styles``, by kind of scene."""
    outlines: dict[str, list[Outline]] = {"realistic": [], "hard": []}
    for _, kind, _, scene in validation_scenes(styles, 1, seed):
        seen = rec.recognize(scene.image, plane=scene.plane if calibrated else None)
        outlines[kind] += outlines_of(scene.cards, seen)
    return outlines


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--styles", type=style_range, default=style_range("960-1199"), metavar="A-B")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--calibrated", action="store_true", help="give each frame its table plane")
    args = ap.parse_args(argv)
    outlines = measure(every_unknown(Recognizer()), args.styles, args.seed, calibrated=args.calibrated)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    result: dict[str, object] = {"command": "benchmarks/unknown_presence.py " + command, "styles": len(args.styles)}
    result |= {kind: summary(rows) for kind, rows in outlines.items()}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
