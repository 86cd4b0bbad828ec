"""Training scenes from the simulated table (``vision.simtable``), for the learned outline finder's networks.

The networks of ``vision.learned_outlines`` first learned from ``models.training.synth`` scenes only (flat cards on a
cloth, a camera tilted up to 30 degrees). At the simulated table (``benchmarks/learned_at_the_table.py``, session 43)
most of their outlines lay off the cards: the printed mat with its dashed slots and markers, cards drawn with their
thickness and a shadow, piles, a 1920x1080 camera over the big Garbage cloth. ``sim_scenes`` draws such frames, with
the truth of every card a camera sees (the top card of each pile), in the shape of ``segmentation_spike.
training_scenes`` (``image``, ``cards``: label and image corners), so that the spikes' ``scenes`` and ``patches``
commands can draw from either (``--source sim``).

    .venv/bin/python benchmarks/keypoint_spike.py scenes --source sim --scenes 2000 --first-seed 5000 --out F.npz
    .venv/bin/python benchmarks/keypoint_cascade.py patches --source sim ...   # keypoint_verifier.py patches too
    .venv/bin/python benchmarks/sim_scenes.py [--meta models/outline_nets.json] [--scenes 100] [--seed 9000] [--shipped]

The last evaluates the learned path (or ``--shipped``, the shipped detector) on simulated-table frames of other
seeds (``evaluate``). Each table (a random game's mat, camera, light, noise, blur, face and back style) is dealt
``FRAMES_A_TABLE`` times (``deal``: cards half under another taken off); face styles are drawn below
``validate_fonts``'s validation styles (960 on), so those stay unseen.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.learned_outlines import DEFAULT_META  # noqa: E402

FRAMES_A_TABLE = 4
"""Deals a simulated table is drawn with (building a table, its light and noise, costs more than a frame)."""
STYLES = 960
"""Face and back styles are drawn from [0, STYLES): ``validate_fonts`` validates on 960 and on."""


class SimScene(NamedTuple):
    image: np.ndarray
    """The camera's BGR frame (1280x720, or 1920x1080 over the big cloths)."""
    cards: list[tuple[str, np.ndarray]]
    """Every card the camera sees: its label ("back" face down) and its (4, 2) image corners."""


def drop_covered(sim: Any) -> None:
    """Take off ``sim`` every card a card of another pile lies on in part (a fanned hand's slots, a card dealt to a
    zone beside a pile), until none is: a card half under another is not one the networks should give, and not one
    they should learn to call "no card" either."""
    while True:
        tops = sorted(sim.visible(), key=lambda c: -c.order)
        polygons = [sim.card_corners_mm(c).astype(np.float32) for c in tops]
        covered = next(
            (
                tops[j]
                for i in range(len(tops))
                for j in range(i + 1, len(tops))
                if cv2.intersectConvexConvex(polygons[i], polygons[j])[0] > 1.0
            ),
            None,
        )
        if covered is None:
            return
        sim.remove(covered.id, animate=False)


def random_table(rng: np.random.Generator) -> Any:
    """A simulated table of a random game and player count, seen by a random camera."""
    from vision.simtable import SimCamera, SimTable, default_camera
    from vision.zones import available_layouts, load_layout

    names = sorted(available_layouts())
    layout = load_layout(available_layouts()[names[int(rng.integers(len(names)))]])
    size = default_camera(layout)
    camera = SimCamera(
        width=size.width,
        height=size.height,
        tilt_deg=float(rng.uniform(0, 30)),
        yaw_deg=float(rng.choice([0.0, 180.0]) + rng.uniform(-12, 12)),
        roll_deg=float(rng.uniform(-8, 8)),
        fov_deg=float(rng.uniform(45, 65)),
        fill=float(rng.uniform(0.8, 1.0)),
        shift_px=(float(rng.uniform(-0.05, 0.05) * size.width), float(rng.uniform(-0.05, 0.05) * size.height)),
    )
    return SimTable(
        layout,
        seed=int(rng.integers(2**31)),
        camera=camera,
        noise=float(rng.uniform(0.5, 5)),
        blur=float(rng.choice([0.0, 0.0, rng.uniform(0.3, 1.5)])),
        light=float(rng.uniform(0.05, 0.45)),
        face_style=int(rng.integers(STYLES)),
        back_style=int(rng.integers(STYLES)),
        jitter_mm=float(rng.uniform(0.5, 4)),
        jitter_deg=float(rng.uniform(0.5, 8)),
    )


