"""Measure a model on font-drawn styles it was never trained on: a validation set that is not the held-out designs.

    python -m models.training.validate_fonts --styles 960-1199 --jumbo --scenes 2 --seed 5

The held-out designs (``evaluate``) are what the model card reports and must not steer a change; a change
to the model or to how its readings are decided is chosen here, on ``font_faces`` styles outside the
trained range (training used 0-479), then measured once on the held-out designs. Cards are read through
their true outlines (the recogniser's ``classify_quads``, second look included), so the figure is the
classifier's, not the detector's. Besides named / unknown / wrong it counts the cards read as the other
suit of their colour (a club for a spade): the error a cut suit under a jumbo index invites. ``--pairs``
decides every card's final probabilities again under other ``min_confidence``/``min_margin`` pairs (those
with ``min_confidence`` up to the recogniser's ``second_look_below``, so the cards given the second look are the same).

``--detect`` measures the detector too, on the same frames: each frame through the recogniser users run
(detection, then naming), scored as ``evaluate`` scores the held-out designs (found, named, false cards, and
``classifier_only``, the true outlines' reading, which equals the named count without ``--detect``). A change
to the detector is chosen here as well (``--detector FIELD=VALUE``, ``--calibrated``); ``--misses DIR`` writes
every frame with a missed or false card, outlines drawn, and a ``misses.json`` listing them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from models.training.build_crops import style_range
from models.training.evaluate import (
    NORMAL,
    Outcome,
    Tally,
    add_both_corners_argument,
    add_clear_band_argument,
    add_zooms_argument,
    scored_scene,
)
from models.training.synth import HARD, Scene, make_scene
from vision.classify import decide
from vision.cli_recognize import (
    add_blur_look_arguments,
    add_learned_argument,
    add_pip_look_arguments,
    add_second_look_below_argument,
    look_settings,
)
from vision.detector_settings import detector_config
from vision.errors import SettingError
from vision.events import UNKNOWN
from vision.recognizer import DEFAULT_MODEL, LABELS, Recognizer

_OTHER_SUIT = {"C": "S", "S": "C", "D": "H", "H": "D"}


@dataclass
class Counts:
    cards: int = 0
    named: int = 0
    unknown: int = 0
    wrong: int = 0
    other_suit: int = 0  # wrong, and read as the same rank in the other suit of its colour

    def count(self, read: str, label: str) -> None:
        self.cards += 1
        if read == label:
            self.named += 1
        elif read == UNKNOWN:
            self.unknown += 1
        else:
            self.wrong += 1
            self.other_suit += label != "back" and read == label[0] + _OTHER_SUIT[label[1]]

    def rates(self) -> dict[str, float | int]:
        n = max(1, self.cards)
        return {
            "cards": self.cards,
            "named": round(self.named / n, 4),
            "unknown": round(self.unknown / n, 4),
            "wrong": round(self.wrong / n, 4),
            "other_suit": round(self.other_suit / n, 4),
        }


def validate(
    rec: Recognizer,
    styles: tuple[int, ...],
    scenes: int,
    seed: int,
    pairs: tuple[tuple[float, float], ...] = (),
    clear_band: int = 0,
) -> dict[str, Counts]:
    """Counts for realistic and hard scenes, ``scenes`` of each per style, dealt from [seed, style]; with
    ``pairs``, also "realistic c/m" and "hard c/m": the same readings decided under each pair. ``clear_band``: as
    ``validation_scenes``."""
    out = {"realistic": Counts(), "hard": Counts()}
    for conf, margin in pairs:
        if conf > rec.second_look_below:
            raise ValueError(
                f"min_confidence {conf} is over second_look_below ({rec.second_look_below}): cards "
                "named under it would not have had the second look, so it cannot be decided again"
            )
        out |= {f"{kind} {conf}/{margin}": Counts() for kind in ("realistic", "hard")}
    for _, kind, _, scene in validation_scenes(styles, scenes, seed, clear_band):
        read = rec.classify_quads(scene.image, [q for _, q in scene.cards])
        labels = [label for label, _ in scene.cards]
        for r, label in zip(read, labels, strict=True):
            out[kind].count(r.card, label)
        if not pairs:
            continue
        # an outline the model calls "not a card" stays unknown under every pair
        not_card = [r.presence < 1.0 - rec.meta.not_a_card for r in read]
        probs = np.stack([r.probabilities for r in read])
        for conf, margin in pairs:
            again = decide(probs, LABELS, conf, margin, UNKNOWN)
            for (name, _), label, off in zip(again, labels, not_card, strict=True):
                out[f"{kind} {conf}/{margin}"].count(UNKNOWN if off else name, label)
    return out


def validation_scenes(
    styles: tuple[int, ...], scenes: int, seed: int, clear_band: int = 0
) -> Iterator[tuple[int, str, int, Scene]]:
    """The validation set's frames as (style, kind, n, scene): for each style, ``scenes`` realistic then
    ``scenes`` hard scenes dealt from the generator seeded [seed, style], those with no card left out. Every
    measurement on the set deals them here, so that its modes and benchmarks see the same frames.
    ``clear_band``: ``SceneSpec.clear_band`` (7: the frames as drawn with the clutter kept 7 px clear of the cards)."""
    from models.training.font_faces import font_deck  # Pillow: a training-only dependency

    for style in styles:
        deck = font_deck(style)
        rng = np.random.default_rng([seed, style])
        for kind, spec in (("realistic", NORMAL), ("hard", HARD)):
            for n in range(scenes):
                scene = make_scene(rng, deck, replace(spec, clear_band=clear_band))
                if scene.cards:
                    yield style, kind, n, scene


def validate_detection(
    rec: Recognizer,
    styles: tuple[int, ...],
    scenes: int,
    seed: int,
    *,
    calibrated: bool = False,
    misses: Path | None = None,
    clear_band: int = 0,
) -> dict[str, Tally]:
    """Tallies for realistic and hard scenes through detection and naming: the frames ``validate`` reads
    (``validation_scenes``), each frame given its table plane when ``calibrated``. With
    ``misses``, each frame with a missed or a false card is written there (``<kind>-<style>-<scene>.png``:
    outlines found green, false ones yellow, true outlines of missed cards red), listed in ``misses.json``."""
    out = {"realistic": Tally(), "hard": Tally()}
    listed: list[dict[str, object]] = []
    if misses is not None:
        misses.mkdir(parents=True, exist_ok=True)
    for style, kind, n, scene in validation_scenes(styles, scenes, seed, clear_band):
        tally, seen = scored_scene(rec, scene.image, scene.cards, scene.plane if calibrated else None)
        out[kind].add(tally)
        if misses is not None and (seen.missed or seen.false):
            name = f"{kind}-{style}-{n}.png"
            cv2.imwrite(str(misses / name), _drawn(scene.image, seen))
            listed.append(
                {
                    "frame": name,
                    "kind": kind,
                    "style": style,
                    "scene": n,
                    "missed": [label for label, _ in seen.missed],
                    "false_cards": len(seen.false),
                }
            )
    if misses is not None:
        (misses / "misses.json").write_text(json.dumps(listed, indent=1) + "\n")
    return out


def _drawn(image: np.ndarray, seen: Outcome) -> np.ndarray:
    """``image`` with the outlines found (green), the false ones (yellow) and the missed cards' true outlines
    (red, with their labels)."""
    out = image.copy()
    for quads, colour, width in (
        (seen.outlines, (0, 200, 0), 1),
        (seen.false, (0, 220, 255), 2),
        ([q for _, q in seen.missed], (0, 0, 255), 2),
    ):
        cv2.polylines(out, [np.round(q).astype(np.int32) for q in quads], True, colour, width)
    for label, quad in seen.missed:
        x, y = np.round(quad.min(axis=0)).astype(int)
        cv2.putText(out, label, (int(x), max(12, int(y) - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 255), 1)
    return out


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument(
        "--styles",
        type=style_range,
        default=style_range("960-1199"),
        metavar="A-B",
        help="font_faces styles (never trained: training used 0-479)",
    )
    ap.add_argument("--jumbo", action="store_true", help="only the styles with jumbo indices")
    ap.add_argument("--scenes", type=int, default=2, help="realistic and hard scenes per style")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument(
        "--pairs",
        nargs="*",
        type=_pair,
        default=[],
        metavar="CONF/MARGIN",
        help="also decide the readings under these min_confidence/min_margin pairs, e.g. 0.4/0.1",
    )
    ap.add_argument(
        "--detect",
        action="store_true",
        help="detect the cards too (found, named, false cards), not only read their true outlines",
    )
    ap.add_argument("--calibrated", action="store_true", help="with --detect: give each frame its table plane")
    ap.add_argument(
        "--detector",
        action="extend",
        nargs="+",
        default=[],
        metavar="FIELD=VALUE",
        help="with --detect: detector settings other than the shipped ones (DetectorConfig fields)",
    )
    ap.add_argument(
        "--misses",
        type=Path,
        metavar="DIR",
        help="with --detect: write each frame with a missed or false card there, and misses.json",
    )
    add_clear_band_argument(ap)
    add_zooms_argument(ap)
    add_both_corners_argument(ap)
    add_pip_look_arguments(ap)
    add_second_look_below_argument(ap)
    add_blur_look_arguments(ap)
    add_learned_argument(ap)
    args = ap.parse_args(argv)
    if not args.detect and (args.calibrated or args.detector or args.misses):
        ap.error("--calibrated, --detector and --misses measure the detector: add --detect")
    if args.detect and args.pairs:
        ap.error("--pairs decides the true outlines' readings again; it does not go with --detect")
    try:
        detector = detector_config(args.detector)
    except ValueError as e:
        ap.error(str(e))
    from models.training.font_faces import is_jumbo

    styles = tuple(s for s in args.styles if is_jumbo(s)) if args.jumbo else args.styles
    try:
        rec = Recognizer(args.model, detector=detector, second_look_zooms=args.zooms, **look_settings(args))
    except SettingError as e:
        ap.error(str(e))
    counts: dict[str, Counts] | dict[str, Tally]
    if args.detect:
        counts = validate_detection(
            rec,
            styles,
            args.scenes,
            args.seed,
            calibrated=args.calibrated,
            misses=args.misses,
            clear_band=args.clear_band,
        )
    else:
        try:
            counts = validate(rec, styles, args.scenes, args.seed, tuple(args.pairs), args.clear_band)
        except ValueError as e:
            ap.error(str(e))
    result: dict[str, object] = {
        "command": "python -m models.training.validate_fonts " + " ".join(sys.argv[1:] if argv is None else argv),
        "model": str(args.model),
        "styles": len(styles),
        **{k: v.rates() for k, v in counts.items()},
    }
    print(json.dumps(result, indent=2))
    return result


def _pair(text: str) -> tuple[float, float]:
    conf, sep, margin = text.partition("/")
    try:
        if sep:
            return float(conf), float(margin)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"expected MIN_CONFIDENCE/MIN_MARGIN such as 0.4/0.1, got {text!r}")


if __name__ == "__main__":
    main()
