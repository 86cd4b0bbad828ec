"""How sure the model is that an outline read ``unknown`` is a card: the basis of ``unknown_not_a_card``.

    .venv/bin/python benchmarks/unknown_presence.py [--styles 960-1199] [--seed 5] [--calibrated]

The validation set's frames (``models.training.validate_fonts.validation_scenes``: untrained font styles, one realistic and one
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training.build_crops import _style_range  # noqa: E402
from models.training.evaluate import matched_outlines  # noqa: E402
from models.training.validate_fonts import validation_scenes  # noqa: E402
from vision.recognizer import UNKNOWN, Recognizer  # noqa: E402

BARS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--styles", type=_style_range, default=_style_range("960-1199"), metavar="A-B")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--calibrated", action="store_true", help="give each frame its table plane")
    args = ap.parse_args()
    rec = Recognizer()
    rec.meta = dataclasses.replace(rec.meta, unknown_not_a_card=rec.meta.not_a_card)  # see every unknown
    # kind -> (matched a card?, read unknown?, presence) per outline
    outlines: dict[str, list[tuple[bool, bool, float]]] = {"realistic": [], "hard": []}
    for _, kind, _, scene in validation_scenes(args.styles, 1, args.seed):
        seen = rec.recognize(scene.image, plane=scene.plane if args.calibrated else None)
        used = set(matched_outlines(scene.cards, [r.corners for r in seen]))
        outlines[kind] += [(i in used, r.card == UNKNOWN, r.presence) for i, r in enumerate(seen)]
    result: dict[str, object] = {"command": "benchmarks/unknown_presence.py " + " ".join(sys.argv[1:]),
                                 "styles": len(args.styles)}
    for kind, rows in outlines.items():
        result[kind] = {
            "false_cards": sum(not m for m, _, _ in rows),
            "false_read_unknown": sum(not m and u for m, u, _ in rows),
            "cards_read_unknown": sum(m and u for m, u, _ in rows),
            "under_bar": {str(bar): {"false_cards": sum(not m and u and p < bar for m, u, p in rows),
                                     "cards": sum(m and u and p < bar for m, u, p in rows)} for bar in BARS},
        }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