def deal(sim: Any, rng: np.random.Generator) -> None:
    """Clear ``sim`` and lay 0-24 random cards in its zones (slots in turn, piles on one spot), most face up; then
    ``drop_covered``."""
    for c in list(sim.cards.values()):
        sim.remove(c.id, animate=False)
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    zones = [z.name for z in sim.layout.zones]
    count = int(rng.integers(0, 25)) if rng.random() < 0.95 else 0
    for k in rng.permutation(52)[:count]:
        sim.place(deck[int(k)], zones[int(rng.integers(len(zones)))], face_up=bool(rng.random() < 0.8), animate=False)
    drop_covered(sim)


def sim_scenes(seed: int, count: int, salt: int) -> Iterator[SimScene]:
    """``count`` simulated-table frames from the generator seeded [``seed``, ``salt``], ``FRAMES_A_TABLE`` a table,
    each with the corners of the cards the camera sees."""
    rng = np.random.default_rng([seed, salt])
    sim = None
    for k in range(count):
        if k % FRAMES_A_TABLE == 0:
            sim = random_table(rng)
        assert sim is not None
        deal(sim, rng)
        frame = sim.render()
        height, width = frame.shape[:2]
        cards = []
        for card in sim.visible():
            corners = sim.card_corners(card).astype(np.float32)
            if (corners >= 0).all() and (corners[:, 0] < width).all() and (corners[:, 1] < height).all():
                cards.append((card.label, corners))
        yield SimScene(frame, cards)


SOURCES = ("synth", "sim")
"""Where the spikes' ``scenes`` and ``patches`` commands draw from: ``segmentation_spike.training_scenes`` (the
training designs' synthetic scenes) or ``sim_scenes``."""


def scenes_from(source: str, seed: int, count: int, salt: int) -> Iterator[Any]:
    """``count`` scenes of ``source`` (``SOURCES``) from the generator seeded [``seed``, ``salt``]."""
    if source == "sim":
        return sim_scenes(seed, count, salt)
    if source == "synth":
        from benchmarks.segmentation_spike import training_scenes

        synth: Iterator[Any] = training_scenes(seed, count, salt)
        return synth
    raise ValueError(f"unknown scene source {source!r} (choose from {', '.join(SOURCES)})")


def evaluate(meta: Path, scenes: int, seed: int, shipped: bool = False) -> dict[str, Any]:
    """The learned path (``vision.learned_detect.detect_learned`` with the networks ``meta`` describes) on ``scenes``
    simulated-table frames drawn from ``seed``: cards, those its good learned outlines find (the recognition
    benchmark's match), those all its outlines find (the shipped detector's in the handed-on regions too), its false
    outlines, the frames it hands on, and its median ms a frame (one thread). ``shipped``: the shipped detector's
    (``vision.detect.detect_cards``) instead, for the same frames."""
    from models.training.evaluate import matched_outlines
    from vision.detect import DEFAULT_CONFIG, detect_cards
    from vision.learned_detect import LearnedDetection, detect_learned
    from vision.learned_outlines import OutlineNets

    cv2.setNumThreads(1)
    nets = OutlineNets(meta)
    counts = {"frames": 0, "cards": 0, "found_learned": 0, "found": 0, "false": 0, "handed_on": 0}
    times = []
    for scene in sim_scenes(seed, scenes, salt=990):
        t0 = time.perf_counter()
        found = (
            LearnedDetection(detect_cards(scene.image), 0, [])
            if shipped
            else detect_learned(scene.image, nets, DEFAULT_CONFIG)
        )
        times.append(1000 * (time.perf_counter() - t0))
        matched = matched_outlines(scene.cards, found.quads)
        counts["frames"] += 1
        counts["cards"] += len(scene.cards)
        by_nets = matched_outlines(scene.cards, found.quads[: found.learned])
        counts["found_learned"] += sum(i is not None for i in by_nets)
        counts["found"] += sum(i is not None for i in matched)
        counts["false"] += len(found.quads) - len({i for i in matched if i is not None})
        counts["handed_on"] += bool(found.regions)
    return {
        "meta": "shipped detector" if shipped else str(meta),
        "seed": seed,
        **counts,
        "median_ms": round(float(np.median(times)), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--meta",
        type=Path,
        default=DEFAULT_META,
        help="the outline networks' metadata (models/training/outline_nets.py --out writes one)",
    )
    parser.add_argument("--scenes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=9000)
    parser.add_argument("--shipped", action="store_true", help="the shipped detector instead, on the same frames")
    args = parser.parse_args()
    print(json.dumps(evaluate(args.meta, args.scenes, args.seed, args.shipped)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
