"""Why the size pass did not find a missed card that its own tests would accept.

    .venv/bin/python benchmarks/size_pass_misses.py [--kind realistic|hard] [--scenes 20] [--seed 99]
                                                    [--calibrated] [--json] [--detector FIELD=VALUE ...]

The frames are those of ``models.training.evaluate`` (as ``missed_cards.py`` deals them). For each card that
no outline of ``detect_cards`` matches, in a frame where the size pass searched (``vision.size_pass``):

* ``passes``: whether its true outline passes the tests the size pass puts to a rectangle it found (inside
  the frame, every side on the edge map for 0.9, a card's shape, a paper margin, an inside unlike the cloth
  around it). A card that passes was lost by the search, not by the tests;
* ``size_ratio``: its short and long side on the search's plane over the size searched (the median of the
  cards found there); the search allows ``size_tolerance`` (``size_tolerance_image`` without a plane);
* ``direction_off``: degrees between its sides' direction on the search's plane and the nearest direction
  the search tried (``size_angles`` of the 3-degree bins the edges favour; a side about 3 degrees off is
  still found, through ``size_grow``);
* ``nearest_rectangle``: the largest corner error (card widths) of the nearest rectangle the search (either
  search: the second one over outlines off the deck's size too) returned (null: none within a third of a width
  of its centre); under 0.12 it matched the card, and the later tests or an overlap with a card found dropped it.

The summary counts the missed cards, those in frames the size pass searched, those that pass, and of those
the ones searched at their size, in their direction, and both.

Without ``--calibrated`` the shipped detector detects a frame twice (``replan``: the second time on the plane
the first one's outlines give) and the rows describe the last size pass, the second detection's, while the
outlines judged are those the detector returns (the first detection's where the second had fewer); pass
``--detector replan=false`` for one detection.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vision.detect as detect  # noqa: E402
import vision.size_pass as size_pass  # noqa: E402
from benchmarks.missed_cards import (  # noqa: E402
    add_detector_argument,
    add_frame_arguments,
    detector_from,
    held_out_frames,
    nearest_error,
    print_report,
)
from models.training.dataset import match  # noqa: E402
from models.training.evaluate import blur_class  # noqa: E402
from vision.detector_config import DEFAULT_CONFIG, DetectorConfig  # noqa: E402
from vision.quads import card_like, map_quads, short_longs, side_hits  # noqa: E402
from vision.rectify import order_corners  # noqa: E402
from vision.size_search import favoured_directions  # noqa: E402


@contextmanager
def _watched(log: dict[str, Any]) -> Iterator[None]:
    """While open, the size pass's inputs, its search space, what it searched and the rectangles it returned
    (in detection pixels) are kept in ``log`` (the last size pass of the frame)."""
    originals = {
        name: getattr(size_pass, name)
        for name in ("size_pass_cards", "_search_space", "rectangles_of_size", "map_quads")
    }

    def cards(
        small: np.ndarray,
        edges: np.ndarray,
        quads: list[np.ndarray],
        config: DetectorConfig,
        near_edges: np.ndarray,
        otsu: np.ndarray,
        paper: np.ndarray,
        *rest: Any,
    ) -> list[np.ndarray]:
        log.clear()
        log.update(small=small, config=config, near_edges=near_edges, paper=paper)
        out: list[np.ndarray] = originals["size_pass_cards"](
            small, edges, quads, config, near_edges, otsu, paper, *rest
        )
        return out

    def space(*args: Any) -> Any:
        log["space"] = out = originals["_search_space"](*args)
        return out

    def search(free: np.ndarray, directions: np.ndarray, short: float, long_: float, **kwargs: Any) -> Any:
        if "size" not in log:  # the first search's (a second one, over outlines off the deck's size, is local)
            log.update(
                size=(short, long_),
                tried=favoured_directions(directions[free > 0], kwargs["angles"], max(1.0, 2 * (short + long_))),
            )
        log["pending"] = True
        return originals["rectangles_of_size"](free, directions, short, long_, **kwargs)

    def mapped(homography: np.ndarray, quads: Any) -> Any:
        out = list(originals["map_quads"](homography, quads))
        if log.pop("pending", False):  # the next mapping after a search: its rectangles back in the frame
            log.setdefault("rectangles", []).extend(order_corners(q) for q in out)
        return out

    try:
        for name, wrapper in (
            ("size_pass_cards", cards),
            ("_search_space", space),
            ("rectangles_of_size", search),
            ("map_quads", mapped),
        ):
            setattr(size_pass, name, wrapper)
        detect.size_pass_cards = cards
        yield
    finally:
        for name, inner in originals.items():
            setattr(size_pass, name, inner)
        detect.size_pass_cards = originals["size_pass_cards"]


def _direction(quad: np.ndarray) -> float:
    """The direction of a quad's first side, degrees modulo 90."""
    d = quad[1] - quad[0]
    return math.degrees(math.atan2(float(d[1]), float(d[0]))) % 90.0


