"""Snapping outlines onto the card's edge at full resolution, and rebuilding an outline with one corner off
(``vision.detect``, steps 5 and 6)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detector_config import DEFAULT_CONFIG, DetectorConfig
from vision.quads import (
    card_like,
    corners_from_sides,
    plane_points,
    side_hits,
    side_skew,
    sine_between,
    skew_per_px,
)

_SNAP_T = np.linspace(0.12, 0.88, 12, dtype=np.float32)  # where along each side the edge is sampled


_SNAP_O = np.linspace(-1.0, 1.0, 21, dtype=np.float32)  # offsets across it, in units of the search radius
_BEFORE, _AFTER = [3, 0, 1, 2], [1, 2, 3, 0]  # the corner (side) before and after each (np.roll, without its cost)


def snap_to_edges(
    frame_bgr: np.ndarray, quads: list[np.ndarray], config: DetectorConfig = DEFAULT_CONFIG
) -> list[np.ndarray]:
    """Each side of each (full-resolution) quad moved onto the strongest colour edge near it.

    The outline found at detection scale can sit a pixel or two off (blur, a half-res staircase) or on a
    card's printed frame just inside its edge. Every side is sampled across at full resolution (all
    quads in one remap), the strongest step per sample is taken, and a line fitted through them
    (outliers dropped). A result that no longer looks like a card keeps the old outline.
    """
    q = np.stack(quads).astype(np.float32)  # (Q, 4, 2)
    a, b = q, q[:, _AFTER]
    d = b - a
    length = np.linalg.norm(d, axis=2, keepdims=True)
    normal = np.stack([d[..., 1], -d[..., 0]], axis=2) / np.maximum(length, 1e-6)
    centre = q.mean(axis=1, keepdims=True)
    outward = np.sign(((a + b) / 2 - centre) * normal).sum(axis=2, keepdims=True)
    normal *= np.where(outward < 0, -1.0, 1.0)
    short = np.minimum(length[:, 0::2].mean(axis=1), length[:, 1::2].mean(axis=1))  # (Q, 1)
    radius = np.clip(config.snap_radius * short, 2.0, 12.0)[:, :, None]  # (Q, 1, 1)
    # sample points (Q, 4, T, O), x and y apart: the maps remap reads, with no broadcast over a last axis of two
    offsets = (_SNAP_O[None, None, :] * radius)[:, :, None, :]  # (Q, 1, 1, O)
    map_x, map_y = (
        (a[..., k, None] + _SNAP_T * d[..., k, None])[..., None] + offsets * normal[..., k, None, None] for k in (0, 1)
    )
    shape = map_x.shape
    samples = cv2.remap(
        frame_bgr,
        map_x.reshape(-1, len(_SNAP_O)),
        map_y.reshape(-1, len(_SNAP_O)),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.int16)
    # integer steps (at most 3 * 255), then float32: the same values as differencing in float32
    diff = np.abs(samples[:, 2:] - samples[:, :-2])
    step = (diff[..., 0] + diff[..., 1] + diff[..., 2]).astype(np.float32)  # the channels' sum, unrolled
    step = step.reshape(*shape[:3], -1)  # (Q, 4, T, O-2)
    # the strongest step, outer ones favoured: a card's printed frame line is often a stronger edge than
    # the card's own edge against the table, and lies just inside it
    weight = 1 + config.snap_outer * _SNAP_O[1:-1]
    if config.snap_paper != 1.0:
        weight = weight * _paper_weight(samples, config).reshape(step.shape)
    best = (step * weight).argmax(axis=3)
    strength = np.take_along_axis(step, best[..., None], axis=3)[..., 0]
    where = _SNAP_O[1:-1][best] * radius  # (Q, 4, T) offset of the edge, px
    # keep the samples on the side's main edge: strong enough, and near the median offset
    good = strength >= 0.5 * median_rows(strength)
    centre_o = median_rows(where, good)
    good &= np.abs(where - centre_o) <= 0.35 * radius + 0.75
    g = good.astype(np.float32)
    # offset along each side as a straight line o(t) = c0 + c1 t, least squares over the kept samples
    n_, st = g.sum(axis=2), (g * _SNAP_T).sum(axis=2)
    stt, so, sto = (g * _SNAP_T**2).sum(axis=2), (g * where).sum(axis=2), (g * _SNAP_T * where).sum(axis=2)
    det = n_ * stt - st**2
    ok = (n_ >= 5) & (det > 1e-6)
    c1 = np.where(ok, (n_ * sto - st * so) / np.where(ok, det, 1), 0)
    c0 = np.where(ok, (so - c1 * st) / np.maximum(n_, 1), 0)
    p0 = a + c0[..., None] * normal
    direction = d + c1[..., None] * normal
    # corner k = intersection of side k-1 and side k (Cramer's rule, all quads at once)
    p1, d1 = p0[:, _BEFORE], direction[:, _BEFORE]  # side k-1 of each side k
    det2 = d1[..., 0] * -direction[..., 1] + direction[..., 0] * d1[..., 1]
    rx, ry = p0[..., 0] - p1[..., 0], p0[..., 1] - p1[..., 1]
    t = (rx * -direction[..., 1] + direction[..., 0] * ry) / np.where(np.abs(det2) > 1e-6, det2, 1)
    snapped = (p1 + t[..., None] * d1).astype(np.float32)
    skew_limit = np.sin(np.radians(config.snap_max_skew))
    new_skew, old_skew = side_skew(snapped), side_skew(q)  # (Q, 2)
    turned = (new_skew > old_skew + skew_limit).tolist()  # (Q, 2) lists: one numpy call, not one a quad
    out = []
    for i in range(len(quads)):
        quad = snapped[i]
        for pair in (k for k in (0, 1) if turned[i][k]):
            # One side of this pair was fitted onto another edge (a neighbour's, a shadow's) and tilted:
            # the side that turned most keeps its rough direction, at the fitted offset mid-side.
            sides = (int(pair), int(pair) + 2)
            turn = [abs(sine_between(direction[i, k], d[i, k])) for k in sides]
            k = sides[int(np.argmax(turn))]
            direction[i, k] = d[i, k]
            p0[i, k] = a[i, k] + (c0[i, k] + 0.5 * c1[i, k]) * normal[i, k]
            repaired = corners_from_sides(p0[i], direction[i])
            quad = quads[i] if repaired is None else repaired
        if (np.abs(det2[i]) > 1e-6).all() and card_like(quad, float(cv2.contourArea(quad)), config, 1.0):
            out.append(quad)
        else:
            out.append(quads[i])
    return out


_OUTSIDE = np.clip(np.arange(1, len(_SNAP_O) - 1) + 2, 0, len(_SNAP_O) - 1)  # two samples outside each step
# the four samples inside each step (nearest first), clipped at the inner end
_INSIDE = np.clip(np.arange(1, len(_SNAP_O) - 1)[:, None] - np.arange(1, 5)[None, :], 0, len(_SNAP_O) - 1)


def _paper_weight(samples: np.ndarray, config: DetectorConfig) -> np.ndarray:
    """(rows, O-2) weights of the steps of ``samples`` (rows of O colour samples across a side, inside
    first): ``config.snap_paper`` where the darkest channel is darker in all four samples just inside the step
    than two samples outside it and the outside is not the side's paper, 1 elsewhere. A shadow's outer edge has
    the shadow inside it and the cloth outside; a card's own edge can have a thin grey rim (its thickness)
    inside it but paper within four samples; a printed frame line inside the card has the white border
    outside it, as bright as the paper (the brightest sample of the row), and keeps its weight: weighting
    those down moved a back's side from one concentric frame line to the next one in."""
    least = samples.min(axis=2)  # (rows, O)
    inside, outside = least[:, _INSIDE].max(axis=2), least[:, _OUTSIDE]
    paper = least.max(axis=1, keepdims=True)
    dark_inside = (inside < outside) & (outside < paper - config.snap_paper_margin)
    return np.where(dark_inside, np.float32(config.snap_paper), np.float32(1.0))


