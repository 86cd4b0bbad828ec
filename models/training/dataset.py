"""Training crops made by the project's own detector and warp step on synthetic table scenes.

For each scene the detector runs exactly as at run time; each card it finds (matched to the scene's
ground truth) gives its two index-corner crops through ``vision.rectify.corner_crops``. Cards the
detector misses are still cropped from their true outline with jittered corners, so the classifier
also learns from imperfect outlines.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import cv2
import numpy as np

from models.training.designs import is_font_deck
from models.training.synth import HARD, LABELS, Deck, Scene, SceneSpec, make_scene
from vision.detect import detect_cards
from vision.rectify import corner_crops, order_corners


def corner_error(truth: np.ndarray, quad: np.ndarray) -> float:
    """The largest corner distance (per axis, px) between ``quad`` and ``truth`` ordered by ``order_corners``;
    the order may start at either short side."""
    t = order_corners(truth)
    return float(min(np.abs(quad - t).max(), np.abs(quad - np.roll(t, 2, axis=0)).max()))


def match(truth: np.ndarray, found: list[np.ndarray]) -> np.ndarray | None:
    """The detected quad that outlines the same card as ``truth`` (corners within 12% of its width)."""
    i = match_index(truth, found)
    return None if i is None else found[i]


def match_index(truth: np.ndarray, found: list[np.ndarray]) -> int | None:
    """The index in ``found`` of the first quad that ``match`` accepts for ``truth``, or None."""
    t = order_corners(truth)
    width = float(np.linalg.norm(t[0] - t[1]))
    for i, q in enumerate(found):
        if np.linalg.norm(q.mean(0) - t.mean(0)) > 0.3 * width:
            continue
        if corner_error(t, q) < 0.12 * width:
            return i
    return None


def jitter(rng: np.random.Generator, quad: np.ndarray, amount: float = 0.025) -> np.ndarray:
    width = float(np.linalg.norm(quad[0] - quad[1]))
    out: np.ndarray = (quad + rng.normal(0, amount * width, quad.shape)).astype(np.float32)
    return out


NONE = len(LABELS)  # training-only class: a detected outline that is not a card (phone, chip, pattern)


def _overlaps_card(quad: np.ndarray, truth: list[np.ndarray]) -> bool:
    return any(cv2.intersectConvexConvex(quad.astype(np.float32), t.astype(np.float32))[0] > 0 for t in truth)


def random_quad(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A card-shaped outline anywhere in the frame (a negative example when it covers no card)."""
    cw = float(rng.uniform(50, 220))
    box = cv2.boxPoints(
        (
            (float(rng.uniform(0, w)), float(rng.uniform(0, h))),
            (cw, cw * float(rng.uniform(1.2, 1.8))),
            float(rng.uniform(0, 180)),
        )
    )
    return box.astype(np.float32)


def random_spec(rng: np.random.Generator, hard_share: float = 0.3) -> SceneSpec:
    if rng.random() < 0.1:
        return SceneSpec(n_cards=0, clutter=int(rng.integers(2, 7)))
    if rng.random() < hard_share:
        return SceneSpec(**{**HARD.__dict__, "n_cards": int(rng.integers(8, 16))})
    return SceneSpec(
        n_cards=int(rng.integers(5, 14)), card_width=(80.0, 230.0), clutter=int(rng.integers(0, 4)), face_down=0.1
    )


def detected_scenes(
    rng: np.random.Generator,
    decks: dict[str, Deck],
    n_scenes: int,
    *,
    hard_share: float,
    font_share: float,
    empty: bool = True,
    realism: float = 0.0,
) -> Iterator[tuple[int, Scene, list[np.ndarray]]]:
    """``n_scenes`` scenes dealt from ``rng`` (``random_spec``), each as (its number from 0, the scene, the outlines
    the project's detector finds in it). When ``decks`` mixes font-drawn decks ("fonts:N",
    ``designs.is_font_deck``) with others, a scene's deck is a font deck with probability ``font_share``;
    ``realism`` is each scene's chance of the photographic look (``SceneSpec.realism``). ``empty=False`` leaves
    out the scenes whose spec has no cards (the spec is drawn, the scene is not dealt).

    The callers draw their jitter from the same ``rng`` while cutting a scene's cards; the generator is lazy,
    so the next scene is dealt only after that, and a build's crops depend on its seed alone."""
    dealer = DeckDealer.of(decks)
    for i in range(n_scenes):
        deck = dealer.deal(rng, font_share)
        spec = random_spec(rng, hard_share)
        if realism:
            spec = replace(spec, realism=realism)
        if not empty and not spec.n_cards:
            continue
        scene = make_scene(rng, deck, spec)
        yield i, scene, detect_cards(scene.image)


