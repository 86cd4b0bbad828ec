"""The learned outline finder at the simulated table: a whole match watched through the camera, each full-frame
recognition of the table watcher detected both ways.

    .venv/bin/python benchmarks/learned_at_the_table.py --game garbage|frog [--seed S]

The match runs as ``cardtable demo`` runs it through the camera pipeline (``table.demo.runner``: Garbage,
standard rules, seed 1, cheats 0.1; Frog, 1909 rules, seed 3, one deal, cheats 0.15, as their tests play them).
Every full-frame recognition (``Recognizer.recognize``: the first frame, every 30th, a large change) is detected by
the shipped detector and by ``vision.learned_detect.detect_learned``, each timed on one core; the learned outlines
are the ones named, so the match is refereed on them. Printed: whether the match agrees with the truth, the frames
whose named cards differ between the two detections, how many frames the learned path handed on (none, regions, the
whole frame), and each detection's median ms. The partial frames the watcher detects around a change
(``recognize_regions``) use the shipped detector either way.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.recognizer as recognizer_module  # noqa: E402
from vision.detect import detect_cards  # noqa: E402
from vision.learned_detect import detect_learned  # noqa: E402
from vision.learned_outlines import OutlineNets  # noqa: E402

MATCHES = {
    "garbage": {"rules": "standard", "seed": 1, "cheat": 0.1},
    "frog": {"rules": "foster-1909", "seed": 3, "cheat": 0.15, "deals": 1},
}


def watch_match(game: str, seed: int | None = None) -> dict[str, Any]:
    from table.demo import runner
    from table.demo.config import DemoConfig

    nets = OutlineNets()
    handed: collections.Counter[str] = collections.Counter()
    shipped_ms: list[float] = []
    learned_ms: list[float] = []
    differ: list[dict[str, Any]] = []
    original = recognizer_module.Recognizer.recognize

    def recognize(self: Any, frame_bgr: np.ndarray, *, plane: np.ndarray | None = None, ignore: Any = ()) -> list[Any]:
        t0 = time.perf_counter()
        shipped = detect_cards(frame_bgr, self.detector, plane=plane, ignore=ignore)
        t1 = time.perf_counter()
        found = detect_learned(frame_bgr, nets, self.detector, plane=plane, ignore=ignore)
        t2 = time.perf_counter()
        shipped_ms.append(1000 * (t1 - t0))
        learned_ms.append(1000 * (t2 - t1))
        height, width = frame_bgr.shape[:2]
        handed["whole" if found.regions == [(0, 0, width, height)] else "regions" if found.regions else "none"] += 1
        named = self._classify(frame_bgr, found.quads, drop_non_cards=True)
        other = self._classify(frame_bgr, shipped, drop_non_cards=True)
        a, b = collections.Counter(r.card for r in other), collections.Counter(r.card for r in named)
        if a != b:
            differ.append({"frame": len(shipped_ms), "shipped_only": dict(a - b), "learned_only": dict(b - a)})
        return named

    spec = dict(MATCHES[game])
    if seed is not None:
        spec["seed"] = seed
    recognizer_module.Recognizer.recognize = recognize  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = runner.run_demo(
                DemoConfig(
                    game, players=3, journal=Path(tmp) / "journal.db", senses="vision", fast=True, timeout=600, **spec
                )
            )
    finally:
        recognizer_module.Recognizer.recognize = original  # type: ignore[method-assign]
    return {
        "game": game,
        **spec,
        "error": out.error,
        "agrees_with_truth": out.agree,
        "full_frames": len(shipped_ms),
        "handed_on": dict(handed),
        "frames_named_differently": differ,
        "median_ms": {
            "shipped": round(float(np.median(shipped_ms)), 1),
            "learned": round(float(np.median(learned_ms)), 1),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", choices=sorted(MATCHES), default="garbage")
    parser.add_argument("--seed", type=int, help="another match than the test's")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(json.dumps(watch_match(args.game, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
