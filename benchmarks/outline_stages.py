"""Where a near-missed card's outline goes wrong: its error after each step of the detector.

    .venv/bin/python benchmarks/outline_stages.py [--kind realistic|hard] [--scenes 20] [--seed 99]
                                                  [--calibrated] [--within 0.25] [--detector FIELD=VALUE ...]
                                                  [--json]

The frames are those of ``models.training.evaluate`` (as ``missed_cards.py`` deals them). A card is a near
miss when no outline of ``detect_cards`` matches it (corners within 12% of its width, ``match``) but the
nearest lies within ``--within`` of a width (``missed_cards.nearest_error``: the largest corner error over
the card's short side). For each, the nearest outline's error after every step that returns outlines: the
first look's ``resolve``, the later passes, each ``snap_to_edges``, ``size_pass_cards``, ``repair_skewed``,
``fit_deck``, and the final outline. A step whose error rises past 0.12 lost the card; one that falls
under it would have found it. (Detection only: ``evaluate`` also drops outlines the model calls "not a
card", so its found count can be a card or two lower.) Without ``--calibrated`` the shipped detector detects a
frame twice (``replan``), and the steps of both detections are listed in order; ``--detector replan=false``
gives one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vision.detect as detect  # noqa: E402
from benchmarks.missed_cards import (  # noqa: E402
    add_detector_argument,
    add_frame_arguments,
    detector_from,
    held_out_frames,
    nearest_error,
    print_report,
)
from models.training.dataset import match  # noqa: E402
from models.training.evaluate import blur_class  # noqa: E402
from vision.detector_config import DetectorConfig  # noqa: E402
from vision.rectify import order_corners  # noqa: E402

# the steps of ``detect_cards`` that return outlines, and whether they are at detection scale (else full)
STEPS: tuple[tuple[str, bool], ...] = (
    ("resolve", True),
    ("gap_pass", True),
    ("hue_pass", True),
    ("tab_pass", True),
    ("texture_pass", True),
    ("_faint_chroma_cards", True),
    ("cards_in_holes", True),
    ("new_cards", True),
    ("size_pass_cards", True),
    ("snap_to_edges", False),
    ("repair_skewed", False),
    ("fit_deck", False),
)


@contextmanager
def _recorded(scale: float, log: list[tuple[str, list[np.ndarray]]]) -> Iterator[None]:
    """While open, each step of ``STEPS`` that ``vision.detect`` calls appends (step, its outlines at full
    resolution) to ``log``; the steps are restored on leaving."""
    originals = {name: getattr(detect, name) for name, _ in STEPS}

    def recording(name: str, small: bool) -> Callable[..., Any]:
        inner = originals[name]

        def step(*args: Any, **kwargs: Any) -> Any:
            out = inner(*args, **kwargs)
            # in the final outline's corner order (clockwise from the top-left), so errors compare
            log.append((name, [order_corners((q + 0.5) / scale - 0.5 if small else q) for q in out]))
            return out

        return step

    try:
        for name, small in STEPS:
            setattr(detect, name, recording(name, small))
        yield
    finally:
        for name, inner in originals.items():
            setattr(detect, name, inner)


def stage_errors(
    image: np.ndarray, truths: list[np.ndarray], config: DetectorConfig, plane: np.ndarray | None = None
) -> tuple[list[tuple[str, list[float | None]]], list[np.ndarray]]:
    """Detect ``image``'s cards with every step recorded: per step (in call order, then "final"), per truth
    card the error of the nearest outline that step returned (card widths; None: none within a third of a
    width of its centre), and the final outlines."""
    log: list[tuple[str, list[np.ndarray]]] = []
    with _recorded(config.scale, log):
        final = detect.detect_cards(image, config, plane=plane)
    rows = []
    for name, quads in [*log, ("final", final)]:
        errors = []
        for truth in truths:
            near = nearest_error(truth, quads)
            errors.append(None if near is None else near[0])
        rows.append((name, errors))
    return rows, final


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_frame_arguments(ap, kind="hard", given="detector")
    ap.add_argument(
        "--within",
        type=float,
        default=0.25,
        help="a near miss's nearest outline is this close (card widths; default 0.25)",
    )
    add_detector_argument(ap)
    ap.add_argument("--json", action="store_true", help="one JSON object per near miss, then the summary")
    args = ap.parse_args(argv)
    config = detector_from(ap, args)
    cases: list[dict[str, Any]] = []
    lost_at: dict[str, int] = {}  # the step after which a near miss was no longer within 0.12
    never = cards = 0
    for index, design, scene in held_out_frames(args):
        truths = [q for _, q in scene.cards]
        cards += len(truths)
        rows, final = stage_errors(scene.image, truths, config, scene.plane if args.calibrated else None)
        for i, (truth, error) in enumerate(zip(truths, rows[-1][1], strict=True)):
            if error is None or error > args.within or match(truth, final) is not None:
                continue  # found, or no outline near it
            steps = [(name, e) for name, errors in rows if (e := errors[i]) is not None]
            for (_, before), (name, after) in zip(steps, steps[1:], strict=False):
                if before < 0.12 <= after:
                    lost_at[name] = lost_at.get(name, 0) + 1
            never += all(e >= 0.12 for _, e in steps)
            cases.append(
                {
                    "scene": index,
                    "design": design,
                    "card": scene.cards[i][0],
                    "blur": blur_class(scene.blur),
                    "steps": steps,
                }
            )
    summary = {
        "command": " ".join(["benchmarks/outline_stages.py", *(sys.argv[1:] if argv is None else argv)]),
        "cards": cards,
        "near_misses": len(cases),
        "lost_at_step": dict(sorted(lost_at.items())),
        "never_within_0.12": never,
    }
    print_report(cases, summary, as_json=args.json, line=_line)


def _line(c: dict[str, Any]) -> str:
    trail = " ".join(f"{name}:{error:.3f}" for name, error in c["steps"])
    return f"scene {c['scene']:4d} {c['design']:28s} {c['card']:5s} {c['blur']:14s} {trail}"


if __name__ == "__main__":
    main()
