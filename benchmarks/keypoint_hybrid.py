"""The learned detector first, the shipped one only where it leaves a doubt: what that would find and cost. A spike
for issue 5's speed target; nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/keypoint_hybrid.py --model /tmp/kp.pt --checker /tmp/kc.pt \
        --kind realistic|hard|clutter|speed --scenes 10 [--seed 2024] [--regions [GROW]] [--on-plane] \
        [--support 0.95] [--grey-edges | --step 20] [--doubt 0.2] [--check-doubts P] \
        [--verifier /tmp/kv.pt --trust 0.5] [--rescue] [--paper] [--calibrated] [--alone] [--classify]

Each frame is detected by ``keypoint_cascade.Cascade`` (the learned outlines, snapped), then judged with cheap cues
(``Judge``). A frame is in doubt where a peak of the first stage over ``--doubt`` lies off the outlines kept, or an
outline is poor: its weakest side off the shipped detector's edge map (``--grey-edges``: its grey edges alone;
``--step``: the frame's own colour steps, ``step_support``) for more than 1 - ``--support`` of its length, or
(``--verifier``) the verifier's trust in it under ``--trust``; with ``--paper``, also where a card's area of paper
(the Otsu mask of the darkest channel, as the detector's) lies outside the outlines. With ``--rescue`` a poor outline
is first replaced by its outline before snapping, or else by itself snapped once more, where that one is not poor
(``Judge.rescued``). A frame in doubt is detected by
``vision.detect.detect_cards`` (image mode, the shipped defaults) and takes its outlines, or with ``--regions`` only
its doubtful parts are (``in_regions``: ``detect_in_region`` around each doubtful peak and poor outline, with
``--on-plane`` on the plane the good outlines give; a frame in doubt for paper alone has no such part).

Every frame is also detected by the shipped detector alone (not with ``--alone``), so the figures compare the
learned outlines, the shipped ones and the hybrid on the same frames: cards found and false outlines
(``segmentation_spike.tally``), the frames handed on (and for which reason; ``verdicts``: whether the learned outlines
had a card missed or a false one), and ms a frame (mean, median, 90th percentile; one thread), the learned step's
parts too. The hybrid's time is the learned detection, the judgement (on the cascade's half-size frame and pyramid)
and, where in doubt, the shipped detection, which makes its own half-size frame and edge map again: a real hybrid
would share them. ``--classify``: the shipped recogniser names the hybrid's outlines
(``Recognizer.recognize_outlines``), counted as ``models.training.evaluate`` counts its own, and "frame" is the
issue's figure, detection and classification. ``--kind speed``: the recognition benchmark's speed frames (12 of the
project's drawn cards each).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.keypoint_cascade import Cascade, Detection, off_all  # noqa: E402
from benchmarks.keypoint_spike import evaluation_scenes  # noqa: E402
from benchmarks.keypoint_verifier import Verifier  # noqa: E402
from benchmarks.segmentation_spike import new_counts, tally  # noqa: E402
from vision.learned_detect import doubtful_regions  # noqa: E402
from vision.outline_judge import step_support  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402


def at_scale(frame: np.ndarray, half: np.ndarray | None) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """``vision.frame_cues.at_detection_scale`` (the frame at the shipped detector's scale, its channels, its darkest
    channel), from the cascade's ``half``-size frame where given (the same pixels at the detector's scale of 0.5)."""
    from vision.detector_config import DEFAULT_CONFIG as config
    from vision.frame_cues import at_detection_scale

    if half is None or config.scale != 0.5:
        return at_detection_scale(frame, config)
    channels = tuple(cv2.split(half))
    return half, channels, cv2.min(cv2.min(channels[0], channels[1]), channels[2])


def support_on(
    frame: np.ndarray, quads: list[np.ndarray], half: np.ndarray | None, grey_only: bool = False
) -> np.ndarray:
    """``vision.detect.outline_support`` (each full-resolution outline's weakest side on the shipped detector's edge
    map, an edge pixel within 2 px at its scale), from ``half`` where given (``at_scale``). ``grey_only``: on the map's
    grey edges alone, without its chroma edges."""
    from vision.detector_config import DEFAULT_CONFIG as config
    from vision.edge_map import edge_map
    from vision.quads import weakest_side_support

    small, channels, least = at_scale(frame, half)
    if grey_only:
        edges = cv2.Canny(
            cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0), config.grey_low, config.grey_high
        )
    else:
        edges = edge_map(small, channels, least, config)
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    return weakest_side_support([(q + 0.5) * config.scale - 0.5 for q in quads], near)


@dataclass(frozen=True)
class Judge:
    """What makes an outline of the cascade poor: a side off the shipped detector's edge map (``support``: the least
    share of its weakest side within 2 px of an edge at the detector's scale, ``support_on``; 0: no edge test), or
    (with a ``verifier``, ``keypoint_verifier.py``) its trust under ``trust``. With ``paper``, a frame with a card's
    area of paper outside the outlines (``vision.frame_cues.paper_left`` on the Otsu mask of the darkest channel, as
    the shipped detector's) is not explained either."""

    support: float
    paper: bool = False
    verifier: Verifier | None = None
    trust: float = 0.5
    grey_only: bool = False
    """Judge sides on the edge map's grey edges alone (``support_on``)."""
    step: float = 0.0
    """Over 0: judge sides on the frame's own steps of at least this much instead (``step_support``)."""
    rescue: bool = False
    """Before a poor outline hands its frame on, try its outline before snapping, then it snapped once more (``Judge.
    rescued``)."""

    def poor(self, frame: np.ndarray, found: Detection) -> tuple[np.ndarray, np.ndarray]:
        """(Q,) for each snapped outline of ``found``: is it poor for a side off edges, and is it for the verifier?
        Both work on the cascade's half-size frame and pyramid where ``found`` has them."""
        return self.poor_outlines(frame, found.snapped, found)

    def poor_outlines(
        self, frame: np.ndarray, quads: list[np.ndarray], found: Detection
    ) -> tuple[np.ndarray, np.ndarray]:
        """``poor`` for any full-resolution ``quads`` of ``found``'s frame."""
        if not quads:
            return np.zeros(0, bool), np.zeros(0, bool)
        if self.support <= 0:
            off_edges = np.zeros(len(quads), bool)
        elif self.step > 0:
            off_edges = step_support(frame, quads, self.step) < self.support
        else:
            off_edges = support_on(frame, quads, found.half, self.grey_only) < self.support
        levels = None if found.half is None or found.quarter is None else (found.half, found.quarter)
        doubted = (
            np.zeros(len(quads), bool)
            if self.verifier is None
            else self.verifier.trust(frame, quads, levels) < self.trust
        )
        return off_edges, doubted

    def rescued(
        self, frame: np.ndarray, found: Detection, off_edges: np.ndarray, doubted: np.ndarray
    ) -> tuple[Detection, np.ndarray, np.ndarray]:
        """``found`` with each poor snapped outline replaced as ``vision.outline_judge.rescue`` replaces it (by its
        outline before snapping, or itself snapped once more, where that one is not poor), and the poor flags after."""
        from vision.outline_judge import rescue

        snapped, replaced = rescue(
            frame,
            found.kept,
            found.snapped,
            off_edges | doubted,
            lambda quads: np.logical_or(*self.poor_outlines(frame, quads, found)),
        )
        return found._replace(snapped=snapped), off_edges & ~replaced, doubted & ~replaced

    def paper_left(self, frame: np.ndarray, found: Detection) -> bool:
        from vision.detector_config import DEFAULT_CONFIG as config
        from vision.frame_cues import min_card_area, paper_left

        least = at_scale(frame, found.half)[2]
        _, mask = cv2.threshold(least, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        return paper_left(mask, [(q + 0.5) * config.scale - 0.5 for q in found.snapped], min_card_area(config))


def in_regions(
    frame: np.ndarray,
    found: Detection,
    poor: np.ndarray,
    grow: float = 0.6,
    on_plane: bool = False,
    plane: np.ndarray | None = None,
) -> list[np.ndarray]:
    """The cascade's outlines that are not ``poor``, and the shipped detector's (``detect_in_region``, the good
    outlines as the deck) in the ``doubtful_regions`` of its doubtful peaks and its poor outlines, where no good
    outline already lies. ``on_plane``: each region is detected on the table plane the good outlines give
    (``vision.plane_from_cards``, as the shipped detector's second detection), where they give one; ``plane``: the
    calibrated table's (image pixels -> table, as ``detect_cards`` takes it), which wins over it."""
    from vision.detect import detect_in_region

    good = [q for q, bad in zip(found.snapped, poor, strict=True) if not bad]
    out = list(good)
    doubted = [q for q, bad in zip(found.snapped, poor, strict=True) if bad] + found.doubtful
    table = plane
    if table is None and on_plane:
        from vision.detector_config import DEFAULT_CONFIG as config
        from vision.plane_from_cards import plane_from_cards

        table = plane_from_cards(good, frame.shape, spread=config.plane_spread, drop=config.plane_drop)
    for region in doubtful_regions(frame.shape, doubted, grow):
        for quad in detect_in_region(frame, region, plane=table, deck=good):
            if off_all(quad, good):
                out.append(quad)
    return out


def _scenes(kind: str, scenes: int, seed: int) -> Iterator[Any]:
    """``keypoint_spike.evaluation_scenes``, or for "speed" ``scenes`` of the recognition benchmark's speed frames
    (``bench_recognition.speed_scenes``; ``seed`` is not theirs: they are drawn as that benchmark draws them)."""
    if kind != "speed":
        yield from evaluation_scenes(kind, scenes, seed)
        return
    from benchmarks.bench_recognition import speed_scenes

    yield from speed_scenes(scenes)


def name_cards(naming: dict[str, int], cards: list[tuple[str, np.ndarray]], seen: list[Any]) -> None:
    """Add one frame's recognitions ``seen`` (``vision.recognizer.Recognition``) to ``naming`` as
    ``models.training.evaluate`` counts its own (``counted``): named, unknown, wrong and false cards."""
    from models.training.evaluate import counted

    t = counted(cards, seen)[0]
    for key in naming:
        naming[key] += getattr(t, key)


def flawless(before: dict[str, int], after: dict[str, int]) -> bool:
    """Did the frame ``tally`` added between ``before`` and ``after`` have every card found and no false outline?"""
    return (
        after["found"] - before["found"] == after["cards"] - before["cards"]
        and after["false_snapped"] == before["false_snapped"]
    )


def evaluate(
    cascade: Cascade,
    judge: Judge,
    kind: str,
    scenes: int,
    seed: int,
    regions: float = 0.0,
    on_plane: bool = False,
    calibrated: bool = False,
    alone: bool = False,
    recognizer: Recognizer | None = None,
) -> dict[str, Any]:
    """``regions``: detect again only in ``doubtful_regions`` grown by this much (0: the whole frame). ``alone``: the
    shipped detector does not also detect every frame (so the hybrid's time is its own, and with ``regions`` its
    figures are not compared). ``recognizer``: its classification of the hybrid's outlines is timed too, and
    "frame" is the issue's figure: detection and classification."""
    from vision.detect import detect_cards

    counts = {"learned": new_counts(), "shipped": new_counts(), "hybrid": new_counts()}
    times: dict[str, list[float]] = {
        "learned": [],
        "shipped": [],
        "hybrid": [],
        "judge": [],
        "hand_on": [],
        "classify": [],
        "frame": [],
    }
    why = {"doubtful_peak": 0, "off_edges": 0, "verifier": 0, "paper": 0}  # frames handed on for each reason
    handed_on = 0
    naming = {"named": 0, "unknown": 0, "wrong": 0, "false_cards": 0}  # with a recognizer
    verdicts = {
        "needed": 0,
        "needless": 0,
        "missed": 0,
        "right": 0,
    }  # in doubt or not, the learned outlines flawed or not
    shown = list(_scenes(kind, scenes, seed))
    cascade.detect(shown[0].image)  # the first run of a session is slow (as bench_recognition's warm-up pass)
    for scene in shown:
        found = cascade.detect(scene.image)
        t0 = time.perf_counter()
        off_edges, doubted = judge.poor(scene.image, found)
        learned = found.snapped
        if judge.rescue:
            found, off_edges, doubted = judge.rescued(scene.image, found, off_edges, doubted)
        reasons = {
            "doubtful_peak": bool(found.doubtful),
            "off_edges": bool(off_edges.any()),
            "verifier": bool(doubted.any()),
        }
        if judge.paper and not any(reasons.values()):
            reasons["paper"] = judge.paper_left(scene.image, found)
        t1 = time.perf_counter()
        plane = scene.plane if calibrated else None  # (the table watcher's case: the mat gives the plane)
        in_doubt = any(reasons.values())
        compared = ("learned", "hybrid") if alone else ("learned", "shipped", "hybrid")
        shipped = detect_cards(scene.image, plane=plane) if not alone or (in_doubt and not regions) else []
        t2 = time.perf_counter()
        if not in_doubt:
            hybrid, hand_on_ms = found.snapped, 0.0
        elif regions:
            hybrid = in_regions(scene.image, found, off_edges | doubted, regions, on_plane, plane)
            hand_on_ms = 1000 * (time.perf_counter() - t2)
        else:
            hybrid, hand_on_ms = shipped, 1000 * (t2 - t1)
        if recognizer is not None:
            t3 = time.perf_counter()
            seen = recognizer.recognize_outlines(scene.image, hybrid)
            times["classify"].append(1000 * (time.perf_counter() - t3))
            name_cards(naming, scene.cards, seen)
        handed_on += any(reasons.values())
        for reason, held in reasons.items():
            why[reason] += held
        times["learned"].append(sum(found.ms))
        for part, ms in zip(("resize", "first_stage", "check", "snap"), found.ms, strict=True):
            times.setdefault(part, []).append(ms)
        if "shipped" in compared:
            times["shipped"].append(1000 * (t2 - t1))
        times["hybrid"].append(sum(found.ms) + 1000 * (t1 - t0) + hand_on_ms)
        times["judge"].append(1000 * (t1 - t0))
        times["hand_on"].append(hand_on_ms)
        if recognizer is not None:
            times["frame"].append(times["hybrid"][-1] + times["classify"][-1])
        for name, quads in (("learned", learned), ("shipped", shipped), ("hybrid", hybrid)):
            if name in compared:
                tally(counts[name], scene.cards, quads, quads)
        judged = new_counts()  # the outlines the judge saw last (rescued ones with --rescue)
        tally(judged, scene.cards, found.snapped, found.snapped)
        flawed = not flawless(new_counts(), judged)
        verdicts["needed" if in_doubt and flawed else "needless" if in_doubt else "missed" if flawed else "right"] += 1
    return {
        "kind": kind,
        "seed": seed,
        "support": judge.support,
        "trust": judge.trust if judge.verifier else None,
        "paper": judge.paper,
        "grey_edges": judge.grey_only,
        "step": judge.step,
        "rescue": judge.rescue,
        "regions": regions,
        "on_plane": on_plane,
        "calibrated": calibrated,
        "doubt": cascade.doubt,
        "check_doubts": cascade.check_doubts,
        "frames": counts["hybrid"]["frames"],
        "handed_on": handed_on,
        "handed_on_for": why,
        "verdicts": verdicts,
        **({"recognised": naming} if recognizer is not None else {}),
        **{
            name: {"cards": c["cards"], "found": c["found"], "false": c["false_snapped"]}
            for name, c in counts.items()
            if c["frames"]
        },
        "ms_mean_median_p90": {
            name: [round(float(np.mean(t)), 2), round(float(np.median(t)), 2), round(float(np.quantile(t, 0.9)), 2)]
            for name, t in times.items()
            if t
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", type=Path, required=True, help="a trained first stage (keypoint_spike.py train)")
    parser.add_argument("--checker", type=Path, required=True, help="a trained checker (keypoint_cascade.py train)")
    parser.add_argument("--kind", choices=("realistic", "hard", "clutter", "speed"), default="realistic")
    parser.add_argument(
        "--scenes", type=int, default=10, help="scenes a held-out design (clutter: as many frames; speed: frames)"
    )
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--support", type=float, default=0.95, help="the least share of each side on edges")
    parser.add_argument("--doubt", type=float, default=0.2, help="the least peak that makes a frame doubtful")
    parser.add_argument(
        "--check-doubts",
        type=float,
        default=0.0,
        metavar="P",
        help="a doubtful peak counts only where the checker gives it a card probability of P or more",
    )
    parser.add_argument("--verifier", type=Path, help="a trained verifier (keypoint_verifier.py train)")
    parser.add_argument("--trust", type=float, default=0.5, help="the verifier's least trust in a good outline")
    parser.add_argument("--paper", action="store_true", help="hand on frames with paper outside the outlines too")
    parser.add_argument(
        "--regions",
        type=float,
        default=0.0,
        nargs="?",
        const=0.6,
        metavar="GROW",
        help="detect again only around doubtful peaks and poor outlines (in_regions), each box grown "
        "by GROW of its larger side (0.6 without a value); 0: the whole frame",
    )
    parser.add_argument("--grey-edges", action="store_true", help="judge sides on grey edges alone (support_on)")
    parser.add_argument(
        "--step",
        type=float,
        default=0.0,
        metavar="LEAST",
        help="judge sides on the frame's own colour steps of LEAST or more instead (step_support)",
    )
    parser.add_argument(
        "--on-plane", action="store_true", help="detect the regions on the plane the good outlines give (in_regions)"
    )
    parser.add_argument(
        "--calibrated",
        action="store_true",
        help="give the shipped detector each scene's table plane, as a calibrated table does",
    )
    parser.add_argument(
        "--rescue",
        action="store_true",
        help="try a poor outline before snapping and snapped again before handing on (Judge.rescued)",
    )
    parser.add_argument(
        "--alone",
        action="store_true",
        help="do not also run the shipped detector on every frame (the hybrid's own time)",
    )
    parser.add_argument(
        "--classify",
        action="store_true",
        help="time the shipped recogniser's classification of the hybrid's outlines too",
    )
    args = parser.parse_args()
    cascade = Cascade(args.model, args.checker, doubt=args.doubt, check_doubts=args.check_doubts)
    judge = Judge(
        args.support,
        args.paper,
        None if args.verifier is None else Verifier(args.verifier),
        args.trust,
        args.grey_edges,
        args.step,
        args.rescue,
    )
    recognizer = Recognizer() if args.classify else None
    print(
        evaluate(
            cascade,
            judge,
            args.kind,
            args.scenes,
            args.seed,
            args.regions,
            args.on_plane,
            args.calibrated,
            args.alone,
            recognizer,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
