"""Recognition speed, A/B: the working tree's detector and classifier against another revision's,
interleaved frame by frame in one process (a shared machine's load hits both sides alike).

    .venv/bin/python benchmarks/bench_recognition_ab.py --against 490e16d [--frames 40] [--runs 3] [--calibrated]

The other revision's ``vision/`` package is unpacked with ``git archive`` into a temporary folder and
imported as ``ab_old_vision`` (its ``vision.`` imports rewritten), so the detector's own modules, however
that revision splits them, come from it; the model files are the working tree's for both, so only the code
differs. Each side classifies through its own ``Recognizer.model_probabilities`` (revisions before it have
none: there the old side reads both index corners of every card in one run, as they did). First the identity check (same
outlines, how many moved by over 3 px and the largest
corner difference, each old outline against the new one nearest it; the largest
probability difference), then per frame old and new in alternating order, one thread, process CPU
time; median (and mean, 90th percentile) over frames, per run, and the median of the runs. Frames: 1280x720 with 12
cards of the
project's own drawn designs (seeded, as ``bench_recognition.py --speed-only`` makes them); with
``--calibrated`` both detectors get each frame's table plane, as a table calibrated from its mat does.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training.evaluate import NORMAL  # noqa: E402
from models.training.synth import Scene, faces_deck, make_scene  # noqa: E402
from vision import detect as new_det  # noqa: E402
from vision import rectify as new_rect  # noqa: E402
from vision.pip_look import DEFAULT_PIP_MODEL  # noqa: E402
from vision.recognizer import DEFAULT_MODEL, Recognizer  # noqa: E402


def _old_vision(rev: str, into: Path) -> str:
    """Unpack ``rev``'s ``vision/`` package under ``into`` as ``ab_old_vision``; its import name."""
    archive = subprocess.run(["git", "archive", rev, "vision"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / "ab_old_vision"
    (into / "vision").rename(package)
    for path in package.glob("*.py"):
        path.write_text(re.sub(r"\b(from|import) vision\b", r"\1 ab_old_vision", path.read_text()))
    sys.path.insert(0, str(into))
    return package.name


def _old_recognizer(package: str) -> Any | None:
    """The old revision's ``Recognizer`` reading with this tree's model files (its own default paths point into
    the unpacked folder, which has none), or None where it has no ``model_probabilities`` (before session 21):
    then the old side is classified as those revisions did, both index corners of every card in one run."""
    cls = getattr(importlib.import_module(f"{package}.recognizer"), "Recognizer", None)
    if cls is None or not hasattr(cls, "model_probabilities"):
        return None
    kwargs: dict[str, Any] = {"threads": 1}
    if "pip_model_path" in inspect.signature(cls).parameters:
        kwargs["pip_model_path"] = DEFAULT_PIP_MODEL
    if "learned" in inspect.signature(cls).parameters:  # only its classification is used: no outline networks
        kwargs["learned"] = False
    return cls(DEFAULT_MODEL, **kwargs)


def scenes(count: int, seed: int) -> list[Scene]:
    """The speed frames with their table planes (``--calibrated``)."""
    rng = np.random.default_rng(seed)
    out: list[Scene] = []
    while len(out) < count:
        scene = make_scene(rng, faces_deck(len(out) % 8), replace(NORMAL, n_cards=12, card_width=(90.0, 150.0)))
        if len(scene.cards) == 12:
            out.append(scene)
    return out


def frames(count: int, seed: int) -> list[np.ndarray]:
    return [s.image for s in scenes(count, seed)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--against", required=True, help="git revision to compare with (e.g. HEAD~3)")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=102)
    ap.add_argument("--calibrated", action="store_true", help="give both detectors each frame's table plane")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    rev = args.against
    package = _old_vision(rev, Path(tempfile.mkdtemp(prefix="ab_old_")))
    old_rect = importlib.import_module(f"{package}.rectify")
    old_det = importlib.import_module(f"{package}.detect")
    old_cls = importlib.import_module(f"{package}.classify")
    rec = Recognizer(threads=1)
    old_rec = _old_recognizer(package)

    def classify(side: Any, frame: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        if side == "new":  # the path users run
            return rec.model_probabilities(frame, [new_rect.order_corners(q) for q in quads])
        if old_rec is not None:  # the old revision's own path, on this tree's model files
            return old_rec.model_probabilities(frame, [old_rect.order_corners(q) for q in quads])  # type: ignore[no-any-return]
        ordered = [old_rect.order_corners(q) for q in quads]
        crops = np.stack([old_rect.corner_crops(frame, q) for q in ordered])
        probs: np.ndarray = old_cls.postprocess(rec.classifier.infer(old_cls.preprocess(crops, rec.meta)))
        return probs

    shots = [(s.image, s.plane if args.calibrated else None) for s in scenes(args.frames, args.seed)]
    same, worst, pmax, quads, moved = True, 0.0, 0.0, 0, 0
    for f, plane in shots:
        a, b = old_det.detect_cards(f, plane=plane), new_det.detect_cards(f, plane=plane)
        if len(a) != len(b):
            same = False
            continue
        quads += len(a)
        # the same outlines may come in another order (the order candidates are traced in): each old one is
        # compared with the new one nearest its centre
        rest = list(b)
        for q in a:
            nearest = int(np.argmin([np.linalg.norm(q.mean(axis=0) - r.mean(axis=0)) for r in rest]))
            o, r = new_rect.order_corners(q), new_rect.order_corners(rest.pop(nearest))
            # which corner comes first can flip between two nearly equal ones: the best of the four starts
            difference = min(float(np.abs(o - np.roll(r, i, axis=0)).max()) for i in range(4))
            worst = max(worst, difference)
            moved += difference > 3.0
        if a:
            pmax = max(pmax, float(np.abs(classify("old", f, a) - classify("new", f, a)).max()))
    print(
        f"identity: same outline counts {same}, {quads} outlines, {moved} moved by over 3 px, largest corner "
        f"difference {worst:.3f} px (each old outline against the new one nearest it), largest probability "
        f"difference {pmax:.2e}"
    )
    runs: dict[str, list[float]] = {k: [] for k in ("detect old", "detect new", "classify old", "classify new")}
    # the median frame alone hides the frames where a costly pass runs: the mean and the 90th percentile too
    means: dict[str, list[float]] = {k: [] for k in runs}
    p90s: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.runs):
        per: dict[str, list[float]] = {k: [] for k in runs}
        for i, (f, plane) in enumerate(shots):
            for side in ("old", "new") if i % 2 else ("new", "old"):
                det = old_det if side == "old" else new_det
                t0 = time.process_time()
                q = det.detect_cards(f, plane=plane)
                t1 = time.process_time()
                if q:
                    classify(side, f, q)
                t2 = time.process_time()
                per[f"detect {side}"].append(t1 - t0)
                per[f"classify {side}"].append(t2 - t1)
        for k in runs:
            runs[k].append(1000 * statistics.median(per[k]))
            means[k].append(1000 * statistics.fmean(per[k]))
            p90s[k].append(1000 * float(np.percentile(per[k], 90)))
    for k, v in runs.items():
        print(
            f"{k}: runs {[round(x, 2) for x in v]} ms, median {statistics.median(v):.2f} ms process CPU; "
            f"mean {statistics.median(means[k]):.2f}, 90th percentile {statistics.median(p90s[k]):.2f} ms "
            f"(medians of the runs)"
        )


if __name__ == "__main__":
    main()
