"""Where the detector's time goes, stage by stage, and whether two revisions give the same outlines.

    .venv/bin/python benchmarks/detect_stages.py [--frames speed|held-out] [--count 30] [--root PATH]
                                                 [--save FILE] [--compare FILE] [--detector FIELD=VALUE ...]

* ``--frames speed``: ``--count`` 1280x720 frames with 12 cards of the project's own drawn designs, as
  ``bench_recognition.py --speed-only`` deals them (seed 99); image mode.
* ``--frames held-out``: ``--count`` realistic and ``--count`` hard scenes of each held-out design, as
  ``models.training.evaluate`` deals them (seeds 2024 and 2025), each detected in image mode and with its
  table plane (needs the Debian designs).
* Per stage (each step ``vision.detect.detect_cards`` calls, and the size pass's own steps), the mean ms a
  frame over the frames, one thread, wall time after a warm-up pass; the size pass's ms per frame (min,
  median, max); the whole detection's process CPU time; how many frames were detected twice (``replan``).
* ``--detector FIELD=VALUE ...``: time the detector with these settings (``cardtable recognize --detector``'s).
* ``--root PATH``: import ``vision`` (and the scene generator) from another checkout, e.g. a ``git worktree``
  of an older revision, to time it the same way. ``--save FILE`` writes every outline (``.npz``);
  ``--compare FILE`` counts the detections whose outlines differ from a saved run, byte for byte, and says
  how far apart they are.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

DETECT_STEPS = (
    "edge_map",
    "contours_of",
    "consider",
    "consider_open",
    "open_pairs",
    "paper_pairs",
    "resolve",
    "gap_pass",
    "hue_pass",
    "tab_pass",
    "texture_pass",
    "_faint_chroma_cards",
    "cards_in_holes",
    "snap_to_edges",
    "plane_from_cards",
    "size_pass_cards",
    "repair_skewed",
    "fit_deck",
)
SIZE_PASS_STEPS = (
    "rectangles_of_size",
    "edge_directions",
    "edge_map",
    "_search_space",
    "card_margins",
    "inside_like_outside",
    "side_hits",
    "card_like",
)


def _timed(module: Any, name: str, totals: collections.defaultdict[str, float], label: str) -> None:
    """Replace ``module.name`` (where it exists) by a wrapper adding its wall time to ``totals[label]``."""
    inner: Callable[..., Any] | None = getattr(module, name, None)
    if inner is None:
        return
    wrapped: Callable[..., Any] = inner

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return wrapped(*args, **kwargs)
        finally:
            totals[label] += time.perf_counter() - t0

    setattr(module, name, timed)


def _count_passes(module: Any) -> collections.Counter[str]:
    """Count the calls of ``module._detect`` (one detection of a frame; ``replan`` makes a second one) in the
    returned counter's ``runs``; an empty counter, never filled, where the module has no ``_detect``."""
    runs: collections.Counter[str] = collections.Counter()
    inner: Callable[..., Any] | None = getattr(module, "_detect", None)
    if inner is None:
        return runs
    wrapped: Callable[..., Any] = inner

    def counted(*args: Any, **kwargs: Any) -> Any:
        runs["runs"] += 1
        return wrapped(*args, **kwargs)

    module._detect = counted
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", choices=("speed", "held-out"), default="speed")
    ap.add_argument("--count", type=int, default=30, help="speed frames, or scenes per held-out design and kind")
    ap.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parents[1],
        help="the checkout whose vision/ is timed (default: this one)",
    )
    ap.add_argument("--save", type=Path, help="write every outline to this .npz")
    ap.add_argument("--compare", type=Path, help="count the detections that differ from this saved .npz")
    ap.add_argument(
        "--detector",
        action="extend",
        nargs="+",
        default=[],
        metavar="FIELD=VALUE",
        help="detector settings other than the shipped ones (DetectorConfig fields)",
    )
    args = ap.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    import cv2
    from threadpoolctl import threadpool_limits

    import vision.detect as detect
    import vision.size_pass as size_pass
    from models.training.synth import HARD, faces_deck, make_scene

    cv2.setNumThreads(1)
    threadpool_limits(limits=1, user_api="blas")
    settings: dict[str, Any] = {}
    if args.detector:  # (an older --root may not have vision.detector_settings: only imported when asked)
        from vision.detector_settings import detector_config

        settings["config"] = detector_config(args.detector)
    shots: list[tuple[np.ndarray, np.ndarray | None]] = []
    if args.frames == "speed":
        from models.training.evaluate import NORMAL

        rng = np.random.default_rng(99)
        while len(shots) < args.count:
            scene = make_scene(rng, faces_deck(len(shots) % 8), replace(NORMAL, n_cards=12, card_width=(90.0, 150.0)))
            if len(scene.cards) == 12:
                shots.append((scene.image, None))
    else:
        from models.training import designs
        from models.training.evaluate import NORMAL, held_out_scenes

        held = designs.held_out_decks()
        for spec, seed in ((NORMAL, 2024), (HARD, 2025)):
            for _, scene in held_out_scenes(held, spec, args.count, seed):
                shots += [(scene.image, None), (scene.image, scene.plane)]
    totals: collections.defaultdict[str, float] = collections.defaultdict(float)
    for name in DETECT_STEPS:
        _timed(detect, name, totals, name)
    for name in SIZE_PASS_STEPS:
        _timed(size_pass, name, totals, f"size pass: {name}")
    passes = _count_passes(detect)
    for image, plane in shots:  # warm-up
        detect.detect_cards(image, plane=plane, **settings)
    totals.clear()
    passes.clear()
    size_ms, outlines = [], []
    c0 = time.process_time()
    for image, plane in shots:
        before = totals["size_pass_cards"]
        outlines.append(detect.detect_cards(image, plane=plane, **settings))
        size_ms.append(1000 * (totals["size_pass_cards"] - before))
    cpu = time.process_time() - c0
    n = len(shots)
    print(
        f"{n} detections ({args.frames} frames) from {args.root}: {cpu:.2f} s process CPU, "
        f"{1000 * cpu / n:.2f} ms a detection"
    )
    for label, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {label:32s} {1000 * seconds / n:7.2f} ms a frame (mean)")
    print(
        f"  size pass per frame: min {min(size_ms):.1f}, median {statistics.median(size_ms):.1f}, "
        f"max {max(size_ms):.1f} ms"
    )
    if passes:
        print(f"  detected twice (replan): {passes['runs'] - n} of {n} frames")
    flat: dict[str, Any] = {f"{i}": np.asarray(q, np.float32).reshape(-1, 4, 2) for i, q in enumerate(outlines)}
    if args.save:
        np.savez_compressed(args.save, **flat)
    if args.compare:
        saved = np.load(args.compare)
        differ = [i for i in range(n) if str(i) not in saved or not np.array_equal(saved[str(i)], flat[str(i)])]
        counted = [i for i in differ if str(i) not in saved or saved[str(i)].shape != flat[str(i)].shape]
        moved = max(
            (float(np.abs(saved[str(i)] - flat[str(i)]).max()) for i in differ if i not in counted), default=0.0
        )
        print(
            f"compared with {args.compare}: {len(differ)} of {n} detections differ"
            f"{'' if not differ else ': ' + str(differ[:10])}; {len(counted)} in their number of outlines, "
            f"the others by at most {moved:.6f} px (each corner, in order)"
        )


if __name__ == "__main__":
    main()
