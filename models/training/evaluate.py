"""Measure the shipped model on held-out designs (never trained on) and record it in the metadata.

    .venv/bin/python -m models.training.evaluate [--scenes 40] [--write]

For each held-out design: realistic 1280x720 table scenes and hard ones (small cards close together,
glare, strong tilt), run through the same ``Recognizer`` users run. A card counts as *found* when a
detected outline matches its true outline, and as *named* when it is found and its label is right
("unknown" is not right). ``classifier_only`` classifies the true outlines, isolating the model.

``--calibrated`` gives the recogniser each scene's table plane (the homography that undoes its camera
tilt, what a table calibrated from its mat's markers knows), so card shapes are judged on the table.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from models.training import designs
from models.training.dataset import match_index
from models.training.four_colour import four_colour_deck
from models.training.synth import HARD, Blur, Deck, Scene, SceneSpec, make_scene
from table.cards import CARD_CODES
from vision.cli_recognize import (
    add_blur_look_arguments,
    add_learned_argument,
    add_pip_look_arguments,
    add_second_look_below_argument,
    look_settings,
)
from vision.detector_settings import detector_config
from vision.errors import SettingError
from vision.recognizer import (
    BLUR_LOOK_BELOW,
    DEFAULT_MODEL,
    ONE_CORNER_SURE,
    PIP_LOOK_BELOW,
    SECOND_LOOK_BELOW,
    Recognition,
    Recognizer,
    metadata_path,
)

SURE = 0.9
"""A wrong name at this confidence or more is a confident one (the referee would act on it)."""
VALIDATION_FONT_STYLES = tuple(range(960, 990, 2))
"""``--validation-fonts``: font-drawn styles outside every model's training range (``designs.FONT_STYLES``)."""
NORMAL = SceneSpec(n_cards=12, card_width=(90.0, 220.0), clutter=2)


@dataclass
class Tally:
    cards: int = 0
    found: int = 0
    named: int = 0
    unknown: int = 0
    wrong: int = 0
    false_cards: int = 0
    frames: int = 0
    classifier_named: int = 0
    sure_wrong: int = 0  # wrong with confidence >= SURE
    suit_wrong: int = 0  # a face named as a face of another suit

    def add(self, other: Tally) -> None:
        for k in self.__dict__:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def rates(self) -> dict[str, float | int]:
        n = max(1, self.cards)
        return {
            "cards": self.cards,
            "found": round(self.found / n, 4),
            "named": round(self.named / n, 4),
            "unknown": round(self.unknown / n, 4),
            "wrong": round(self.wrong / n, 4),
            "classifier_only": round(self.classifier_named / n, 4),
            "sure_wrong": round(self.sure_wrong / n, 5),
            "suit_wrong": round(self.suit_wrong / n, 5),
            "false_cards_per_50_frames": round(50 * self.false_cards / max(1, self.frames), 2),
        }


@dataclass
class Outcome:
    """What ``score_scene`` saw in one frame besides its tally: the true cards no outline matched and the
    outlines that matched no card (``validate_fonts --misses`` draws them)."""

    missed: list[tuple[str, np.ndarray]]
    outlines: list[np.ndarray]
    false: list[np.ndarray]


def score_scene(
    rec: Recognizer, image: np.ndarray, truth: list[tuple[str, np.ndarray]], plane: np.ndarray | None = None
) -> Tally:
    """One frame's tally."""
    return scored_scene(rec, image, truth, plane)[0]


def scored_scene(
    rec: Recognizer, image: np.ndarray, truth: list[tuple[str, np.ndarray]], plane: np.ndarray | None = None
) -> tuple[Tally, Outcome]:
    """One frame's tally and what it missed and found falsely (``Outcome``)."""
    seen = rec.recognize(image, plane=plane)
    t, outcome = counted(truth, seen)
    if truth:
        only = rec.classify_quads(image, [q for _, q in truth])
        t.classifier_named = sum(r.card == label for r, (label, _) in zip(only, truth, strict=True))
    return t, outcome


def counted(truth: list[tuple[str, np.ndarray]], seen: Sequence[Recognition]) -> tuple[Tally, Outcome]:
    """One frame's recognitions ``seen`` against its ``truth``: each true card whose outline one matches is found,
    and named, unknown or wrong; each recognition that matches no card is a false card (``classifier_named`` is
    left at 0: it needs the model on the true outlines)."""
    t = Tally(frames=1, cards=len(truth))
    quads = [r.corners for r in seen]
    used: set[int] = set()
    missed: list[tuple[str, np.ndarray]] = []
    for (label, quad), i in zip(truth, matched_outlines(truth, quads), strict=True):
        if i is None:
            missed.append((label, quad))
            continue
        used.add(i)
        t.found += 1
        if seen[i].card == label:
            t.named += 1
        elif seen[i].card == "unknown":
            t.unknown += 1
        else:
            t.wrong += 1
            t.sure_wrong += seen[i].confidence >= SURE
            t.suit_wrong += _is_face(label) and _is_face(seen[i].card) and seen[i].card[1] != label[1]
    t.false_cards = len(seen) - len(used)
    return t, Outcome(missed, quads, [quads[i] for i in range(len(seen)) if i not in used])


