"""The deck fit: on a table plane every card is one rectangle, so an outline off that rectangle or off the
edges is moved onto the deck's rectangle whose sides lie best on edges nearby (``vision.detect``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.detector_config import DetectorConfig
from vision.plane_from_cards import mean_side_vectors
from vision.quads import overlap_share, plane_points, side_hits
from vision.size_pass import card_margins, whiter_inside
from vision.snapping import snap_to_edges


def _score_poses(
    poses: np.ndarray,
    pose: tuple[np.ndarray, float],
    card: tuple[float, float],
    back: tuple[float, ...],
    frame: tuple[int, int],
    scale: float,
    near_edges: np.ndarray,
    thin: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For (N, 5) ``poses`` (turn, shift across, shift along, scale of the short side, of the long side) of the
    deck's rectangle ``card`` about ``pose`` (its centre and the angle of its long side on the plane): the
    rectangles in the image (full resolution) that lie inside the ``frame`` (width, height) with every side on
    edges within 2 px for 0.9, their (K, 4) side hits within 1 px (``thin``) and their poses."""
    centre, angle = pose
    along = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-along[1], along[0]])
    rects = _deck_rectangles(
        centre + poses[:, 1:2] * across + poses[:, 2:3] * along,
        angle + poses[:, 0],
        card[0] * poses[:, 3],
        card[1] * poses[:, 4],
    )
    image = plane_points(rects, back)
    w, h = frame
    ok = (image.min(axis=(1, 2)) >= 1) & (image[..., 0].max(axis=1) <= w - 2) & (image[..., 1].max(axis=1) <= h - 2)
    ok[ok] = side_hits((image[ok] + 0.5) * scale - 0.5, near_edges).min(axis=1) >= 0.9
    return image[ok], side_hits((image[ok] + 0.5) * scale - 0.5, thin), poses[ok]


def _pose_grid(turns: np.ndarray, shifts: np.ndarray, scales: np.ndarray | None = None) -> np.ndarray:
    """(N, 5) poses (turn in radians, shift across, shift along, scale of each side) of every turn (degrees),
    pair of shifts and pair of side scales (``scales``; 1 when None)."""
    sizes = np.ones(1) if scales is None else scales
    t, a, b, u, v = np.meshgrid(np.radians(turns), shifts, shifts, sizes, sizes, indexing="ij")
    return np.stack([t.ravel(), a.ravel(), b.ravel(), u.ravel(), v.ravel()], axis=1)


def _deck_rectangles(
    centre: np.ndarray, angle: np.ndarray, short: float | np.ndarray, long_: float | np.ndarray
) -> np.ndarray:
    """(N, 4, 2) rectangles ``short`` x ``long_`` (the deck's size, or (N,) sizes) on the plane, centred at
    (N, 2) ``centre``, the long side along (N,) ``angle`` radians."""
    v = np.stack([np.cos(angle), np.sin(angle)], axis=1)  # long axis
    u = np.stack([-v[:, 1], v[:, 0]], axis=1)
    hs, hl = np.reshape(np.asarray(short) / 2, (-1, 1)), np.reshape(np.asarray(long_) / 2, (-1, 1))
    c = centre[:, None, :]
    return np.stack(
        [c[:, 0] - hs * u - hl * v, c[:, 0] + hs * u - hl * v, c[:, 0] + hs * u + hl * v, c[:, 0] - hs * u + hl * v],
        axis=1,
    )


def _best_rectangle(
    pose: tuple[np.ndarray, float],
    coarse: np.ndarray,
    fine: np.ndarray,
    card: tuple[float, float],
    back: tuple[float, ...],
    frame: tuple[int, int],
    scale: float,
    near_edges: np.ndarray,
    thin: np.ndarray,
) -> tuple[np.ndarray, float] | None:
    """The deck's rectangle about ``pose`` whose weakest side lies best on edges (``fit_deck``) and that side's
    share within 1 px; None where no rectangle lies inside the frame on edges within 2 px for 0.9."""
    # coarse (1.5 degrees, 0.04 widths), then around its best few at half the shift
    _, hits, poses = _score_poses(coarse, pose, card, back, frame, scale, near_edges, thin)
    if not len(poses):
        return None
    top = poses[np.argsort(-(hits.min(axis=1) * 10 + hits.mean(axis=1)))[:16]]
    image, hits, _ = _score_poses(
        (top[:, None, :] + fine[None]).reshape(-1, 5), pose, card, back, frame, scale, near_edges, thin
    )
    if not len(image):
        return None
    best = int(np.argmax(hits.min(axis=1) * 10 + hits.mean(axis=1)))
    return image[best].astype(np.float32), float(hits[best].min())


