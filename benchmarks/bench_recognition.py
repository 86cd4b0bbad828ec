"""Card recognition benchmark: found / named rates on held-out designs, false cards, speed on one core.

    .venv/bin/python benchmarks/bench_recognition.py [--scenes 20] [--timing-frames 60] [--json] [--speed-only]
                                                     [--calibrated] [--no-learned] [--detector FIELD=VALUE ...]

* Accuracy: every held-out design (never trained on) in realistic 1280x720 table scenes (12 cards,
  90-220 px wide, clutter, uneven light) and hard ones (75-110 px, 3 px apart, 30 deg tilt, glare,
  blur), through the same ``Recognizer`` users run. Found: a detected outline matches the card's
  true outline (corners within 12% of the card width). Named: found and labelled right.
* False cards: outlines reported where there is no card, per 50 frames, on clutter-only tables
  (coins, chips, hands, phones, table edges) and in the card scenes.
* ``--calibrated``: the recogniser is given each scene's table plane, as on a table calibrated from its
  mat (card shapes judged on the table, not in the tilted image).
* The recogniser finds the cards with the learned outline networks first, the shipped detector only where they leave
  a doubt (``vision.learned_detect``, the default); the speed part counts the frames handed on.
  ``--no-learned``: the shipped detector alone.
* Speed: 1280x720 frames with 12 cards, one thread (OpenCV and onnxruntime), detection and
  classification timed separately; median over the frames. With ``--calibrated`` each frame's detection is
  given its table plane too (one detection a frame, no plane estimated and no ``replan``). Wall time on a shared machine
  is noisy,
  so process CPU time is reported beside it.

Needs the Debian designs (gnome-cards-data, kdegames-card-data-kf5, librsvg2-bin) for the accuracy part;
the speed part uses the project's own drawn cards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.evaluate import (  # noqa: E402
    BLUR_CLASSES,
    NORMAL,
    Tally,
    add_both_corners_argument,
    clutter_only,
    evaluate_decks,
)
from models.training.four_colour import four_colour_deck  # noqa: E402
from models.training.synth import Scene, faces_deck, make_scene  # noqa: E402
from vision.cli_recognize import (  # noqa: E402
    add_blur_look_arguments,
    add_learned_argument,
    add_pip_look_arguments,
    add_second_look_below_argument,
    look_settings,
)
from vision.detect import detect_cards  # noqa: E402
from vision.detector_settings import detector_config  # noqa: E402
from vision.learned_detect import detect_learned  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402

SPEED_SEED = 99 + 3
"""The seed of the speed frames at the default ``--seed``."""


def speed_scenes(frames: int, seed: int = SPEED_SEED, *, four_colour: bool = False) -> list[Scene]:
    """The speed part's frames: 1280x720 scenes of 12 of the project's own drawn cards each, 90-150 px wide
    (``four_colour``: painted as four-colour decks, ``models.training.four_colour``)."""
    rng = np.random.default_rng(seed)
    scenes: list[Scene] = []
    while len(scenes) < frames:
        deck = faces_deck(len(scenes) % 8)
        deck = four_colour_deck(deck) if four_colour else deck
        scene = make_scene(rng, deck, replace(NORMAL, n_cards=12, card_width=(90.0, 150.0)))
        if len(scene.cards) == 12:
            scenes.append(scene)
    return scenes


def timing(
    rec: Recognizer, frames: int, seed: int, *, calibrated: bool = False, four_colour: bool = False
) -> dict[str, float]:
    """Per-frame cost on ``frames`` scenes of 12 cards; ``calibrated``: each detection is given the scene's table
    plane (as the table watcher gives the mat's), so it detects once, without estimating a plane."""
    scenes = speed_scenes(frames, seed, four_colour=four_colour)
    det_wall, det_cpu, cls_wall, cls_cpu, total_wall, per_card, cards = [], [], [], [], [], [], []
    whole_cpu: list[float] = []  # Recognizer.recognize as users call it: every look, the covered cards too
    handed_on = 0  # with --learned: frames the learned outlines left a doubt in (second pass)
    for k, scene in enumerate(scenes * 2):  # first pass warms caches; keep the second
        plane = scene.plane if calibrated else None
        w0, c0 = time.perf_counter(), time.process_time()
        if rec.outline_nets is None:
            quads = detect_cards(scene.image, rec.detector, plane=plane)
        else:
            found = detect_learned(scene.image, rec.outline_nets, rec.detector, plane=plane)
            quads = found.quads
            handed_on += k >= len(scenes) and bool(found.regions)
        w1, c1 = time.perf_counter(), time.process_time()
        rec.classify_quads(scene.image, quads)
        w2, c2 = time.perf_counter(), time.process_time()
        det_wall.append(w1 - w0)
        det_cpu.append(c1 - c0)
        cls_wall.append(w2 - w1)
        cls_cpu.append(c2 - c1)
        total_wall.append(w2 - w0)
        cards.append(len(quads))
        if quads:
            per_card.append((w2 - w1) / len(quads))
        c3 = time.process_time()
        rec.recognize(scene.image, plane=plane)
        whole_cpu.append(time.process_time() - c3)
    n = len(scenes)

    def med(xs: list[float]) -> float:
        return round(1000 * statistics.median(xs[n:]), 2)

    crops = np.zeros((12, 2, rec.meta.input_height, rec.meta.input_width, 3), np.uint8)
    from vision.classify import preprocess

    batch = preprocess(crops, rec.meta)
    t = []
    for _ in range(50):
        t0 = time.perf_counter()
        rec.classifier.infer(batch)
        t.append(time.perf_counter() - t0)
    return {
        "frames": n,
        **({"frames_handed_on": handed_on} if rec.outline_nets is not None else {}),
        "cards_per_frame": round(float(np.mean(cards[n:])), 2),
        "frame_ms_wall": med(total_wall),
        "frame_ms_wall_mean": round(1000 * statistics.mean(total_wall[n:]), 2),
        "frame_ms_wall_p90": round(1000 * float(np.quantile(total_wall[n:], 0.9)), 2),
        "detect_ms_wall": med(det_wall),
        "detect_ms_cpu": med(det_cpu),
        "classify_ms_wall": med(cls_wall),
        "classify_ms_cpu": med(cls_cpu),
        "classify_ms_per_card_wall": med(per_card),
        "recognize_ms_cpu": med(whole_cpu),
        "onnx_inference_ms_per_card": round(1000 * statistics.median(t) / 12, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design and kind")
    ap.add_argument("--timing-frames", type=int, default=60)
    ap.add_argument("--seed", type=int, default=SPEED_SEED - 3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--speed-only", action="store_true", help="skip the accuracy part (quick timing runs)")
    ap.add_argument(
        "--calibrated", action="store_true", help="give the recogniser each scene's table plane (accuracy and speed)"
    )
    ap.add_argument(
        "--detector",
        action="extend",
        nargs="+",
        default=[],
        metavar="FIELD=VALUE",
        help="detector settings other than the shipped ones (as evaluate --detector), e.g. size_pass_estimated=false",
    )
    add_both_corners_argument(ap)
    add_pip_look_arguments(ap)
    add_second_look_below_argument(ap)
    add_blur_look_arguments(ap)
    add_learned_argument(ap)
    ap.add_argument(
        "--four-colour",
        action="store_true",
        help="speed frames of four-colour decks (the project's own drawn cards, blue diamonds and green clubs)",
    )
    ap.add_argument(
        "--no-ink-shape", action="store_true", help="read coloured index ink as it is (vision.ink_colour: not redrawn)"
    )
    ap.add_argument(
        "--no-covered", action="store_true", help="leave out the cards found by an index corner (vision.covered_cards)"
    )
    args = ap.parse_args()
    cv2.setNumThreads(1)  # one core: OpenCV and onnxruntime single-threaded
    try:
        detector = detector_config(args.detector)
    except ValueError as exc:
        ap.error(str(exc))
    rec = Recognizer(
        threads=1,
        detector=detector,
        ink_shape=not args.no_ink_shape,
        covered=not args.no_covered,
        **look_settings(args),
    )
    result: dict[str, object] = {"command": " ".join(["benchmarks/bench_recognition.py", *sys.argv[1:]])}
    held = {} if args.speed_only else designs.held_out_decks()
    if held:
        cal = args.calibrated
        normal, per_n = evaluate_decks(rec, held, NORMAL, args.scenes, args.seed, calibrated=cal)
        from models.training.synth import HARD

        hard_blur: dict[str, Tally] = {}
        hard, per_h = evaluate_decks(rec, held, HARD, args.scenes, args.seed + 1, calibrated=cal, by_blur=hard_blur)
        clutter = clutter_only(rec, max(50, args.scenes * 5), args.seed + 2, calibrated=cal)
        result["held_out_designs"] = sorted(held)
        result["realistic"] = normal.rates()
        result["hard"] = hard.rates()
        result["clutter_only"] = clutter.rates()
        result["per_design"] = {
            k: {"realistic": per_n[k].rates()["named"], "hard": per_h[k].rates()["named"]} for k in sorted(held)
        }
        result["hard_by_camera_blur"] = {k: hard_blur[k].rates() for k in BLUR_CLASSES if k in hard_blur}
    elif not args.speed_only:
        print("Debian card designs not installed: accuracy part skipped", file=sys.stderr)
    result["speed"] = timing(
        rec, args.timing_frames, args.seed + 3, calibrated=args.calibrated, four_colour=args.four_colour
    )
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key in ("realistic", "hard", "clutter_only"):
        if key in result:
            r = result[key]
            assert isinstance(r, dict)
            print(
                f"{key:13s} cards {r['cards']:5d}  found {100 * r['found']:6.2f}%  named {100 * r['named']:6.2f}%  "
                f"unknown {100 * r['unknown']:5.2f}%  wrong {100 * r['wrong']:5.2f}%  "
                f"model-only {100 * r['classifier_only']:6.2f}%  false/50 frames {r['false_cards_per_50_frames']}"
            )
    if "per_design" in result:
        print("named per held-out design (realistic / hard):")
        per = result["per_design"]
        assert isinstance(per, dict)
        for k, v in per.items():
            print(f"  {k:30s} {100 * v['realistic']:6.2f}%  {100 * v['hard']:6.2f}%")
    if "hard_by_camera_blur" in result:
        print("hard scenes by camera blur (cards, found, named, model-only):")
        blurs = result["hard_by_camera_blur"]
        assert isinstance(blurs, dict)
        for k, r in blurs.items():
            print(
                f"  {k:14s} {r['cards']:5d}  {100 * r['found']:6.2f}%  {100 * r['named']:6.2f}%  "
                f"{100 * r['classifier_only']:6.2f}%"
            )
    print("speed (one thread, 1280x720, 12 cards):", json.dumps(result["speed"]))


if __name__ == "__main__":
    main()
