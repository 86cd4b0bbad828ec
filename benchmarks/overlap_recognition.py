"""How many cards whose index shows the recogniser names in fans, piles, spread rows and covered cards.

Scenes of ``models.training.overlap_scenes`` (realistic and hard) of the held-out designs (or the project's own drawn
faces with ``--own``), read by ``Recognizer.recognize`` with and without the covered-card pass:

    python benchmarks/overlap_recognition.py --scenes 10 --seed 2026 [--own | --validation | --four-colour]
        [--json out.json] [--model M.onnx] [--covered-model M.onnx]
        [--covered-only | --corners-only] [--index-corners META.json | --no-index-corners]

A card counts as named when a reading has its face and lies on it (a corner of the reading within a third of the
card's width of one of the card's index corners, or the reading's centre within that of the card's); a reading that
lies on no card of its face is wrong, and confidently wrong at 0.9 or more; one that lies on a card another reading
named already is "twice" (one card reported as two). The time is the process's CPU time a frame
(one thread), median. Cards whose index does not show (under
85% of both index corners uncovered) are not counted, and a reading of one is neither right nor wrong.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.training.designs import four_colour_held_out_decks, held_out_decks, training_decks  # noqa: E402
from models.training.overlap_crops import card_corners  # noqa: E402
from models.training.overlap_scenes import (  # noqa: E402
    HARD_OVERLAP,
    INDEX_SHOWS,
    OverlapScene,
    OverlapSpec,
    make_overlap_scene,
)
from models.training.synth import Deck, faces_deck  # noqa: E402
from vision.events import BACK, UNKNOWN  # noqa: E402
from vision.index_corners import IndexCornerFinder  # noqa: E402
from vision.recognizer import Recognition, Recognizer  # noqa: E402

SURE = 0.9
VALIDATION = ("gnome:anglo", "gnome:atlasnye", "gnome:dondorf", "gnome:paris", "gnome:tango", "kde:standard")
"""Training designs the covered-card pass's settings are chosen on (the held-out ones measure it)."""


@dataclass
class Count:
    shows: int = 0  # cards whose index shows
    covered: int = 0  # of them, not whole
    named: int = 0
    named_covered: int = 0
    wrong: int = 0
    sure_wrong: int = 0
    by_index: int = 0  # readings of the covered-card pass
    twice: int = 0  # readings of a card another reading named already (one card reported twice)
    ms: list[float] = field(default_factory=list)

    def add(self, scene: OverlapScene, readings: list[Recognition], ms: float) -> None:
        self.ms.append(ms)
        width = float(np.median([np.linalg.norm(c.quad[1] - c.quad[0]) for c in scene.cards]))
        near = width / 3
        named: set[int] = set()
        for r in readings:
            if r.card in (BACK, UNKNOWN, "foreign"):
                continue
            self.by_index += r.visible == "index"
            on = [i for i, c in enumerate(scene.cards) if c.label == r.card and _lies_on(r.corners, c.quad, near)]
            if on:
                self.twice += bool(named.intersection(on))
                named.update(on)
            elif not any(_lies_on(r.corners, c.quad, near) and not c.index_shows for c in scene.cards):
                self.wrong += 1
                self.sure_wrong += r.confidence >= SURE
        for i, c in enumerate(scene.cards):
            if c.index_shows:
                self.shows += 1
                self.covered += not c.whole
                self.named += i in named
                self.named_covered += i in named and not c.whole

    def summary(self) -> dict[str, object]:
        out = {k: v for k, v in asdict(self).items() if k != "ms"}
        out["named_share"] = round(self.named / max(1, self.shows), 4)
        out["covered_named_share"] = round(self.named_covered / max(1, self.covered), 4)
        out["median_cpu_ms"] = round(statistics.median(self.ms), 1) if self.ms else None
        return out


def _lies_on(corners: np.ndarray, quad: np.ndarray, near: float) -> bool:
    """Whether a reading's outline lies on the card at ``quad``: one of its corners near an index corner of the card
    (a reading through that corner), or its centre near the card's."""
    ends = quad[[0, 2]]
    d = np.linalg.norm(corners[:, None, :] - ends[None, :, :], axis=2)
    return bool(d.min() < near or np.linalg.norm(corners.mean(axis=0) - quad.mean(axis=0)) < near)


def measure(
    decks: dict[str, Deck],
    spec: OverlapSpec,
    scenes: int,
    seed: int,
    covered: bool,
    model: Path | None = None,
    covered_model: Path | None = None,
    index_corners: Path | bool | None = None,
) -> Count:
    recognizer = Recognizer(
        model, threads=1, covered=covered, covered_model_path=covered_model, index_corners=index_corners
    )
    count = Count()
    for d, deck in enumerate(decks.values()):
        rng = np.random.default_rng([seed, d])
        for _ in range(scenes):
            scene = make_overlap_scene(rng, deck, spec)
            t = time.process_time()  # CPU time: the machine may be shared
            readings = recognizer.recognize(scene.image)
            count.add(scene, readings, 1000 * (time.process_time() - t))
    return count