def median_rows(values: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Median along the last axis of the ``keep`` entries (all when None), keepdims: np.median /
    np.nanmedian's result (the middle value, or the mean of the middle two in the array's dtype)
    without nanmedian's per-row Python loop."""
    n = values.shape[-1]
    if keep is None:
        s = np.sort(values, axis=-1)
        mid: np.ndarray = (s[..., (n - 1) // 2 : (n - 1) // 2 + 1] + s[..., n // 2 : n // 2 + 1]) / 2
        return mid
    s = np.sort(np.where(keep, values, np.inf), axis=-1)  # the kept values first, in order
    count = keep.sum(axis=-1, keepdims=True)
    lo = np.take_along_axis(s, np.maximum(count - 1, 0) // 2, axis=-1)
    hi = np.take_along_axis(s, np.minimum(count // 2, n - 1), axis=-1)
    out: np.ndarray = np.where(count > 0, (lo + hi) / 2, np.nan)
    return out


def repair_skewed(
    frame_bgr: np.ndarray, quads: list[np.ndarray], near_edges: np.ndarray, config: DetectorConfig
) -> list[np.ndarray]:
    """Outlines with one corner off, rebuilt from their other three corners.

    A side fitted onto a neighbour's, a shadow's or the cloth's edge leaves three corners right and one
    off, and its opposite sides further from parallel than perspective can turn a card's (on a calibrated
    table: further from parallel on the table than outline error explains). Each corner of
    such an outline in turn is rebuilt as the parallelogram of the other three, the result snapped onto
    the edges, and the rebuilt outline whose weakest side lies best on edges replaces the old one if
    that side lies on edges at least as well as the old outline's weakest. ``quads``: full resolution;
    ``near_edges``: the edge map within 2 px at detection scale.
    """
    q = np.stack(quads).astype(np.float32)
    if config.plane is not None:  # on the table a card's opposite sides are parallel, wherever it lies
        skewed = np.flatnonzero(side_skew(plane_points(q, config.plane)).max(axis=1) > config.plane_max_skew)
    else:
        skewed = np.flatnonzero(skew_per_px(q) > config.max_perspective)
    if not len(skewed):
        return quads
    s = config.scale
    out = list(quads)
    for i in skewed:
        tries = []
        for k in range(4):
            t = q[i].copy()
            t[k] = t[k - 1] + t[(k + 1) % 4] - t[(k + 2) % 4]
            tries.append(t)
        rebuilt = [
            t for t in snap_to_edges(frame_bgr, tries, config) if card_like(t, float(cv2.contourArea(t)), config, 1.0)
        ]
        if not rebuilt:
            continue
        support = side_hits((np.stack(rebuilt) + 0.5) * s - 0.5, near_edges).min(axis=1)
        best = int(np.argmax(support))
        if support[best] >= side_hits((q[i : i + 1] + 0.5) * s - 0.5, near_edges).min():
            out[i] = rebuilt[best]
    return out
