"""What the recogniser's blur look changes, card by card, and how well the frames' motion blur is estimated.

    .venv/bin/python benchmarks/blur_look.py [--kind hard|realistic] [--seeds 2024 99 7 11 31 53] [--scenes 20]
                                             [--validation STYLES] [--calibrated] [--blur-look-below X] [--json]

The frames are ``models.training.evaluate``'s held-out ones (realistic at each seed, hard at seed + 1), or with
``--validation 960-1199`` the validation set's (``validate_fonts.validation_scenes``: one scene of ``--kind`` per
font style, seed 5). Each frame is detected once (``detect_cards``, with the scene's table plane when
``--calibrated``); the cards found are named through those outlines (``Recognizer.classify_quads``) by the shipped
recogniser without the blur look (side A) and with it (side B, at ``--blur-look-below``). It prints each card
whose name differs and the counts each way (named, wrong, unknown), then, per camera blur (``evaluate.blur_class``),
the frames, the cepstral peak's depth (5th, 50th and 95th percentile), the share of frames the look would deblur
(depth at least ``MOTION_DEPTH``, isolation at least ``MOTION_ISOLATION``, length at least
``BLUR_LOOK_LENGTH``) and, for motion blurs, the median error of the estimated length (px) and direction (degrees),
and each side's naming time. Detection is shared, so a run takes about half of two ``evaluate`` runs; ``evaluate
--no-blur-look`` gives the same names on side A but for outlines the recogniser
drops as not cards, which ``classify_quads`` names ``unknown``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.found_diff import held_out_frames  # noqa: E402
from models.training.dataset import match_index  # noqa: E402
from models.training.evaluate import blur_class  # noqa: E402
from models.training.synth import Scene  # noqa: E402
from vision.detect import detect_cards  # noqa: E402
from vision.events import UNKNOWN  # noqa: E402
from vision.motion_blur import cepstral_peak, is_clear  # noqa: E402
from vision.recognizer import BLUR_LOOK_BELOW, BLUR_LOOK_LENGTH, Recognition, Recognizer  # noqa: E402


@dataclass(frozen=True)
class Change:
    seed: int
    scene: int
    design: str
    card: str
    without: str  # the name without the blur look
    with_look: str


@dataclass
class BlurClass:
    """The cepstral peaks of one camera-blur class's frames."""

    depths: list[float] = field(default_factory=list)
    deblurred: int = 0
    length_errors: list[float] = field(default_factory=list)
    angle_errors: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        out: dict[str, object] = {
            "frames": len(self.depths),
            "depth_p5_p50_p95": [round(float(v), 4) for v in np.percentile(self.depths, [5, 50, 95])],
            "deblurred_share": round(self.deblurred / len(self.depths), 3),
        }
        if self.length_errors:
            out["median_length_error_px"] = round(float(np.median(self.length_errors)), 2)
            out["median_angle_error_deg"] = round(float(np.median(self.angle_errors)), 1)
        return out


def outcome(name: str, truth: str) -> str:
    return "named" if name == truth else "unknown" if name == UNKNOWN else "wrong"


@dataclass
class Comparison:
    changes: list[Change]  # the cards found whose names differ
    counts: dict[str, Counter[str]]  # each side's outcomes ("A": without the look, "B": with it)
    blurs: dict[str, BlurClass]  # the frames' cepstral peaks by camera blur
    ms_a_frame: dict[str, float]  # each side's naming time, mean over all frames (wall, one thread)


