"""Table vision benchmark: events, latency, calibration and per-frame speed on the simulated table.

    .venv/bin/python benchmarks/bench_tracker.py                  # everything, real recogniser if shipped
    .venv/bin/python benchmarks/bench_tracker.py --only events --recognizer oracle

* events: random Chinese Ten plays (2-4 players, camera tilt 10-30 degrees) through the whole
  per-frame path (sim camera -> hand detection -> change gate -> recogniser -> tracker). Every action
  is done by a hand that hides the table in at least a third of its frames. Each action's events are
  compared with the simulator's truth: exactly once, in the action's own window (so in order), none
  spurious, none missing. Latency: frames from the first frame in which the table is final and no hand
  is in view to the frame the event is decided, at 15 fps.
* calibration: mat coordinates of a grid of points from one frame's markers, tilt 0-30 degrees.
* detection: one frame of 12 cards on the simulated mat, and one card put down: what a detection of the whole frame
  costs with the mat's markers and with them ignored, and what a recognition of the regions around the change costs.
* quiet: a settled table of 12 cards, the same frame again and again: the cost of a frame with nothing to recognise.
* speed: 12 cards on the table, plays with hands, one core (onnxruntime 1 thread, OpenCV 1 thread,
  process pinned to one CPU): time per frame for capture (rendering the simulated frame), the
  vision path, and the total; with the change gate and without it (recognition on every clear frame).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.calibration import calibrate_once  # noqa: E402
from vision.change_regions import GROW  # noqa: E402
from vision.simtable import SimCamera, SimOracle, SimTable, default_camera  # noqa: E402
from vision.watcher import TableWatcher  # noqa: E402
from vision.zones import Layout, layout_for  # noqa: E402

MODEL = Path(__file__).resolve().parents[1] / "models" / "cardnet.onnx"
FPS = 15.0


def make_recognizer(kind: str, sim: SimTable, seed: int) -> Any:
    if kind == "oracle":
        # the truth with noise: 3% confident misreads, 5% weak reads, 3% dropouts per card and frame
        return SimOracle(sim, misread=0.03, weak=0.05, dropout=0.03, seed=seed)
    from vision.recognizer import Recognizer

    return Recognizer(threads=1)


def random_action(sim: SimTable, rng: random.Random, hand: list[str], seats: list[int], cap: int) -> bool:
    lay = sim.card_in("layout")
    r = rng.random()
    seat = rng.choice(seats)
    if r < 0.4 and hand and len(lay) < cap:
        sim.place(hand.pop(), "layout", seat=seat)
    elif r < 0.7 and len(lay) >= 2:
        sim.take([c.id for c in rng.sample(lay, 2)], f"capture:{seat}", seat=seat)
    elif r < 0.85 and sim.card_in("stock") and len(lay) < 12:
        sim.flip_stock("layout", seat=seat)
    elif lay:
        sim.turn_over(rng.choice(lay).id, seat=seat)
    else:
        return False
    return True


def deal(sim: SimTable, rng: random.Random) -> list[str]:
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    rng.shuffle(deck)
    sim.set_stock(deck[:16])
    return deck[16:]


def laid_table(layout_cards: int, rng: random.Random) -> tuple[Layout, SimTable, list[str]]:
    """The speed measurements' table: the chinese-ten-3 mat seen at tilt 20 (sim seed 99), the stock dealt with
    ``rng`` and ``layout_cards`` cards laid out at once; the layout, the sim and the cards left in hand."""
    layout = layout_for("chinese-ten", 3)
    sim = SimTable(layout, seed=99, camera=SimCamera(tilt_deg=20), fps=FPS)
    hand = deal(sim, rng)
    for _ in range(layout_cards):
        sim.place(hand.pop(), "layout", animate=False)
    return layout, sim, hand


def bench_events(kind: str, target: int, verbose: bool = False) -> dict[str, Any]:
    expected = matched_actions = actions = 0
    spurious = missing = 0
    latencies: list[int] = []
    min_hand_share = 1.0
    frames = 0
    seed = 0
    detections = Counter[str]()
    t0 = time.perf_counter()
    while expected < target:
        seed += 1
        players = 2 + seed % 3
        layout = layout_for("chinese-ten", players)
        camera = SimCamera(tilt_deg=10 + (seed * 7) % 21, yaw_deg=(seed * 5) % 11 - 5, roll_deg=(seed % 5) - 2)
        sim = SimTable(layout, seed=seed, camera=camera, fps=FPS)
        watcher = TableWatcher(layout, make_recognizer(kind, sim, seed))
        rng = random.Random(seed)
        hand = deal(sim, rng)
        seats = list(range(1, players + 1))
        got_all: list[Any] = []
        for f in sim.play(extra_frames=6):
            got_all += watcher.process(f.image, frame_index=f.index, timestamp=f.timestamp)
        want0 = Counter([("appeared", "back", "stock", None)])
        have0 = Counter((e.kind.value, e.card, e.zone, e.from_zone) for e in got_all)
        expected += 1
        spurious += sum((have0 - want0).values())
        missing += sum((want0 - have0).values())
        for _ in range(40):
            if not random_action(sim, rng, hand, seats, 10):
                continue
            got: list[Any] = []
            for f in sim.play():
                frames += 1
                got += watcher.process(f.image, frame_index=f.index, timestamp=f.timestamp)
                for a in f.finished:
                    actions += 1
                    min_hand_share = min(min_hand_share, a.hand_frames / a.total_frames)
                    want = Counter((e.kind, e.card, e.zone, e.from_zone) for e in a.expected)
                    have = Counter((e.kind.value, e.card, e.zone, e.from_zone) for e in got)
                    expected += sum(want.values())
                    spurious += sum((have - want).values())
                    missing += sum((want - have).values())
                    matched_actions += want == have
                    latencies += [e.frame - a.settled_frame for e in got]
                    if verbose and (want != have or any(e.frame - a.settled_frame > 4 for e in got)):
                        print(
                            f"  game {seed} {a.name} frames {a.first_frame}-{a.settled_frame}: want {dict(want)}",
                            f"got {[(e.describe(), e.frame - a.settled_frame) for e in got]}",
                            flush=True,
                        )
        detections.update(
            whole=watcher.stats.recognised, regions=watcher.stats.regional, unexplained=watcher.stats.unexplained
        )
    ms = [1000.0 * n / FPS for n in latencies]
    return {
        "recognizer": kind,
        "games": seed,
        "actions": actions,
        "events_expected": expected,
        "actions_exact": matched_actions,
        "spurious": spurious,
        "missing": missing,
        "min_hand_share": round(min_hand_share, 3),
        "frames": frames,
        "latency_ms_p50": round(statistics.median(ms), 1),
        "latency_ms_p95": round(float(np.percentile(ms, 95)), 1),
        "latency_ms_max": round(max(ms), 1),
        "detections": dict(detections),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def bench_calibration() -> list[dict[str, Any]]:
    rows = []
    for game, n in (("chinese-ten", 3), ("garbage", 8)):
        layout = layout_for(game, n)
        xs, ys = np.meshgrid(np.linspace(50, layout.width_mm - 50, 9), np.linspace(50, layout.height_mm - 50, 7))
        pts = np.stack([xs.ravel(), ys.ravel()], 1)
        for tilt in (0, 10, 20, 30):
            worst = 0.0
            for yaw, roll in ((0, 0), (15, 3), (-10, -4)):
                # the camera a table of that size needs (1080p for the Garbage cloths, docs/zones.md)
                camera = dataclasses.replace(default_camera(layout), tilt_deg=tilt, yaw_deg=yaw, roll_deg=roll)
                sim = SimTable(layout, seed=tilt + yaw, camera=camera)
                truth = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), sim.mat_to_image).reshape(-1, 2)
                cal = calibrate_once(layout, sim.render())
                worst = max(worst, float(np.linalg.norm(cal.to_mat(truth) - pts, axis=1).max()))
            rows.append(
                {
                    "layout": layout.name,
                    "camera": f"{camera.width}x{camera.height}",
                    "tilt": tilt,
                    "max_error_mm": round(worst, 2),
                }
            )
    return rows


def bench_speed(
    kind: str, gate: bool, frames_wanted: int = 600, regional: bool = True, grow: float = GROW
) -> dict[str, Any]:
    rng = random.Random(99)
    layout, sim, hand = laid_table(11, rng)  # 11 layout cards + the stock = 12 cards in view
    watcher = TableWatcher(layout, make_recognizer(kind, sim, 99), gate=gate, regional=regional, region_grow=grow)
    capture = vision = 0.0
    per_frame: list[float] = []
    kind_ms: dict[str, list[float]] = {"whole": [], "regions": [], "other": []}  # the vision path, by what it did
    st = watcher.stats
    n = 0
    for f in sim.play(extra_frames=10):  # warm up: calibration, first recognitions
        watcher.process(f.image, frame_index=f.index, timestamp=f.timestamp)
    while n < frames_wanted:
        lay = sim.card_in("layout")
        if len(lay) >= 11:  # keep about 12 cards: take a pair, then lay two
            sim.take([c.id for c in rng.sample(lay, 2)], "capture:1", seat=1)
        elif hand:
            sim.place(hand.pop(), "layout", seat=rng.randint(1, 3))
        else:
            hand = deal(SimTable(layout, seed=n), rng)[:20]
            continue
        while sim.busy:
            t0 = time.perf_counter()
            f = sim.next_frame()
            t1 = time.perf_counter()
            before = (st.recognised, st.regional)
            watcher.process(f.image, frame_index=f.index, timestamp=f.timestamp)
            t2 = time.perf_counter()
            capture += t1 - t0
            vision += t2 - t1
            per_frame.append(t2 - t0)
            kind_ms["whole" if st.recognised > before[0] else "regions" if st.regional > before[1] else "other"].append(
                1000 * (t2 - t1)
            )
            n += 1
    return {
        "recognizer": kind,
        "gate": gate,
        "regional": regional,
        "grow": grow,
        "frames": n,
        "capture_ms": round(1000 * capture / n, 2),
        "vision_ms": round(1000 * vision / n, 2),
        "fps": round(n / (capture + vision), 1),
        "frame_ms_p50_p95_max": [round(1000 * float(np.percentile(per_frame, q)), 1) for q in (50, 95, 100)],
        "recognised_share": round(st.recognised / st.frames, 3),
        "regional_share": round(st.regional / st.frames, 3),
        "unexplained_after_regions": st.unexplained,
        "stage_ms": {k: round(1000 * v / st.frames, 2) for k, v in st.seconds.items()},
        "vision_ms_p50_by_detection": {k: round(statistics.median(v), 1) for k, v in kind_ms.items() if v},
    }


def bench_detection(repeats: int = 7) -> dict[str, Any]:
    """One frame of the simulated mat (chinese-ten-3, tilt 20, 11 layout cards and the stock), then one more card put
    down: process-CPU ms (median of ``repeats``) of the whole frame's detection with the mat's markers and with them
    ignored, of a recognition of the whole frame and of the regions around the change (``vision.change_regions``, at
    half a card length and one; every known card classified again, and ``_reusing`` the last readings of the cards no
    region touches, as the watcher does), and of the classification alone."""
    from vision.calibration import marker_areas
    from vision.change_regions import changed_boxes, regions_around
    from vision.detect import detect_cards
    from vision.recognizer import Recognizer
    from vision.watcher import ChangeGate

    layout, sim, hand = laid_table(10, random.Random(99))
    before = sim.render()
    sim.place(hand.pop(), "layout", animate=False)
    after = sim.render()
    cal = calibrate_once(layout, before)
    plane = cal.image_to_mat
    markers = marker_areas(layout, cal)
    rec = Recognizer(threads=1)
    readings = rec.recognize(before, plane=plane, ignore=markers)
    known = [r.corners for r in readings]
    gate = ChangeGate()
    changed = changed_boxes(gate.small(before), gate.small(after), after.shape)

    def ms(work: Any) -> tuple[Any, float]:
        times = []
        for _ in range(repeats):
            t0 = time.process_time()
            out = work()
            times.append(1000 * (time.process_time() - t0))
        return out, round(statistics.median(times), 1)

    row: dict[str, Any] = {}
    for name, ignore in (("detect_whole_with_markers", []), ("detect_whole_markers_ignored", markers)):
        found, row[name] = ms(lambda ignore=ignore: detect_cards(after, plane=plane, ignore=ignore))
        row[name + "_cards"] = len(found)
    got, row["recognize_whole"] = ms(lambda: rec.recognize(after, plane=plane, ignore=markers))
    row["recognize_whole_cards"] = len(got)
    for grow in (0.5, 1.0):
        regions = regions_around(changed, known, after.shape, grow=grow) or []
        got, row[f"recognize_regions_{grow}"] = ms(
            lambda regions=regions: rec.recognize_regions(after, regions, known, plane=plane, ignore=markers)
        )
        row[f"recognize_regions_{grow}_cards"] = len(got)
        same, row[f"recognize_regions_{grow}_reusing"] = ms(
            lambda regions=regions: rec.recognize_regions(
                after, regions, known, plane=plane, ignore=markers, readings=readings
            )
        )
        row[f"recognize_regions_{grow}_reusing_cards"] = len(same)
        row[f"regions_{grow}_share"] = round(
            sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in regions) / (after.shape[0] * after.shape[1]), 3
        )
    _, row["classify_only"] = ms(lambda: rec.classify_quads(after, [r.corners for r in got]))
    row["cards_in_view"] = len(sim.visible())
    return row


def bench_quiet(frames: int = 600) -> dict[str, Any]:
    """A settled table of 12 cards (chinese-ten-3, tilt 20), the same frame again and again: process-CPU ms of the
    watcher's path for a frame with nothing to recognise (the hand detector and the change gate), the path most
    frames of a game take. The sim's truth recognises (it is not called on such frames)."""
    layout, sim, _ = laid_table(11, random.Random(99))
    image = sim.render()
    watcher = TableWatcher(layout, SimOracle(sim))
    for i in range(60):  # calibrated, recognised and settled
        watcher.process(image, frame_index=i)
    skipped = watcher.stats.skipped_static
    ms = []
    for i in range(60, 60 + frames):
        t0 = time.process_time()
        watcher.process(image, frame_index=i)
        ms.append(1000 * (time.process_time() - t0))
    return {
        "frames": frames,
        "nothing_recognised": watcher.stats.skipped_static - skipped,
        "ms_median": round(statistics.median(ms), 2),
        "ms_mean": round(statistics.fmean(ms), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--recognizer", choices=("real", "oracle"), default="real" if MODEL.exists() else "oracle")
    parser.add_argument("--events", type=int, default=500, help="at least this many expected events")
    parser.add_argument("--only", choices=("events", "calibration", "speed", "detection", "quiet"))
    parser.add_argument("--verbose", action="store_true", help="print each action that went wrong or slow")
    args = parser.parse_args()
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    cv2.setNumThreads(1)
    if args.only in (None, "calibration"):
        print("calibration", bench_calibration(), flush=True)
    if args.only in (None, "quiet"):
        print("quiet", bench_quiet(), flush=True)
    if args.only in (None, "detection") and args.recognizer == "real":
        print("detection", bench_detection(), flush=True)
    if args.only in (None, "speed"):
        print("speed", bench_speed(args.recognizer, True), flush=True)
        print("speed", bench_speed(args.recognizer, True, regional=False), flush=True)
        print("speed", bench_speed(args.recognizer, False, 300), flush=True)
    if args.only in (None, "events"):
        print("events", bench_events(args.recognizer, args.events, args.verbose), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
