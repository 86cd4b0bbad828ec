"""Every held-out card the recogniser does not name, and why: missed, unknown or wrong, with what the
detector and the model saw of it.

    .venv/bin/python benchmarks/missed_cards.py [--kind realistic|hard] [--scenes 20] [--seed 99]
                                                [--calibrated] [--json] [--zooms Z ...]

The frames are those of ``models.training.evaluate`` (same seeds, realistic scenes at ``--seed``, hard ones
at ``--seed + 1``), run through the ``Recognizer`` users run. For each card not named it reports:

* ``kind``: ``missed`` (no outline matches it: corners within 12% of its width), ``unknown`` or ``wrong``;
* ``support``: the share of its true outline's weakest side that lies on the detector's edge map
  (``vision.detect.outline_support``). A missed card whose support is ~1.0 had every side on edges: the
  detector lacked an outline to try, not the evidence;
* ``nearest``: for a missed card, the largest corner error of the nearest reported outline, in card widths
  (``null``: none within a third of a width of its centre), and ``corners_off``: how many of that outline's
  corners are off by more than 12% of a width (one: a side fitted onto a shadow's or the cloth's edge);
* ``true_outline``: what the model names through the true outline (``model only``);
* the design, the card, whether it is a court card (J, Q, K), and the camera blur of the frame.

The summary counts each kind, the missed cards by support and by nearest outline, and the share of court
cards among the missed against their share among all cards.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.dataset import corner_error, match  # noqa: E402
from models.training.evaluate import add_zooms_argument, blur_class, held_out_scenes, kind_spec  # noqa: E402
from models.training.synth import Scene  # noqa: E402
from vision.detect import outline_support  # noqa: E402
from vision.detector_config import DetectorConfig  # noqa: E402
from vision.detector_settings import detector_config  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402
from vision.rectify import order_corners  # noqa: E402


def nearest_error(truth: np.ndarray, quads: list[np.ndarray]) -> tuple[float, int] | None:
    """For the outline near ``truth``'s centre with the smallest largest-corner error: that error (in card
    widths) and how many of its corners are off by more than the 12% that ``match`` allows. None: no outline
    within a third of a width of its centre."""
    t = order_corners(truth)
    width = float(np.linalg.norm(t[0] - t[1]))
    near = [q for q in quads if np.linalg.norm(q.mean(0) - t.mean(0)) <= width / 3]
    if not near:
        return None
    q = min(near, key=lambda q: corner_error(t, q))
    per_corner = min((np.abs(q - o).max(axis=1) for o in (t, np.roll(t, 2, axis=0))), key=lambda e: float(e.max()))
    return round(corner_error(t, q) / width, 3), int((per_corner > 0.12 * width).sum())


def add_frame_arguments(ap: argparse.ArgumentParser, *, kind: str, given: str) -> None:
    """The held-out frames' arguments of this module and the benchmarks that share its report (``--kind``,
    ``--scenes``, ``--seed``, ``--calibrated``: each scene's table plane given to ``given``)."""
    ap.add_argument("--kind", choices=("realistic", "hard"), default=kind)
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--calibrated", action="store_true", help=f"give the {given} each scene's table plane")


def add_detector_argument(ap: argparse.ArgumentParser) -> None:
    """``--detector FIELD=VALUE ...``: detector settings other than the shipped ones, for the benchmarks that run
    the detector on ``add_frame_arguments``' frames (read back by ``detector_from``)."""
    ap.add_argument(
        "--detector",
        action="extend",
        nargs="+",
        default=[],
        metavar="FIELD=VALUE",
        help="detector settings other than the shipped ones (DetectorConfig fields)",
    )


def detector_from(ap: argparse.ArgumentParser, args: argparse.Namespace) -> DetectorConfig:
    """The detector ``--detector`` asks for; a setting that names no field or gives a bad value ends the
    program with argparse's usage error."""
    try:
        return detector_config(args.detector)
    except ValueError as exc:
        ap.error(str(exc))