def diagnose(
    image: np.ndarray,
    truths: list[np.ndarray],
    config: DetectorConfig = DEFAULT_CONFIG,
    plane: np.ndarray | None = None,
) -> list[dict[str, Any]]:
    """Detect ``image``'s cards and, per true outline (full-resolution pixels), whether an outline matches it
    (``found``) and, where the size pass searched the frame, the fields this module's docstring describes."""
    log: dict[str, Any] = {}
    with _watched(log):
        final = detect.detect_cards(image, config, plane=plane)
    rows: list[dict[str, Any]] = []
    searched = "size" in log and log.get("space") is not None
    for truth in truths:
        row: dict[str, Any] = {"found": match(truth, final) is not None, "searched": searched}
        if searched:
            cfg: DetectorConfig = log["config"]
            s = cfg.scale
            small_truth = ((truth + 0.5) * s - 0.5).astype(np.float32)
            h, w = log["small"].shape[:2]
            inside = bool(
                small_truth.min() >= 1 and (small_truth[:, 0] <= w - 2).all() and (small_truth[:, 1] <= h - 2).all()
            )
            row["passes"] = bool(
                inside
                and side_hits(small_truth[None], log["near_edges"]).min() >= 0.9
                and card_like(small_truth, cv2.contourArea(small_truth), cfg.loose, cfg.scale)
                and size_pass.card_margins(log["paper"], log["small"], [small_truth], cfg)[0]
                and size_pass.inside_like_outside(log["small"], small_truth, cfg.size_cloth_tolerance)
                < cfg.size_cloth_share
            )
            to_space = log["space"][0]
            on_plane = list(map_quads(to_space, [small_truth]))[0]
            short, long_ = short_longs([on_plane])[0]
            row["size_ratio"] = [round(float(short / log["size"][0]), 3), round(float(long_ / log["size"][1]), 3)]
            row["tolerance"] = cfg.size_tolerance if cfg.plane is not None else cfg.size_tolerance_image
            angle = _direction(on_plane)
            row["direction_off"] = round(
                min((abs((angle - t + 45.0) % 90.0 - 45.0) for t in log["tried"]), default=90.0), 1
            )
            near = nearest_error(small_truth, log.get("rectangles", []))
            row["nearest_rectangle"] = None if near is None else near[0]
        rows.append(row)
    return rows


def summarise(cases: list[dict[str, Any]]) -> dict[str, int]:
    """The counts of the summary (see the module's docstring); ``cases``: the missed cards' rows."""
    passing = [c for c in cases if c.get("passes")]
    at_size = [c for c in passing if all(abs(r - 1) <= c["tolerance"] for r in c["size_ratio"])]
    in_direction = [c for c in passing if c["direction_off"] <= 3.0]
    return {
        "missed": len(cases),
        "size_pass_searched": sum(bool(c["searched"]) for c in cases),
        "passes_its_tests": len(passing),
        "of_those_at_the_searched_size": len(at_size),
        "of_those_in_a_tried_direction": len(in_direction),
        "of_those_both": sum(c in in_direction for c in at_size),
        "of_those_a_rectangle_within_0.12": sum(
            c["nearest_rectangle"] is not None and c["nearest_rectangle"] < 0.12 for c in passing
        ),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_frame_arguments(ap, kind="hard", given="detector")
    ap.add_argument("--json", action="store_true", help="one JSON object per missed card, then the summary")
    add_detector_argument(ap)
    args = ap.parse_args(argv)
    config = detector_from(ap, args)
    cases: list[dict[str, Any]] = []
    cards = 0
    for index, design, scene in held_out_frames(args):
        truths = [q for _, q in scene.cards]
        cards += len(truths)
        rows = diagnose(scene.image, truths, config, plane=scene.plane if args.calibrated else None)
        for (label, _), row in zip(scene.cards, rows, strict=True):
            if not row["found"]:
                cases.append({"scene": index, "design": design, "card": label, "blur": blur_class(scene.blur), **row})
    summary: dict[str, object] = {
        "command": " ".join(["benchmarks/size_pass_misses.py", *(sys.argv[1:] if argv is None else argv)]),
        "cards": cards,
        **summarise(cases),
    }
    print_report(cases, summary, as_json=args.json, line=_line)


def _line(c: dict[str, Any]) -> str:
    head = f"scene {c['scene']:4d} {c['design']:28s} {c['card']:5s} {c['blur']:14s}"
    if not c["searched"]:
        return f"{head} size pass did not search"
    return (
        f"{head} passes {c['passes']!s:5s} size {c['size_ratio']} direction off {c['direction_off']:4.1f} "
        f"nearest rectangle {c['nearest_rectangle']}"
    )


if __name__ == "__main__":
    main()