def _is_face(label: str) -> bool:
    """Whether a label names one of the 52 faces (not a back, ``unknown`` or another reading)."""
    return label in CARD_CODES


def matched_outlines(truth: list[tuple[str, np.ndarray]], quads: list[np.ndarray]) -> list[int | None]:
    """Per true card, the index in ``quads`` of the outline that matches it (``dataset.match_index``), or None."""
    return [match_index(quad, quads) for _, quad in truth]


def kind_spec(kind: str, seed: int) -> tuple[SceneSpec, int]:
    """The scene spec and generator seed of this evaluation's ``kind`` of scenes ("realistic" or "hard") at
    ``--seed``: realistic ones at the seed, hard ones at seed + 1 (so the two kinds differ at one seed)."""
    if kind not in ("realistic", "hard"):
        raise ValueError(f"scene kind is realistic or hard, got {kind!r}")
    return (NORMAL, seed) if kind == "realistic" else (HARD, seed + 1)


def held_out_scenes(decks: dict[str, Deck], spec: SceneSpec, scenes: int, seed: int) -> Iterator[tuple[str, Scene]]:
    """The scenes this evaluation deals: for each design in name order (the k-th), ``scenes`` scenes from
    the generator seeded [seed, k]. Benchmarks that measure other things on the same frames use this."""
    for k, (name, deck) in enumerate(sorted(decks.items())):
        rng = np.random.default_rng([seed, k])
        for _ in range(scenes):
            yield name, make_scene(rng, deck, spec)


def evaluate_decks(
    rec: Recognizer,
    decks: dict[str, Deck],
    spec: SceneSpec,
    scenes: int,
    seed: int,
    *,
    calibrated: bool = False,
    by_blur: dict[str, Tally] | None = None,
) -> tuple[Tally, dict[str, Tally]]:
    """The whole tally and one per design; ``by_blur`` (when given) is filled with one per ``blur_class``."""
    total, per = Tally(), {name: Tally() for name in sorted(decks)}
    for name, scene in held_out_scenes(decks, spec, scenes, seed):
        tally = score_scene(rec, scene.image, scene.cards, scene.plane if calibrated else None)
        per[name].add(tally)
        total.add(tally)
        if by_blur is not None:
            by_blur.setdefault(blur_class(scene.blur), Tally()).add(tally)
    return total, per


BLUR_CLASSES = ("sharp", "defocus", "motion 3-5 px", "motion 6-8 px")


def blur_class(blur: Blur) -> str:
    """The generator's camera blur in four classes. Motion blur 6-8 px long exists only in hard scenes
    (cards 75-110 px wide), where it smears an index about a tenth of the card tall: the model reads 84% of
    such cards through their true outlines against 99.5% in sharp hard frames (docs/performance.md)."""
    if blur.kind == "motion":
        return "motion 3-5 px" if blur.amount <= 5 else "motion 6-8 px"
    return "sharp" if blur.kind == "none" else "defocus"


def _by_blur_rates(by_blur: dict[str, Tally]) -> dict[str, dict[str, float | int]]:
    return {k: by_blur[k].rates() for k in BLUR_CLASSES if k in by_blur}


def clutter_only(rec: Recognizer, frames: int, seed: int, *, calibrated: bool = False) -> Tally:
    rng = np.random.default_rng(seed)
    t = Tally()
    for _ in range(frames):
        scene = make_scene(rng, None, replace(NORMAL, n_cards=0, clutter=int(rng.integers(2, 7))))
        t.add(score_scene(rec, scene.image, [], scene.plane if calibrated else None))
    return t


def add_zooms_argument(ap: argparse.ArgumentParser, note: str = "") -> None:
    """``--zooms Z ...``: the second look's zoomed-out index crops (Recognizer's ``second_look_zooms``) other
    than the shipped ones; the flag alone, none. Not given: ``args.zooms`` is None (the shipped ones)."""
    ap.add_argument(
        "--zooms",
        type=float,
        nargs="*",
        metavar="Z",
        help="the second look's zoomed-out index crops other than the shipped ones; the flag alone for none" + note,
    )


