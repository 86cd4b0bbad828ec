"""What each of the hybrid judge's cues says of the cascade's snapped outlines, outline by outline, and what mending a
poor outline would do: the study behind ``keypoint_hybrid.py --step``. A spike for issue 5's speed target.

    .venv/bin/python benchmarks/keypoint_judge_cues.py --model /tmp/kp3.pt --checker /tmp/kc.pt \
        --verifier /tmp/kv.pt --kind realistic|hard|speed [--scenes 5] [--seed 2024] [--steps 12 16 20 25 30] [--mend]

For every snapped outline of ``keypoint_cascade.Cascade`` it measures how far it lies from its card
(``keypoint_spike.corner_error``), its weakest side's support on the shipped edge map's grey edges
(``keypoint_hybrid.support_on``) and on the frame's own colour steps of each ``--steps`` value
(``keypoint_hybrid.step_support``). It reports, for outlines on their card (within 6% of its width) and off it (12% or
more, or on no card), how many each cue flags at each least support, and each cue's median ms a frame.

``--mend``: each outline the hybrid's judge calls poor (steps of 20 under 0.95 of a side, or the verifier's trust
under 0.5) is
* moved by the checker again, from the snapped outline (a second look from a better start), and snapped; and
* mended as the shipped detector mends its own: ``vision.snapping.repair_skewed``, then on the table plane the good
  outlines give ``vision.deck_fit.fit_deck`` with the good outlines as the deck, on the shipped edge map made from the
  cascade's half-size frame;
and judged again. It reports how far each lies from its card before and after, how many then pass, and the mend's
median ms a frame it ran on.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.keypoint_cascade import HALF, Cascade, Detection, check  # noqa: E402
from benchmarks.keypoint_hybrid import _scenes, at_scale, step_support, support_on  # noqa: E402
from benchmarks.keypoint_spike import clockwise, corner_error  # noqa: E402
from benchmarks.keypoint_verifier import Verifier  # noqa: E402

ON, OFF = 0.06, 0.12
"""An outline within ``ON`` of its card's width is on it; ``OFF`` or more (or on no card), off it."""
SUPPORTS = (0.9, 0.95)


def error_of(quad: np.ndarray, cards: list[tuple[str, np.ndarray]]) -> float:
    """How far ``quad`` lies from the nearest card it is on (``corner_error``); infinity on no card."""
    errors = [e for _, t in cards if (e := corner_error(np.float32(t), [quad])) is not None]
    return min(errors, default=float("inf"))


def flagged(errors: np.ndarray, supports: dict[str, np.ndarray]) -> dict[str, dict[str, list[int]]]:
    """For each cue and least support of ``SUPPORTS``: how many outlines on their card and off it it flags."""
    on, off = errors < ON, errors >= OFF
    return {
        cue: {f"under {s}": [int((v[on] < s).sum()), int((v[off] < s).sum())] for s in SUPPORTS}
        for cue, v in supports.items()
    }


def mended(frame: np.ndarray, found: Detection, poor: np.ndarray) -> list[np.ndarray]:
    """``found``'s poor snapped outlines rebuilt as the shipped detector rebuilds its own (``repair_skewed``, then
    ``fit_deck`` on the plane the good outlines give, the good ones as the deck), in ``poor``'s order."""
    from dataclasses import replace

    from vision.deck_fit import fit_deck
    from vision.detector_config import DEFAULT_CONFIG as config
    from vision.edge_map import edge_map
    from vision.errors import CalibrationError
    from vision.plane_from_cards import plane_from_cards
    from vision.quads import plane_tuple
    from vision.rectify import order_corners
    from vision.snapping import repair_skewed

    small, channels, least = at_scale(frame, found.half)
    edges = edge_map(small, channels, least, config)
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    good = [q for q, p in zip(found.snapped, poor, strict=True) if not p]
    fixed = repair_skewed(frame, [q for q, p in zip(found.snapped, poor, strict=True) if p], near, config)
    plane = plane_from_cards(good, frame.shape, spread=config.plane_spread, drop=config.plane_drop)
    if plane is not None and len(fixed) + len(good) >= 3:
        try:
            fixed = fit_deck(
                frame, fixed, edges, near, replace(config, plane=plane_tuple(plane, frame.shape)), None, good
            )
        except CalibrationError:  # a degenerate plane: no deck's rectangle to fit
            pass
    return [order_corners(q) for q in fixed]  # (the deck's rectangles may come the other way round)


