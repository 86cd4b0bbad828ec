"""Training crops of index corners cut as the covered-card pass cuts them (``vision.covered_cards``), from overlap
scenes: fans, piles, rows and covered cards (``overlap_scenes``).

The pass reads a card through one index corner, from an outline estimated from that corner and the deck's card size;
the crop often holds another card's edge, or a suit cut short by the card lying on it. The classifier trained on
whole cards' corners reads half of such crops under the pass's 0.9. Each scene here gives:

* every index corner that shows (``overlap_scenes.INDEX_SHOWS``), cut from its true corner at the card's width
  scaled, moved and turned a little (the pass's estimates are that far off), some with the crop's inner side painted
  paper-colour as the pass's second reading does (``covered_cards.with_side_painted``);
* the pass's own corner guesses (straight edges, corners, sides: ``corner_guesses``, ``with_sides``): a guess at a
  corner whose index shows, turned the card's way, is that card; a guess elsewhere is ``none`` (a card's side, the
  wrong lie of a corner, the cloth). Guesses near a card's other two corners (some designs print four indices), near
  an index half covered, or near an index corner turned its way but off it or at an index that does not show, are
  left out: they are neither.

    python -m models.training.overlap_crops --scenes 1500 --seed 71 --out .cache/overlap_71.npz
    python -m models.training.finetune --crops .cache/overlap_71.npz .cache/crops_61.npz --out ...

The file has ``build_crops``' layout (pairs of crops: here two cuts of one corner), so ``finetune`` and
``quantize`` take it as they take any crop batch.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from models.training import designs
from models.training.build_crops import add_realism, probability
from models.training.dataset import NONE, DeckDealer
from models.training.four_colour import random_four_colour
from models.training.overlap_scenes import HARD_OVERLAP, INDEX_SHOWS, OverlapScene, OverlapSpec, make_overlap_scene
from models.training.synth import LABELS, Deck
from vision.covered_cards import (
    Gradients,
    Guesses,
    corner_guesses,
    outline_of,
    segments_of,
    with_side_painted,
    with_sides,
)
from vision.rectify import CORNER_H, CORNER_W, corner_crops

MATCH = 0.06
"""A guess within this share of the card's width of an index corner that shows, turned within ``TURN`` of the card,
is read as that card."""
TURN = math.radians(12.0)
NEAR = 0.3
"""Guesses nearer than this (card widths) to a card's corner that they do not match are left out."""
HALF_SHOWN = 0.4
"""An index corner with more than this share uncovered but under ``INDEX_SHOWS`` is neither a card nor none."""
NEGATIVES_PER_CORNER = 2.0
"""At most this many ``none`` guesses a scene for each index corner that shows (the guesses are mostly not cards)."""
PAINTED = 0.3
"""The share of crops whose second cut has its inner side painted, as the pass's second reading is."""
WIDTH_ERROR = 0.08
SHIFT_ERROR = 0.025
TURN_ERROR = 2.5
"""How far off the pass's outline estimates are: the width's relative error, the corner's shift (card widths) and
the turn (degrees), each one standard deviation."""


@dataclass(frozen=True)
class Corner:
    """An index corner of a card in a scene: where it is, the unit directions across and down the card, its label
    (``LABELS`` index), the card's width and how much of the corner shows."""

    at: np.ndarray
    across: np.ndarray
    down: np.ndarray
    label: int
    width: float
    shown: float


