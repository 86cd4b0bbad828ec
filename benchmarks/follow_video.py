"""``cardtable recognize --follow`` against a whole detection of every frame, on a video of plays on the simulated mat.

    .venv/bin/python benchmarks/follow_video.py [--actions 12] [--seed 7] [--json]

The video: the chinese-ten-3 mat (tilt 20) with 11 cards and the stock laid out, then ``--actions`` plays (a card put
down, a pair taken to a capture pile, the stock flipped) each done by a hand that hides part of the table in a third of
its frames or more (``vision.simtable``), at 15 fps; the frames go through an MJPG file as a camera's recording would.
Each frame is recognised by ``vision.cli_recognize.Follower`` and by ``Recognizer.recognize`` (both with the mat's
plane and markers, as ``--mat``). Per mode: process-CPU ms a frame (mean, median, p95); how many frames' cards
(names, as multisets) agree; of the frames with no hand in view, how many agree with the simulator's truth. One
thread.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_tracker import deal, random_action  # noqa: E402
from vision.calibration import calibrate_once, marker_areas  # noqa: E402
from vision.cli_recognize import Follower, read_frames  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402
from vision.simtable import SimCamera, SimTable  # noqa: E402
from vision.zones import layout_for  # noqa: E402


def record(path: Path, actions: int, seed: int) -> list[tuple[bool, Counter[str]]]:
    """Write the video to ``path``; per frame, whether a hand is in view and the truth's names."""
    layout = layout_for("chinese-ten", 3)
    sim = SimTable(layout, seed=seed, camera=SimCamera(tilt_deg=20), fps=15.0)
    rng = random.Random(seed)
    hand = deal(sim, rng)
    for _ in range(11):
        sim.place(hand.pop(), "layout", animate=False)
    writer: cv2.VideoWriter | None = None
    truth: list[tuple[bool, Counter[str]]] = []
    done = 0
    while done < actions:
        if not random_action(sim, rng, hand, [1, 2, 3], 12):
            continue
        done += 1
        for f in sim.play(extra_frames=3):
            if writer is None:
                writer = cv2.VideoWriter(
                    str(path), cv2.VideoWriter_fourcc(*"MJPG"), 15, (f.image.shape[1], f.image.shape[0])
                )
                if not writer.isOpened():
                    raise SystemExit("no MJPG video writer in this OpenCV build")
            writer.write(f.image)
            truth.append((f.hand, Counter(c.label if c.face_up else "back" for c in sim.visible())))
    assert writer is not None
    writer.release()
    return truth


def measure(path: Path, truth: list[tuple[bool, Counter[str]]]) -> dict[str, object]:
    layout = layout_for("chinese-ten", 3)
    rec = Recognizer(threads=1)
    follower = Follower(rec)
    frames = [frame for _, frame in read_frames(path)]
    cal = calibrate_once(layout, frames[0])
    plane, ignore = cal.image_to_mat, marker_areas(layout, cal)
    out: dict[str, object] = {"frames": len(frames)}
    names: dict[str, list[Counter[str]]] = {}
    for mode in ("follow", "whole"):
        ms, got = [], []
        for frame in frames:
            t0 = time.process_time()
            cards = (
                follower.recognize(frame, plane=plane, ignore=ignore)
                if mode == "follow"
                else rec.recognize(frame, plane=plane, ignore=ignore)
            )
            ms.append(1000 * (time.process_time() - t0))
            got.append(Counter(c.card for c in cards))
        names[mode] = got
        clear = [i for i, (hand, _) in enumerate(truth) if not hand]
        out[mode] = {
            "ms_mean": round(statistics.fmean(ms), 2),
            "ms_median": round(statistics.median(ms), 2),
            "ms_p95": round(float(np.percentile(ms, 95)), 2),
            "clear_frames_equal_truth": sum(got[i] == truth[i][1] for i in clear),
            "clear_frames": len(clear),
        }
    out["frames_follow_equals_whole"] = sum(a == b for a, b in zip(names["follow"], names["whole"], strict=True))
    out["follow_detections"] = dict(follower.stats)
    return out


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "plays.avi"
        truth = record(video, args.actions, args.seed)
        result = measure(video, truth)
    result["command"] = " ".join(["benchmarks/follow_video.py", *(sys.argv[1:] if argv is None else argv)])
    print(json.dumps(result) if args.json else json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
