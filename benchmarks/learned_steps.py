"""Where the default recogniser's frame goes: each step of the learned path on the speed frames, one core.

    .venv/bin/python benchmarks/learned_steps.py [--frames 40] [--repeats 3] [--json]

The frames are ``bench_recognition.py``'s speed frames (1280x720, 12 of the project's drawn cards). Each frame is
recognised ``--repeats`` times and each step's best time kept (the machine's speed moves by a third within
minutes, so the best of a few runs of one frame is steadier than any one run). Steps: the outline networks'
``resize``, ``first`` stage, ``check`` and ``snap`` (``OutlineNets.find``'s own timings), the ``judge`` (the
outline judge with its rescue), ``detect`` (all of ``detect_learned``, with the shipped detector in the regions
of frames handed on) and ``classify`` (``Recognizer.classify_quads``); ``frame`` is detect + classify. The report
gives each step's median over all frames and over the frames not handed on, and which frames were handed on.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_recognition import speed_scenes  # noqa: E402
from vision.learned_detect import JUDGE, detect_learned  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402

STEPS = ("resize", "first", "check", "snap", "judge", "detect", "classify", "frame")


def step_times(rec: Recognizer, frames: int, repeats: int) -> tuple[list[dict[str, float]], list[bool]]:
    """Each frame's best ms per step over ``repeats`` runs, and whether the frame was handed on."""
    nets = rec.outline_nets
    if nets is None:
        raise ValueError("the recogniser has no outline networks (learned=False)")
    scenes = speed_scenes(frames)
    best: list[dict[str, float]] = [{} for _ in scenes]
    handed_on = [False] * len(scenes)
    for round_ in range(repeats + 1):  # the first round warms caches and is not kept
        for k, scene in enumerate(scenes):
            found = nets.find(scene.image)  # times its own steps
            t1 = time.perf_counter()
            JUDGE.rescued(nets, scene.image, found)
            t2 = time.perf_counter()
            detection = detect_learned(scene.image, nets, rec.detector)
            t3 = time.perf_counter()
            rec.classify_quads(scene.image, detection.quads)
            t4 = time.perf_counter()
            ms = dict(zip(STEPS[:4], found.ms, strict=True))
            ms.update(
                judge=1000 * (t2 - t1), detect=1000 * (t3 - t2), classify=1000 * (t4 - t3), frame=1000 * (t4 - t2)
            )
            if round_:
                best[k] = {step: min(best[k].get(step, ms[step]), ms[step]) for step in STEPS}
            handed_on[k] = bool(detection.regions)
    return best, handed_on


def report(best: list[dict[str, float]], handed_on: list[bool]) -> dict[str, Any]:
    clean = [ms for ms, on in zip(best, handed_on, strict=True) if not on]
    return {
        "frames": len(best),
        "handed_on": [k for k, on in enumerate(handed_on) if on],
        "median_ms": {step: round(statistics.median(ms[step] for ms in best), 2) for step in STEPS},
        "median_ms_not_handed_on": {step: round(statistics.median(ms[step] for ms in clean), 2) for step in STEPS}
        if clean
        else {},
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.frames < 1 or args.repeats < 1:
        ap.error("--frames and --repeats must be at least 1")
    best, handed_on = step_times(Recognizer(threads=1), args.frames, args.repeats)
    out = {
        "command": "benchmarks/learned_steps.py " + " ".join(sys.argv[1:] if argv is None else argv),
        **report(best, handed_on),
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"{out['frames']} frames, {len(out['handed_on'])} handed on: {out['handed_on']}")
    for step in STEPS:
        print(
            f"{step:9s} median {out['median_ms'][step]:6.2f} ms, not handed on "
            f"{out['median_ms_not_handed_on'].get(step, float('nan')):6.2f} ms"
        )


if __name__ == "__main__":
    main()