def held_out_frames(args: argparse.Namespace) -> Iterator[tuple[int, str, Scene]]:
    """(index, design, scene) for the frames ``add_frame_arguments``' arguments name: ``models.training.evaluate``'s
    held-out scenes (realistic ones at ``--seed``, hard ones at ``--seed + 1``)."""
    spec, seed = kind_spec(args.kind, args.seed)
    for index, (design, scene) in enumerate(held_out_scenes(designs.held_out_decks(), spec, args.scenes, seed)):
        yield index, design, scene


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_frame_arguments(ap, kind="realistic", given="recogniser")
    ap.add_argument("--json", action="store_true", help="one JSON object per card not named, then the summary")
    add_zooms_argument(ap)
    args = ap.parse_args()
    rec = Recognizer(threads=1, second_look_zooms=args.zooms)
    cases: list[dict[str, Any]] = []
    cards = courts = 0
    for index, design, scene in held_out_frames(args):
        seen = rec.recognize(scene.image, plane=scene.plane if args.calibrated else None)
        quads = [r.corners for r in seen]
        truths = [q for _, q in scene.cards]
        support = outline_support(scene.image, truths)
        only = rec.classify_quads(scene.image, truths)
        for (label, quad), sup, model in zip(scene.cards, support, only, strict=True):
            cards += 1
            court = label[0] in "JQK"
            courts += court
            q = match(quad, quads)
            got = None if q is None else next(r for r in seen if r.corners is q)
            if got is not None and got.card == label:
                continue
            case: dict[str, object] = {
                "scene": index,
                "design": design,
                "card": label,
                "court": court,
                "blur": blur_class(scene.blur),
                "kind": "missed" if got is None else "unknown" if got.card == "unknown" else "wrong",
                "support": round(float(sup), 2),
                "true_outline": model.card,
            }
            if got is None:
                near = nearest_error(quad, quads)
                case["nearest"] = None if near is None else near[0]
                if near is not None:
                    case["corners_off"] = near[1]
            else:
                case["read"] = got.card
                case["confidence"] = round(got.confidence, 2)
            cases.append(case)
    missed = [c for c in cases if c["kind"] == "missed"]
    on_edges = [c for c in missed if float(c["support"]) >= 0.9]
    summary = {
        "command": " ".join(["benchmarks/missed_cards.py", *sys.argv[1:]]),
        "cards": cards,
        "not_named": len(cases),
        "by_kind": dict(Counter(str(c["kind"]) for c in cases)),
        "missed_support_at_least_0.9": len(on_edges),
        "missed_no_outline_within_a_third": sum(c["nearest"] is None for c in missed),
        "missed_outline_near_by_corners_off": dict(
            sorted(Counter(int(c["corners_off"]) for c in missed if "corners_off" in c).items())
        ),
        "missed_court_cards": sum(bool(c["court"]) for c in missed),
        "court_share_of_missed": round(sum(bool(c["court"]) for c in missed) / max(1, len(missed)), 3),
        "court_share_of_cards": round(courts / max(1, cards), 3),
        "missed_by_design": dict(Counter(str(c["design"]) for c in missed)),
        "named_through_true_outline_of_not_named": sum(c["true_outline"] == c["card"] for c in cases),
    }
    print_report(cases, summary, as_json=args.json, line=_line)


def _line(c: dict[str, Any]) -> str:
    extra = f"nearest {c['nearest']}" if c["kind"] == "missed" else f"read {c['read']} at {c['confidence']}"
    return (
        f"scene {c['scene']:4d} {c['design']:28s} {c['card']:5s} {c['kind']:8s} support {c['support']:.2f} "
        f"{extra:22s} true outline: {c['true_outline']:8s} {c['blur']}"
    )


def print_report(
    cases: list[dict[str, Any]], summary: dict[str, object], *, as_json: bool, line: Callable[[dict[str, Any]], str]
) -> None:
    """One JSON object per case, then the summary (``as_json``); or a readable ``line`` per case, then the
    summary indented. Also ``outline_stages.py``'s report."""
    if as_json:
        for c in cases:
            print(json.dumps(c))
        print(json.dumps(summary))
        return
    for c in cases:
        print(line(c))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
