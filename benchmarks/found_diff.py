"""Which held-out cards one detector setting finds and another does not, card by card.

    .venv/bin/python benchmarks/found_diff.py --detector FIELD=VALUE ... [--against FIELD=VALUE ...]
                                              [--kind realistic|hard] [--seeds 2024 99 7 11 31 53]
                                              [--scenes 20] [--calibrated] [--json]

The frames are ``models.training.evaluate``'s (realistic scenes at each seed, hard ones at seed + 1), run
through ``vision.detect.detect_cards`` alone with the shipped settings changed by ``--against`` (side A, the
shipped ones when not given) and by ``--detector`` (side B). A card is found on a side when an outline of that
side matches it (``models.training.dataset.match``: every corner within 12% of its width). It prints each
card found on one side only (seed, scene, design, card) and the counts, with each side's outlines that match no
card (``false_a``, ``false_b``: a false card, or a card's outline more than 12% off it). Detection only, no
classification
(both sides on one seed's realistic frames took 15 s on the 2-core development machine, one ``evaluate`` run
of one setting 31 s): a setting's effect on found, card by card, and the cards it gains or loses to look at
before the full measurement (``--json``: one object per card, then the summary).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training.dataset import match, match_index  # noqa: E402
from models.training.synth import Scene  # noqa: E402
from vision.detect import DetectorConfig, detect_cards  # noqa: E402


@dataclass(frozen=True)
class Difference:
    seed: int
    scene: int
    design: str
    card: str
    found_by: str  # "A" or "B"


@dataclass
class Comparison:
    """``differences``' result: the cards found by one side only, how many cards there were, how many each side
    found, and each side's outlines that match no card."""

    diff: list[Difference]
    cards: int = 0
    found_a: int = 0
    found_b: int = 0
    false_a: int = 0
    false_b: int = 0


def unmatched(truths: list[np.ndarray], found: list[np.ndarray]) -> int:
    """How many of the outlines ``found`` no card of ``truths`` matches (``match_index``: each card its first)."""
    used = {i for t in truths if (i := match_index(t, found)) is not None}
    return len(found) - len(used)


def differences(
    frames: Iterable[tuple[int, int, str, Scene]], a: DetectorConfig, b: DetectorConfig, *, calibrated: bool = False
) -> Comparison:
    """The cards of ``frames`` ((seed, scene number, design, scene)) found by exactly one of ``a`` and ``b``,
    with the counts (``Comparison``)."""
    out = Comparison([])
    for seed, n, design, scene in frames:
        plane = scene.plane if calibrated else None
        qa, qb = detect_cards(scene.image, a, plane=plane), detect_cards(scene.image, b, plane=plane)
        for label, quad in scene.cards:
            out.cards += 1
            in_a, in_b = match(quad, qa) is not None, match(quad, qb) is not None
            out.found_a += in_a
            out.found_b += in_b
            if in_a != in_b:
                out.diff.append(Difference(seed, n, design, label, "A" if in_a else "B"))
        truths = [quad for _, quad in scene.cards]
        out.false_a += unmatched(truths, qa)
        out.false_b += unmatched(truths, qb)
    return out


def held_out_frames(kind: str, seeds: list[int], scenes: int) -> Iterable[tuple[int, int, str, Scene]]:
    """``evaluate``'s frames: realistic at each seed, hard at seed + 1, numbered as ``missed_cards.py`` does."""
    from models.training import designs
    from models.training.evaluate import held_out_scenes, kind_spec

    decks = designs.held_out_decks()
    for seed in seeds:
        spec, dealt = kind_spec(kind, seed)
        for n, (design, scene) in enumerate(held_out_scenes(decks, spec, scenes, dealt)):
            yield seed, n, design, scene


def main(argv: list[str] | None = None) -> dict[str, object]:
    from vision.detector_settings import detector_config

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--detector",
        action="extend",
        nargs="+",
        required=True,
        metavar="FIELD=VALUE",
        help="side B: the shipped settings changed by these",
    )
    ap.add_argument(
        "--against",
        action="extend",
        nargs="+",
        default=[],
        metavar="FIELD=VALUE",
        help="side A: the shipped settings changed by these (default: the shipped ones)",
    )
    ap.add_argument("--kind", choices=("realistic", "hard"), default="realistic")
    ap.add_argument("--seeds", type=int, nargs="+", default=[2024, 99, 7, 11, 31, 53])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design")
    ap.add_argument("--calibrated", action="store_true", help="give the detector each scene's table plane")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        a, b = detector_config(args.against), detector_config(args.detector)
    except ValueError as e:
        ap.error(str(e))
    result = differences(held_out_frames(args.kind, args.seeds, args.scenes), a, b, calibrated=args.calibrated)
    summary: dict[str, object] = {
        "command": " ".join(["benchmarks/found_diff.py", *(sys.argv[1:] if argv is None else argv)]),
        "cards": result.cards,
        "found_a": result.found_a,
        "found_b": result.found_b,
        "only_a": sum(d.found_by == "A" for d in result.diff),
        "only_b": sum(d.found_by == "B" for d in result.diff),
        "false_a": result.false_a,
        "false_b": result.false_b,
    }
    for d in result.diff:
        print(
            json.dumps(d.__dict__)
            if args.json
            else f"seed {d.seed:5d} scene {d.scene:4d} {d.design:28s} {d.card:5s} found by {d.found_by} only"
        )
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