def card_corners(scene: OverlapScene) -> tuple[list[Corner], list[np.ndarray]]:
    """The index corners of the scene's cards (TL and BR), and the other two corners of each card."""
    index: list[Corner] = []
    others: list[np.ndarray] = []
    for card in scene.cards:
        tl, tr, br, bl = card.quad.astype(np.float64)
        width = float(np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
        for at, across_to, down_to, shown in ((tl, tr, bl, card.corners_shown[0]), (br, bl, tr, card.corners_shown[1])):
            across = (across_to - at) / max(float(np.linalg.norm(across_to - at)), 1e-9)
            down = (down_to - at) / max(float(np.linalg.norm(down_to - at)), 1e-9)
            index.append(Corner(at, across, down, LABELS.index(card.label), width, shown))
        others += [tr, bl]
    return index, others


def _turned(v: np.ndarray, degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def jittered_outline(
    rng: np.random.Generator, corner: Corner, aspect: float, width_error: float = WIDTH_ERROR
) -> np.ndarray:
    """An outline estimated from ``corner`` as the pass estimates one: the width, the corner and the turn a little
    off."""
    turn = float(rng.normal(0.0, TURN_ERROR))
    width = corner.width * float(np.exp(rng.normal(0.0, width_error)))
    at = corner.at + rng.normal(0.0, SHIFT_ERROR, 2) * corner.width
    return outline_of(at, _turned(corner.across, turn), _turned(corner.down, turn), width, aspect)


def label_guesses(guesses: Guesses, corners: list[Corner], others: list[np.ndarray]) -> np.ndarray:
    """(N,) each guess's label: a card's (its index corner shows and the guess matches it), ``NONE``, or -1 (left
    out: near an index corner turned the card's way but not on it or at an index that does not show, near an index
    half covered, or near a card's other corners)."""
    out = np.full(len(guesses), NONE, np.int64)
    for i in range(len(guesses)):
        p, a = guesses.corners[i], guesses.across[i]
        for c in corners:
            d = float(np.linalg.norm(p - c.at)) / c.width
            if d >= NEAR:
                continue
            same_way = float(np.dot(a, c.across)) >= math.cos(TURN)
            if same_way and d < MATCH and c.shown >= INDEX_SHOWS:
                out[i] = c.label
                break
            if same_way or HALF_SHOWN < c.shown < INDEX_SHOWS:
                out[i] = -1
        if out[i] == NONE and any(float(np.linalg.norm(p - q)) < NEAR * guesses.widths[i] for q in others):
            out[i] = -1
    return out


def cut(image: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """The index crop (CORNER_H, CORNER_W, 3) at ``outline``'s first corner, as the covered-card pass cuts it."""
    out = np.empty((1, CORNER_H, CORNER_W, 3), np.uint8)
    corner_crops(image, outline, out, ordered=True, corners=(0,))
    crop: np.ndarray = out[0]
    return crop


def scene_crops(
    rng: np.random.Generator, scene: OverlapScene, width_error: float = WIDTH_ERROR
) -> tuple[list[np.ndarray], list[int]]:
    """Pairs of crops (2, H, W, 3) and their labels from one scene (see the module's description); the card widths
    estimated ``width_error`` off (relative, one standard deviation)."""
    corners, others = card_corners(scene)
    if not corners:
        return [], []
    widths = [c.width for c in corners]
    aspects = [
        float(np.linalg.norm(c.quad[3] - c.quad[0]) / np.linalg.norm(c.quad[1] - c.quad[0])) for c in scene.cards
    ]
    aspect = float(np.median(aspects))
    width = float(np.median(widths)) * float(np.exp(rng.normal(0.0, width_error / 2)))
    pairs: list[np.ndarray] = []
    labels: list[int] = []

    def add(first: np.ndarray, second: np.ndarray, label: int) -> None:
        if rng.random() < PAINTED:
            second = with_side_painted(second[None, None])[0, 0]
        pairs.append(np.stack([first, second]))
        labels.append(label)

    shown = [c for c in corners if c.shown >= INDEX_SHOWS]
    for c in shown:
        add(
            cut(scene.image, jittered_outline(rng, c, aspect, width_error)),
            cut(scene.image, jittered_outline(rng, c, aspect, width_error)),
            c.label,
        )
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    guesses = with_sides(
        Gradients.over(grey, [(0, 0, w, h)]), corner_guesses(segments_of(grey, width), width), width, aspect
    )
    found = label_guesses(guesses, corners, others)
    negatives = np.flatnonzero(found == NONE)
    keep = np.concatenate(
        [
            np.flatnonzero((found >= 0) & (found != NONE)),
            rng.permutation(negatives)[: int(NEGATIVES_PER_CORNER * max(1, len(shown)))],
        ]
    )
    for i in np.sort(keep).tolist():
        outline = outline_of(guesses.corners[i], guesses.across[i], guesses.down[i], width, aspect)
        moved = outline_of(
            guesses.corners[i] + rng.normal(0.0, SHIFT_ERROR / 2, 2) * width,
            guesses.across[i],
            guesses.down[i],
            width * float(np.exp(rng.normal(0.0, width_error / 2))),
            aspect,
        )
        add(cut(scene.image, outline), cut(scene.image, moved), int(found[i]))
    return pairs, labels


def overlap_scenes(
    rng: np.random.Generator,
    decks: dict[str, Deck],
    n_scenes: int,
    hard_share: float,
    font_share: float,
    realism: float = 0.0,
    four_colour: float = 0.0,
) -> Iterator[OverlapScene]:
    """``n_scenes`` overlap scenes, each dealt from one of ``decks`` (a font-drawn one with probability
    ``font_share``), painted as a four-colour deck with probability ``four_colour``
    (``four_colour.random_four_colour``), hard (``HARD_OVERLAP``) with probability ``hard_share``, with the
    photographic look with probability ``realism`` (``synth.SceneSpec.realism``)."""
    dealer = DeckDealer.of(decks)
    for _ in range(n_scenes):
        deck = dealer.deal(rng, font_share)
        if rng.random() < four_colour:
            deck = random_four_colour(rng, deck)
        spec = HARD_OVERLAP if rng.random() < hard_share else OverlapSpec()
        if realism:
            spec = replace(spec, look=replace(spec.look, realism=realism))
        yield make_overlap_scene(rng, deck, spec)


def build(
    decks: dict[str, Deck],
    n_scenes: int,
    seed: int,
    *,
    hard_share: float = 0.4,
    font_share: float = 0.3,
    realism: float = 0.0,
    four_colour: float = 0.0,
    width_error: float = WIDTH_ERROR,
) -> tuple[np.ndarray, np.ndarray]:
    """Crops (M, 2, CORNER_H, CORNER_W, 3) uint8 and labels (M,) int64 (``LABELS`` indices, ``NONE``)."""
    rng = np.random.default_rng(seed)
    pairs: list[np.ndarray] = []
    labels: list[int] = []
    for k, scene in enumerate(overlap_scenes(rng, decks, n_scenes, hard_share, font_share, realism, four_colour)):
        more, named = scene_crops(rng, scene, width_error)
        pairs += more
        labels += named
        if (k + 1) % 100 == 0:
            print(f"  scenes {k + 1}/{n_scenes}: {len(labels)} crops, {labels.count(NONE)} none", flush=True)
    return np.stack(pairs), np.array(labels, np.int64)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m models.training.overlap_crops", description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--hard-share", type=float, default=0.4, help="share of hard scenes (small cards, glare, blur)")
    ap.add_argument("--font-share", type=float, default=0.3, help="share of scenes dealt from a font-drawn deck")
    add_realism(ap)
    ap.add_argument(
        "--four-colour",
        type=probability,
        default=0.0,
        metavar="P",
        help="chance that a scene's deck is painted as a four-colour deck (four_colour.random_four_colour)",
    )
    ap.add_argument(
        "--width-error",
        type=float,
        default=WIDTH_ERROR,
        help=f"how far off the card widths are estimated (relative, one standard deviation; default {WIDTH_ERROR})",
    )
    return ap


def main(argv: list[str] | None = None) -> None:
    ap = parser()
    args = ap.parse_args(argv)
    decks = designs.training_decks() | designs.font_decks(designs.FONT_STYLES)
    crops, labels = build(
        decks,
        args.scenes,
        args.seed,
        hard_share=args.hard_share,
        font_share=args.font_share,
        realism=args.realism,
        four_colour=args.four_colour,
        width_error=args.width_error,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    command = "python -m models.training.overlap_crops " + " ".join(sys.argv[1:] if argv is None else argv)
    np.savez(args.out, crops=crops, labels=labels, decks=np.array(sorted(decks)), command=np.array(command))
    print(f"{args.out}: {len(labels)} crops, {int((labels == NONE).sum())} none", flush=True)


if __name__ == "__main__":
    main()