@dataclass(frozen=True)
class DeckDealer:
    """Chooses each scene's deck: a font-drawn one (``designs.is_font_deck``) with probability ``font_share``, else
    one of the others (with only one kind, that kind), each kind's decks alike."""

    decks: dict[str, Deck]
    fonts: tuple[str, ...]
    others: tuple[str, ...]

    @staticmethod
    def of(decks: dict[str, Deck]) -> DeckDealer:
        return DeckDealer(
            decks,
            tuple(sorted(k for k in decks if is_font_deck(k))),
            tuple(sorted(k for k in decks if not is_font_deck(k))),
        )

    def deal(self, rng: np.random.Generator, font_share: float) -> Deck:
        pool = self.fonts if self.fonts and (not self.others or rng.random() < font_share) else self.others
        return self.decks[pool[int(rng.integers(len(pool)))]]


def card_outline(
    rng: np.random.Generator, truth: np.ndarray, found: list[np.ndarray], amount: float = 0.025
) -> tuple[np.ndarray, bool]:
    """The outline to cut a card through, and whether the detector found it: the detected outline ``match``
    pairs with its true outline, else the true outline jittered by ``amount`` of its width (a card the
    detector misses still trains, from an imperfect outline)."""
    q = match(truth, found)
    return (jitter(rng, truth, amount), False) if q is None else (q, True)


def build(
    decks: dict[str, Deck],
    n_scenes: int,
    seed: int,
    *,
    extra_jitter: float = 0.3,
    log_every: int = 200,
    hard_share: float = 0.3,
    font_share: float = 0.3,
    realism: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Crops (M, 2, CORNER_H, CORNER_W, 3) uint8 and labels (M,) int64 (0..52 LABELS, 53 not a card).

    When ``decks`` mixes font-drawn decks ("fonts:N", ``designs.is_font_deck``) with others, a scene's deck is a font
    deck with
    probability ``font_share`` (there are far more font styles than designs); ``realism``: each scene's chance of
    the photographic look (``SceneSpec.realism``)."""
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    stats = {"cards": 0, "detected": 0, "negatives": 0}
    for i, scene, found in detected_scenes(
        rng, decks, n_scenes, hard_share=hard_share, font_share=font_share, realism=realism
    ):
        for label, quad in scene.cards:
            stats["cards"] += 1
            q, detected = card_outline(rng, quad, found)
            stats["detected"] += detected
            crops.append(corner_crops(scene.image, q))
            labels.append(LABELS.index(label))
            if rng.random() < extra_jitter:
                crops.append(corner_crops(scene.image, jitter(rng, quad)))
                labels.append(LABELS.index(label))
        # Negatives: detections of things that are not cards, and card-shaped outlines on the table.
        truth = [q for _, q in scene.cards]
        negatives = [q for q in found if not _overlaps_card(q, truth)]
        for _ in range(2 if not truth else 1):
            q = random_quad(rng, scene.image.shape[1], scene.image.shape[0])
            if not _overlaps_card(q, truth):
                negatives.append(q)
        for q in negatives:
            crops.append(corner_crops(scene.image, q))
            labels.append(NONE)
            stats["negatives"] += 1
        if log_every and (i + 1) % log_every == 0:
            print(
                f"  scenes {i + 1}/{n_scenes}: {len(labels)} cards, detected {stats['detected']}/{stats['cards']}",
                flush=True,
            )
    return np.stack(crops), np.array(labels, np.int64), stats
