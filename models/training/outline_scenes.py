"""The scenes the outline networks learn from, with the truth of every card in them.

* ``synth``: 1280x720 scenes of the training designs (``models.training.synth.make_scene``): half realistic, half
  hard, a tenth with no card on a cluttered table. Needs the rendered Debian designs (``render_designs``).
* ``sim``: frames of the simulated table (``vision.simtable``): the printed mat with its dashed slots and markers,
  cards drawn with their thickness and a shadow, piles, a 1920x1080 camera over the big Garbage cloth; every card a
  camera sees (the top card of each pile) with its corners. Synthetic scenes alone taught the networks outlines
  that lay off the cards at the table.

``python -m models.training.outline_scenes --source synth --scenes 4000 --out F.npz`` draws the first stage's scenes
once, at its input size, into a file (drawing is the slow part); ``load_scenes`` reads them back.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any, Literal, Protocol

import cv2
import numpy as np

from models.training.synth import Deck
from vision.learned_outlines import INPUT

Source = Literal["synth", "sim"]
SOURCES: tuple[Source, ...] = ("synth", "sim")
SCENES_A_SEED = 25
"""Scenes drawn from one seed: the seeds ``first``, ``first + 1``, ... each give this many."""
FRAMES_A_TABLE = 4
"""Deals a simulated table is drawn with (building a table, its light and noise, costs more than a frame)."""
STYLES = 960
"""Simulated face and back styles are drawn from [0, STYLES): ``validate_fonts`` validates on 960 and on."""


class Scene(Protocol):
    """A frame and the cards in it: the shape of ``synth.Scene`` and ``SimScene``."""

    @property
    def image(self) -> np.ndarray: ...

    @property
    def cards(self) -> Sequence[tuple[str, np.ndarray]]: ...


@dataclass(frozen=True)
class SimScene:
    image: np.ndarray
    """The camera's BGR frame (1280x720, or 1920x1080 over the big cloths)."""
    cards: list[tuple[str, np.ndarray]]
    """Every card the camera sees: its label ("back" face down) and its (4, 2) image corners."""


_DECKS: dict[str, Deck] = {}


def synth_scenes(seed: int, count: int, salt: int) -> Iterator[Scene]:
    """``count`` scenes of the training designs from the generator seeded [``seed``, ``salt``]: half realistic, half
    hard, a tenth with no card on a cluttered table."""
    from models.training import designs
    from models.training.evaluate import NORMAL
    from models.training.synth import HARD, SceneSpec, make_scene

    if not _DECKS:
        _DECKS.update(designs.training_decks())
    names = sorted(_DECKS)
    rng = np.random.default_rng([seed, salt])
    for _ in range(count):
        spec = NORMAL if rng.random() < 0.5 else HARD
        if rng.random() < 0.1:
            spec = SceneSpec(n_cards=0, clutter=4)
        deck = _DECKS[names[int(rng.integers(len(names)))]]
        yield make_scene(rng, deck if spec.n_cards else None, spec)


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
    each with the corners of the cards the camera sees whole."""
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


def scenes_from(source: str, seed: int, count: int, salt: int) -> Iterator[Scene]:
    """``count`` scenes of ``source`` (``SOURCES``) from the generator seeded [``seed``, ``salt``]."""
    if source == "sim":
        return sim_scenes(seed, count, salt)
    if source == "synth":
        return synth_scenes(seed, count, salt)
    raise ValueError(f"unknown scene source {source!r} (choose from {', '.join(SOURCES)})")


def card_corners(scene: Scene, width: int) -> list[np.ndarray]:
    """The corners of ``scene``'s cards, (4, 2) float32 each, scaled to a frame ``width`` pixels wide."""
    scale = width / scene.image.shape[1]
    return [np.asarray(q, np.float32).reshape(4, 2) * scale for _, q in scene.cards]


@dataclass(frozen=True)
class DrawnScenes:
    """Scenes at the first stage's input size and their cards' corners in its pixels."""

    images: np.ndarray
    """(N, INPUT height, INPUT width, 3) uint8."""
    quads: list[np.ndarray]
    """Per scene, (cards, 4, 2) float32."""


def _draw(job: tuple[int, int, str]) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    seed, count, source = job
    images, cards = [], []
    for scene in scenes_from(source, seed, count, salt=778):
        images.append(cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA))
        cards.append(card_corners(scene, INPUT[0]))
    return np.stack(images), cards


def seeds(first: int, scenes: int) -> list[tuple[int, int]]:
    """The seeds, and how many scenes of each, that give ``scenes`` scenes from the seed ``first`` on:
    ``SCENES_A_SEED`` from each (fewer scenes: as many from ``first``)."""
    if scenes < SCENES_A_SEED:
        return [(first, max(1, scenes))]
    return [(seed, SCENES_A_SEED) for seed in range(first, first + scenes // SCENES_A_SEED)]


def pooled(workers: int, work: Any, jobs: list[Any]) -> list[Any]:
    """``work`` over ``jobs`` in ``workers`` processes (in this one where ``workers`` is 1), in order."""
    if workers <= 1:
        return [work(job) for job in jobs]
    with Pool(workers) as pool:
        return pool.map(work, jobs)


def draw_scenes(scenes: int, out: Path, first: int = 0, source: str = "synth", workers: int = 2) -> dict[str, Any]:
    """``scenes`` scenes of ``source`` and their cards' corners into ``out`` (.npz: images, corners, counts), drawn
    ``SCENES_A_SEED`` a seed from the seed ``first`` on (another file from other seeds holds other scenes)."""
    t0 = time.time()
    parts = pooled(workers, _draw, [(seed, count, source) for seed, count in seeds(first, scenes)])
    images = np.concatenate([p[0] for p in parts])
    cards = [c for p in parts for c in p[1]]
    counts = np.array([len(c) for c in cards], np.int32)
    corners = np.concatenate([np.stack(c) for c in cards if c] or [np.zeros((0, 4, 2))]).astype(np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, images=images, corners=corners, counts=counts)
    return {"scenes": len(images), "cards": int(counts.sum()), "seconds": round(time.time() - t0, 1), "file": str(out)}


def load_scenes(paths: Sequence[Path]) -> DrawnScenes:
    """The scenes of every file ``draw_scenes`` wrote, one after another."""
    from models.training.outline_networks import TrainingError

    images, quads = [], []
    for path in paths:
        try:
            data = np.load(path)
            counts, corners = data["counts"], data["corners"]
            images.append(data["images"])
        except (OSError, ValueError, KeyError) as e:
            raise TrainingError(f"{path}: not a scenes file (outline_scenes): {e}") from e
        starts = np.concatenate([[0], np.cumsum(counts)])
        quads += [corners[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]
    return DrawnScenes(np.concatenate(images), quads)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m models.training.outline_scenes", description="Draw the first stage's training scenes."
    )
    p.add_argument("--scenes", type=int, default=4000)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--first-seed", type=int, default=0, help=f"draw from these seeds on ({SCENES_A_SEED} a seed)")
    p.add_argument("--source", choices=SOURCES, default="synth", help="synthetic scenes or the simulated table's")
    p.add_argument("--workers", type=int, default=2, help="processes drawing")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    print(draw_scenes(args.scenes, args.out, args.first_seed, args.source, args.workers), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