def compare(
    frames: Iterable[tuple[int, int, str, Scene]],
    without: Recognizer,
    with_look: Recognizer,
    *,
    calibrated: bool = False,
) -> Comparison:
    """Name the cards found in ``frames`` ((seed, scene number, design, scene)) with both recognisers."""
    changes: list[Change] = []
    counts: dict[str, Counter[str]] = {"A": Counter(), "B": Counter()}
    blurs: dict[str, BlurClass] = {}
    seconds = {"A": 0.0, "B": 0.0}
    frames_seen = 0
    for seed, n, design, scene in frames:
        frames_seen += 1
        peak = cepstral_peak(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY))
        stats = blurs.setdefault(blur_class(scene.blur), BlurClass())
        stats.depths.append(peak.depth)
        stats.deblurred += is_clear(peak, BLUR_LOOK_LENGTH)
        if scene.blur.kind == "motion":
            stats.length_errors.append(abs(peak.length - scene.blur.amount))
            stats.angle_errors.append(abs((peak.angle - scene.blur.angle + 90.0) % 180.0 - 90.0))
        quads = detect_cards(scene.image, with_look.detector, plane=scene.plane if calibrated else None)
        found = [(label, quads[i]) for label, quad in scene.cards if (i := match_index(quad, quads)) is not None]
        if not found:
            continue
        outlines = [q for _, q in found]
        named: dict[str, list[Recognition]] = {}
        for side, rec in (("A", without), ("B", with_look)):
            start = time.perf_counter()
            named[side] = rec.classify_quads(scene.image, outlines)
            seconds[side] += time.perf_counter() - start
        for (label, _), a, b in zip(found, named["A"], named["B"], strict=True):
            counts["A"][outcome(a.card, label)] += 1
            counts["B"][outcome(b.card, label)] += 1
            if a.card != b.card:
                changes.append(Change(seed, n, design, label, a.card, b.card))
    ms = {side: round(1000 * seconds[side] / max(1, frames_seen), 2) for side in seconds}
    return Comparison(changes, counts, blurs, ms)


def validation_frames(styles: tuple[int, ...], kind: str) -> Iterable[tuple[int, int, str, Scene]]:
    """The validation set's frames of ``kind``, as (5, style, "fonts:<style>", scene)."""
    from models.training.validate_fonts import validation_scenes

    for style, scene_kind, _, scene in validation_scenes(styles, 1, 5):
        if scene_kind == kind:
            yield 5, style, f"fonts:{style}", scene


def main(argv: list[str] | None = None) -> dict[str, object]:
    from models.training.build_crops import style_range
    from vision.cli_recognize import blur_look_below

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=("realistic", "hard"), default="hard")
    ap.add_argument("--seeds", type=int, nargs="+", default=[2024, 99, 7, 11, 31, 53])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design")
    ap.add_argument(
        "--validation",
        type=style_range,
        metavar="STYLES",
        help="the validation set's font styles (e.g. 960-1199) instead of the held-out designs",
    )
    ap.add_argument("--calibrated", action="store_true", help="give the detector each scene's table plane")
    ap.add_argument(
        "--blur-look-below",
        type=blur_look_below,
        default=BLUR_LOOK_BELOW,
        metavar="X",
        help=f"side B's blur look threshold (default {BLUR_LOOK_BELOW})",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    frames = (
        validation_frames(args.validation, args.kind)
        if args.validation is not None
        else held_out_frames(args.kind, args.seeds, args.scenes)
    )
    without = Recognizer(threads=1, blur_look=False)
    with_look = Recognizer(threads=1, blur_look_below=args.blur_look_below)
    result = compare(frames, without, with_look, calibrated=args.calibrated)
    summary: dict[str, object] = {
        "command": " ".join(["benchmarks/blur_look.py", *(sys.argv[1:] if argv is None else argv)]),
        "without_blur_look": dict(result.counts["A"]),
        "with_blur_look": dict(result.counts["B"]),
        "changed": len(result.changes),
        "naming_ms_a_frame": result.ms_a_frame,
        "cepstral_peaks": {name: result.blurs[name].summary() for name in sorted(result.blurs)},
    }
    for c in result.changes:
        print(
            json.dumps(c.__dict__)
            if args.json
            else f"seed {c.seed:5d} scene {c.scene:4d} {c.design:28s} {c.card:5s} {c.without:7s} -> {c.with_look}"
        )
    print(json.dumps(summary) if args.json else json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main()