def looked_again(frame: np.ndarray, found: Detection, quads: list[np.ndarray], cascade: Cascade) -> list[np.ndarray]:
    """``quads`` (full resolution) moved by the checker once more and snapped."""
    from vision.rectify import order_corners
    from vision.snapping import snap_to_edges

    assert found.half is not None and found.quarter is not None
    to_half = HALF[0] / frame.shape[1]
    moved = check(found.half, found.quarter, [clockwise(q * to_half) for q in quads], cascade.checking)[0]
    return snap_to_edges(frame, [order_corners(m / to_half) for m in moved])


def study(
    cascade: Cascade, verifier: Verifier, kind: str, scenes: int, seed: int, steps: list[float], mend: bool
) -> dict[str, Any]:
    errors: list[float] = []
    supports: dict[str, list[float]] = {"grey edges": [], **{f"steps of {s:g}": [] for s in steps}}
    times: dict[str, list[float]] = {"grey edges": [], "steps": [], "mend": []}
    fixes: dict[str, list[list[float]]] = {"second look": [], "mend": []}
    for scene in _scenes(kind, scenes, seed):
        frame, found = scene.image, cascade.detect(scene.image)
        if not found.snapped:
            continue
        errors += [error_of(q, scene.cards) for q in found.snapped]
        t0 = time.perf_counter()
        supports["grey edges"] += support_on(frame, found.snapped, found.half, grey_only=True).tolist()
        t1 = time.perf_counter()
        for s in steps:
            supports[f"steps of {s:g}"] += step_support(frame, found.snapped, s).tolist()
        t2 = time.perf_counter()
        times["grey edges"].append(1000 * (t1 - t0))
        times["steps"].append(1000 * (t2 - t1) / len(steps))
        if not mend:
            continue
        levels = (found.half, found.quarter) if found.half is not None and found.quarter is not None else None
        poor = (step_support(frame, found.snapped, 20) < 0.95) | (verifier.trust(frame, found.snapped, levels) < 0.5)
        if not poor.any():
            continue
        before = [q for q, p in zip(found.snapped, poor, strict=True) if p]
        t3 = time.perf_counter()
        fixed = mended(frame, found, poor)
        times["mend"].append(1000 * (time.perf_counter() - t3))
        for name, after in (("second look", looked_again(frame, found, before, cascade)), ("mend", fixed)):
            passes = (step_support(frame, after, 20) >= 0.95) & (verifier.trust(frame, after, levels) >= 0.5)
            fixes[name] += [
                [error_of(b, scene.cards), error_of(a, scene.cards), float(ok)]
                for b, a, ok in zip(before, after, passes, strict=True)
            ]
    e = np.array(errors)
    out: dict[str, Any] = {
        "kind": kind,
        "seed": seed,
        "outlines_on_off": [int((e < ON).sum()), int((e >= OFF).sum())],
        "flagged_on_off": flagged(e, {cue: np.array(v) for cue, v in supports.items()}),
        "ms_median": {cue: round(float(np.median(t)), 2) for cue, t in times.items() if t},
    }
    for name, rows in fixes.items():
        if rows:
            r = np.array(rows)
            out[name] = {
                "poor": len(r),
                "passed": int(r[:, 2].sum()),
                "passed_on_card": int(((r[:, 2] > 0) & (r[:, 1] < OFF)).sum()),
                "error_before_after": [[round(a, 3), round(b, 3)] for a, b in r[:, :2].tolist()],
            }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", type=Path, required=True, help="a trained first stage (keypoint_spike.py train)")
    parser.add_argument("--checker", type=Path, required=True, help="a trained checker (keypoint_cascade.py train)")
    parser.add_argument("--verifier", type=Path, required=True, help="a trained verifier (keypoint_verifier.py train)")
    parser.add_argument("--kind", choices=("realistic", "hard", "speed"), default="realistic")
    parser.add_argument("--scenes", type=int, default=5, help="scenes a held-out design (speed: frames)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--steps",
        type=float,
        nargs="+",
        default=[12, 16, 20, 25, 30],
        help="least colour steps to judge sides on (step_support)",
    )
    parser.add_argument(
        "--mend", action="store_true", help="what a second look and the shipped mending do to poor outlines"
    )
    args = parser.parse_args()
    cascade = Cascade(args.model, args.checker, doubt=0.2)
    print(study(cascade, Verifier(args.verifier), args.kind, args.scenes, args.seed, args.steps, args.mend))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