def add_both_corners_argument(ap: argparse.ArgumentParser, note: str = "") -> None:
    """``--both-corners``: read both index corners of every card instead of the second only where the first
    is unsure; ``args.one_corner_sure`` is what to pass as Recognizer's ``one_corner_sure`` (None with the flag,
    the shipped ``ONE_CORNER_SURE`` without)."""
    ap.add_argument(
        "--both-corners",
        dest="one_corner_sure",
        action="store_const",
        const=None,
        default=ONE_CORNER_SURE,
        help="read both index corners of every card, not the second only where the first is unsure" + note,
    )


def _pixels(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"a number of pixels, 0 or more, got {text!r}")
    return value


def add_clear_band_argument(ap: argparse.ArgumentParser, note: str = "") -> None:
    """``--clear-band PX`` (``args.clear_band``): the card scenes drawn with the clutter after the cards, PX clear
    of them (``SceneSpec.clear_band``; 7: the clutter kept 7 px clear of the cards); a negative band is a usage
    error."""
    ap.add_argument(
        "--clear-band",
        type=_pixels,
        default=0,
        metavar="PX",
        help="draw the clutter after the cards, this many pixels clear of them (SceneSpec.clear_band; 7: "
        "the frames with a band of bare table round each card on "
        "clutter)" + note,
    )


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--scenes", type=int, help="scenes per held-out design and kind (default 40)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument(
        "--write",
        action="store_true",
        help="store the result in the model's metadata (``accuracy``; with --calibrated, ``accuracy_calibrated``)",
    )
    ap.add_argument(
        "--calibrated",
        action="store_true",
        help="give the recogniser each scene's table plane, as a calibrated table does",
    )
    ap.add_argument(
        "--detector",
        action="extend",
        nargs="+",
        default=[],
        metavar="FIELD=VALUE",
        help="detector settings other than the shipped ones (vision.detect.DetectorConfig fields, e.g. "
        "size_pass_image=true); not with --write",
    )
    add_zooms_argument(ap, " (not with --write)")
    add_both_corners_argument(ap, " (not with --write)")
    add_pip_look_arguments(ap, " (not with --write)")
    add_second_look_below_argument(ap, " (not with --write)")
    add_blur_look_arguments(ap, " (not with --write)")
    add_learned_argument(ap, " (not with --write)")
    ap.add_argument(
        "--clutter-frames",
        type=int,
        metavar="N",
        help="measure only clutter-only tables: N frames dealt from --seed (no card scenes)",
    )
    add_clear_band_argument(ap, "; not with --write")
    ap.add_argument(
        "--four-colour",
        action="store_true",
        help="the held-out designs painted as four-colour decks (blue diamonds, green clubs) and Debian's own "
        "four-colour twins of them, instead of the designs as printed; not with --write",
    )
    ap.add_argument(
        "--validation-fonts",
        action="store_true",
        help="font-drawn decks no model trained on (font_faces styles 960, 962, ... 988; with --four-colour painted "
        "four-colour) instead of the held-out designs, to choose settings on; not with --write",
    )
    ap.add_argument(
        "--no-ink-shape",
        action="store_true",
        help="read coloured index ink as it is, not redrawn red and black (vision.ink_colour); not with --write",
    )
    ap.add_argument(
        "--no-covered",
        action="store_true",
        help="leave out the cards found by an index corner under others (vision.covered_cards); not with --write",
    )
    args = ap.parse_args(argv)
    if args.clutter_frames is not None and args.write:
        ap.error("--clutter-frames measures one part only; it cannot --write the model card")
    if args.clutter_frames is not None and args.scenes is not None:
        ap.error("--scenes sets the card scenes; with --clutter-frames there are none (N frames are dealt)")
    # each setting other than the shipped one: its flag, whether it is given, and how the record's command says it;
    # the model card holds the shipped recogniser's figures only
    others = [
        ("--detector", bool(args.detector), "".join(f" --detector {d}" for d in args.detector)),
        ("--zooms", args.zooms is not None, " --zooms" + "".join(f" {z:g}" for z in args.zooms or ())),
        ("--both-corners", args.one_corner_sure is None, " --both-corners"),
        ("--no-pip-look", not args.pip_look, " --no-pip-look"),
        ("--pip-look-below", args.pip_look_below != PIP_LOOK_BELOW, f" --pip-look-below {args.pip_look_below:g}"),
        (
            "--second-look-below",
            args.second_look_below != SECOND_LOOK_BELOW,
            f" --second-look-below {args.second_look_below:g}",
        ),
        ("--no-blur-look", not args.blur_look, " --no-blur-look"),
        ("--blur-look-below", args.blur_look_below != BLUR_LOOK_BELOW, f" --blur-look-below {args.blur_look_below:g}"),
        ("--clear-band", args.clear_band != 0, f" --clear-band {args.clear_band}"),
        ("--no-learned", not args.learned, " --no-learned"),
        ("--four-colour", args.four_colour, " --four-colour"),
        ("--validation-fonts", args.validation_fonts, " --validation-fonts"),
        ("--no-ink-shape", args.no_ink_shape, " --no-ink-shape"),
        ("--no-covered", args.no_covered, " --no-covered"),
    ]
    for flag_name, given, _ in others:
        if given and args.write:
            ap.error(f"{flag_name} measures other settings than the shipped ones; it cannot --write the model card")
    if args.scenes is None:
        args.scenes = 40
    try:
        detector = detector_config(args.detector)
    except ValueError as e:
        ap.error(str(e))
    try:
        rec = Recognizer(
            args.model,
            detector=detector,
            second_look_zooms=args.zooms,
            ink_shape=not args.no_ink_shape,
            covered=not args.no_covered,
            **look_settings(args),
        )
    except SettingError as e:
        ap.error(str(e))
    cal = args.calibrated
    flag = (" --calibrated" if cal else "") + "".join(said for _, given, said in others if given)
    if args.clutter_frames is not None:
        only: dict[str, object] = {
            "command": (
                f"python -m models.training.evaluate --clutter-frames {args.clutter_frames} --seed {args.seed}{flag}"
            ),
            "clutter_only": clutter_only(rec, args.clutter_frames, args.seed, calibrated=cal).rates(),
        }
        print(json.dumps(only, indent=2))
        return only
    if args.validation_fonts:
        from models.training.font_faces import font_deck  # Pillow: a training dependency

        fonts = {f"fonts:{style}": font_deck(style) for style in VALIDATION_FONT_STYLES}
        held = {f"{name}+4c": four_colour_deck(d) for name, d in fonts.items()} if args.four_colour else fonts
    else:
        held = designs.four_colour_held_out_decks() if args.four_colour else designs.held_out_decks()
    normal_blur: dict[str, Tally] = {}
    hard_blur: dict[str, Tally] = {}
    (normal_spec, normal_seed), (hard_spec, hard_seed) = kind_spec("realistic", args.seed), kind_spec("hard", args.seed)
    normal_spec, hard_spec = (replace(spec, clear_band=args.clear_band) for spec in (normal_spec, hard_spec))
    normal, per_normal = evaluate_decks(
        rec, held, normal_spec, args.scenes, normal_seed, calibrated=cal, by_blur=normal_blur
    )
    hard, per_hard = evaluate_decks(rec, held, hard_spec, args.scenes, hard_seed, calibrated=cal, by_blur=hard_blur)
    clutter = clutter_only(rec, args.scenes * 2, args.seed + 2, calibrated=cal)
    result: dict[str, object] = {
        "command": f"python -m models.training.evaluate --scenes {args.scenes} --seed {args.seed}{flag}",
        "table_plane": "each scene's own (calibrated)" if cal else "none (shapes judged in the image)",
        "held_out_designs": sorted(held),
        "realistic": normal.rates(),
        "hard": hard.rates(),
        "clutter_only": clutter.rates(),
        "per_design": {
            name: {"realistic": per_normal[name].rates(), "hard": per_hard[name].rates()} for name in sorted(held)
        },
        # the same frames by the camera blur the generator gave them (``blur_class``)
        "by_camera_blur": {"realistic": _by_blur_rates(normal_blur), "hard": _by_blur_rates(hard_blur)},
    }
    print(json.dumps(result, indent=2))
    if args.write:
        meta_path = metadata_path(args.model)
        store_accuracy(meta_path, "accuracy_calibrated" if cal else "accuracy", result)
        print(f"wrote accuracy into {meta_path}")
    return result


def store_accuracy(meta_path: Path, key: str, result: dict[str, object]) -> None:
    """Set ``key`` of the metadata file to ``result``. The image and calibrated runs each rewrite the file:
    the read-modify-write holds an exclusive lock (a sibling ``.lock`` file), so two runs ending together
    keep both figures, and the new text replaces the file in one rename, so a killed run leaves the old
    file whole rather than a truncated one."""
    with open(meta_path.with_name(meta_path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        meta = json.loads(meta_path.read_text())
        meta[key] = result
        tmp = meta_path.with_name(meta_path.name + ".tmp")
        tmp.write_text(json.dumps(meta, indent=2) + "\n")
        os.replace(tmp, meta_path)


if __name__ == "__main__":
    main()