def corners_found(
    decks: dict[str, Deck], spec: OverlapSpec, scenes: int, seed: int, meta: Path | None
) -> dict[str, float]:
    """How many index corners that show the index-corner network finds within 6% of a card's width and 12 degrees,
    and within 10% and 20 degrees, and how many corners it gives a scene."""
    finder = IndexCornerFinder.load(meta)
    shows = near = close = found = frames = 0
    for d, deck in enumerate(decks.values()):
        rng = np.random.default_rng([seed, d])
        for _ in range(scenes):
            scene = make_overlap_scene(rng, deck, spec)
            guesses = finder.find(scene.image)
            found, frames = found + len(guesses), frames + 1
            for c in card_corners(scene)[0]:
                if c.shown < INDEX_SHOWS or not len(guesses):
                    shows += c.shown >= INDEX_SHOWS
                    continue
                shows += 1
                apart = np.linalg.norm(guesses.corners - c.at, axis=1) / c.width
                turn = np.degrees(np.arccos(np.clip(guesses.across @ c.across, -1.0, 1.0)))
                near += bool(((apart < 0.06) & (turn < 12)).any())
                close += bool(((apart < 0.1) & (turn < 20)).any())
    return {
        "index_corners": shows,
        "found_within_6pc_12deg": round(near / max(1, shows), 4),
        "found_within_10pc_20deg": round(close / max(1, shows), 4),
        "found_a_scene": round(found / max(1, frames), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=10, help="scenes a design and a set (default 10)")
    ap.add_argument("--seed", type=int, default=2026)
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--own", action="store_true", help="the project's own drawn faces (styles 3 and 7)")
    which.add_argument("--validation", action="store_true", help="six training designs, to choose settings on")
    which.add_argument(
        "--four-colour", action="store_true", help="the held-out designs painted four-colour, and Debian's own twin"
    )
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--model", type=Path, help="the card classifier to measure (default: the shipped one)")
    ap.add_argument(
        "--covered-model", type=Path, help="the covered-card pass's classifier to measure (default: the shipped one)"
    )
    corners = ap.add_mutually_exclusive_group()
    corners.add_argument(
        "--index-corners", type=Path, help="the index-corner network's metadata (default: the shipped one)"
    )
    corners.add_argument(
        "--no-index-corners",
        action="store_true",
        help="the covered-card pass without the index-corner network (corners guessed from straight edges alone)",
    )
    ap.add_argument(
        "--corners-only",
        action="store_true",
        help="measure only where the index-corner network finds the index corners that show",
    )
    ap.add_argument(
        "--covered-only", action="store_true", help="measure only with the covered-card pass (no comparison without it)"
    )
    ap.add_argument(
        "--card-scale",
        type=float,
        default=1.0,
        metavar="F",
        help="cards F times as wide as the sets' own (90-150 px realistic, 75-110 hard): 2 is a camera twice as near",
    )
    args = ap.parse_args(argv)
    if not 0.25 <= args.card_scale <= 4.0:
        ap.error(f"--card-scale is 0.25-4, got {args.card_scale}")
    sets = [
        (name, replace(spec, card_width=(spec.card_width[0] * args.card_scale, spec.card_width[1] * args.card_scale)))
        for name, spec in (("realistic", OverlapSpec()), ("hard", HARD_OVERLAP))
    ]
    if args.own:
        decks = {"own:3": faces_deck(3), "own:7": faces_deck(7)}
    elif args.four_colour:
        decks = four_colour_held_out_decks()
    elif args.validation:
        decks = {name: deck for name, deck in training_decks().items() if name in VALIDATION}
    else:
        decks = held_out_decks()
    if not decks:
        print("no held-out designs rendered (the Debian card packages are not installed)", file=sys.stderr)
        return 2
    results: dict[str, dict[str, object]] = {}
    if args.corners_only:
        for name, spec in sets:
            results[f"{name} index corners"] = dict(
                corners_found(decks, spec, args.scenes, args.seed, args.index_corners)
            )
            print(f"{name} index corners", json.dumps(results[f"{name} index corners"]), flush=True)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2) + "\n")
        return 0
    for name, spec in sets:
        for covered in (True,) if args.covered_only else (False, True):
            key = f"{name} {'with' if covered else 'without'} covered cards"
            results[key] = measure(
                decks,
                spec,
                args.scenes,
                args.seed,
                covered,
                args.model,
                args.covered_model,
                False if args.no_index_corners else args.index_corners,
            ).summary()
            print(key, json.dumps(results[key]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