def fit_deck(
    frame_bgr: np.ndarray,
    quads: list[np.ndarray],
    edges: np.ndarray,
    near_edges: np.ndarray,
    config: DetectorConfig,
    paper: tuple[np.ndarray, np.ndarray] | None = None,
    deck: Sequence[np.ndarray] = (),
) -> list[np.ndarray]:
    """On a calibrated table, outlines that are not the deck's rectangle moved onto it.

    Every card on the table is one rectangle (the median size of the outlines found, on the plane). An
    outline whose corners lie ``deck_fit_error`` off that rectangle at its own pose (one that took in an
    arm beside the card), whose weakest side is off the edge map within 2 px for a tenth of it, or within
    1 px for 0.15 (one that lies across a checked cloth's squares, a few degrees off the card's own sides),
    is searched for: the rectangle moved by up to ``deck_fit_shift`` and turned by up to ``deck_fit_turn``.
    Of the rectangles inside the frame whose every side lies on edges within 2 px for 0.9, the one whose
    weakest side lies best on edges within 1 px (then all four) replaces the outline, snapped, if that
    side does so for 0.9 and for 0.05 more than the outline's, and it overlaps no other card. An outline whose
    sides are under ``deck_fit_small`` of the deck's (a court card's printed frame) need not be bettered, and
    where no rectangle fits at its pose one turned a quarter is tried (``deck_fit_across``: a printed frame
    wider than tall has its long side across the card's). Such a rectangle must have a card's paper margin
    (``size_pass.card_margins`` on ``paper``: the detection-scale frame and its paper mask; without them it is
    not taken): a phone's screen is far smaller than a card too, and the cloth around it is no margin. Where no
    rectangle of the deck's size fits around such an outline, one whose sides differ from the deck's by up to
    ``deck_fit_sizes`` is searched for about its centre (the deck's size is the median outline's, and a card can
    be a few percent larger: court cards on the validation set's designs; with ``deck_fit_sizes_all`` for every
    outline searched). The rectangle found is snapped
    onto the edges only where no corner moves by ``deck_fit_snap`` of a width: a design with a printed frame
    line just inside its edge (``kde:tigullio-international``) drew the snap onto that line, several percent
    inside the card, and the fitted outline lost its card.
    With ``deck_fit_off_size``, an outline off the deck's size for which no rectangle lies better on edges (it took
    in the cloth's squares or the table's edge beside the card, whose edges are as straight as the card's) is
    searched again without that condition, resized too: the rectangle found must then have a card's margin and be
    whiter inside every side than outside it (``size_pass.whiter_inside``), which a printed frame line inside a
    card is not (paper on both sides of it).
    ``quads``: full resolution; ``deck``: outlines (full resolution) of cards known elsewhere, which size the deck's
    rectangle with ``quads`` (``detect_cards``' ``deck``)."""
    assert config.plane is not None
    q = np.stack(quads).astype(np.float32)
    p = plane_points(q, config.plane)  # corners in the same cyclic order (a mirror view reverses it)
    pair_a, pair_b = mean_side_vectors(p)
    len_a, len_b = np.linalg.norm(pair_a, axis=1), np.linalg.norm(pair_b, axis=1)
    if len(deck):
        known = mean_side_vectors(
            plane_points(np.stack([np.asarray(d, np.float32).reshape(4, 2) for d in deck]), config.plane)
        )
        sides_a = np.concatenate([len_a, np.linalg.norm(known[0], axis=1)])
        sides_b = np.concatenate([len_b, np.linalg.norm(known[1], axis=1)])
    else:
        sides_a, sides_b = len_a, len_b
    short, long_ = float(np.median(np.minimum(sides_a, sides_b))), float(np.median(np.maximum(sides_a, sides_b)))
    long_dir = np.where((len_a >= len_b)[:, None], pair_a, pair_b)
    angle = np.arctan2(long_dir[:, 1], long_dir[:, 0])
    centre = p.mean(axis=1)
    here = _deck_rectangles(centre, angle, short, long_)
    # each corner against the nearest corner of the deck's rectangle at the outline's pose
    error = np.linalg.norm(p[:, :, None] - here[:, None], axis=3).min(axis=2).max(axis=1) / short
    s = config.scale
    det = (q + 0.5) * s - 0.5
    support = side_hits(det, near_edges).min(axis=1)
    thin = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    tight = side_hits(det, thin).min(axis=1)
    # an outline far smaller than the deck's rectangle (a court card's printed frame) is not the card's edge
    # however well it lies on edges: there the rectangle need not lie better than the outline
    small = (
        (len_a * len_b < config.deck_fit_small**2 * short * long_) if config.deck_fit_small else np.zeros(len(q), bool)
    )
    off = np.flatnonzero((error >= config.deck_fit_error) | (support < 0.9) | (tight < 0.85))
    if not len(off):
        return quads
    # an outline off the deck's size that lies on edges as well as its rectangle does (the cloth's squares or the
    # table's edge taken in beside the card): found only where no rectangle lies better (config.deck_fit_off_size)
    sized = (
        (error >= config.deck_fit_error) & ~small
        if config.deck_fit_off_size and paper is not None
        else np.zeros(len(q), bool)
    )
    back = tuple(float(x) for x in np.linalg.inv(np.asarray(config.plane, np.float64).reshape(3, 3)).ravel())
    h, w = frame_bgr.shape[:2]
    turns, shifts = config.deck_fit_turn, config.deck_fit_shift * short
    coarse = _pose_grid(np.linspace(-turns, turns, 9), np.linspace(-shifts, shifts, 11))
    fine = _pose_grid(np.zeros(1), np.array([-shifts, 0.0, shifts]) / 10, np.zeros(1))  # steps from a coarse pose
    grids = [(coarse, fine)]
    if config.deck_fit_sizes:  # the rectangle also resized: a printed frame is centred and square with its card
        r = config.deck_fit_sizes
        grids.append(
            (
                _pose_grid(np.linspace(-1.5, 1.5, 3), np.linspace(-0.04, 0.04, 5) * short, 1 + np.linspace(-r, r, 5)),
                _pose_grid(np.zeros(1), np.array([-0.01, 0.0, 0.01]) * short, np.array([-r, 0.0, r]) / 4),
            )
        )
    out = list(quads)
    frame, card = (w, h), (short, long_)

    def det_of(quad: np.ndarray) -> np.ndarray:
        return (quad + 0.5) * s - 0.5

    def has_margins(quad: np.ndarray) -> bool:
        return paper is not None and bool(card_margins(paper[1], paper[0], [det_of(quad)], config)[0])

    def search(
        i: int,
        tries: list[tuple[float, int]],
        tight_: float,
        seen: dict[tuple[float, int], tuple[np.ndarray, float] | None],
    ) -> np.ndarray | None:
        """The first rectangle of ``tries`` (turn, grid index) about outline ``i`` whose weakest side lies on
        edges within 1 px for 0.9 and for 0.05 more than ``tight_``; ``seen`` keeps each try's best."""
        for turn, k in tries:
            if (turn, k) not in seen:
                seen[turn, k] = _best_rectangle(
                    (centre[i], float(angle[i]) + turn), *grids[k], card, back, frame, s, near_edges, thin
                )
            best = seen[turn, k]
            if best is not None and best[1] >= 0.9 and best[1] >= tight_ + 0.05:
                return best[0]
        return None

    for i in map(int, off):
        # at the outline's own pose, then (config.deck_fit_across) turned a quarter: a court card's printed
        # frame can be wider than tall, and its long side then lies across the card's; at the deck's size, then
        # (for a small outline, or any with deck_fit_sizes_all) resized
        seen: dict[tuple[float, int], tuple[np.ndarray, float] | None] = {}
        sizes = range(len(grids) if small[i] or config.deck_fit_sizes_all else 1)
        found = search(
            i,
            [(turn, k) for turn in ((0.0, math.pi / 2) if config.deck_fit_across else (0.0,)) for k in sizes],
            0.0 if small[i] else float(tight[i]),
            seen,
        )
        if found is not None and small[i] and not has_margins(found):
            found = None
        if found is None and sized[i] and paper is not None:
            # the rectangle need not lie better on edges than the outline, at the outline's own pose, at the
            # deck's size or resized, but must have a margin and be the card's edge on the table
            found = search(i, [(0.0, k) for k in range(len(grids))], 0.0, seen)
            if found is not None and not (has_margins(found) and whiter_inside(paper[0], [det_of(found)], config)[0]):
                found = None
        if found is None or any(j != i and overlap_share(found, out[j]) >= 0.2 for j in range(len(out))):
            continue
        snapped = snap_to_edges(frame_bgr, [found], config)[0]
        on_plane = plane_points(np.stack([snapped, found]), config.plane)
        moved = float(np.linalg.norm(on_plane[0] - on_plane[1], axis=1).max()) / short
        out[i] = snapped if moved < config.deck_fit_snap else found
    return out
