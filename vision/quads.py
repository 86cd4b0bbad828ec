"""Quadrilateral geometry and the card shape tests of the detector (``vision.detect``).

Detection-scale quads are float32 (4, 2) corner arrays. The shape tests run on the image or, given the
table plane (``DetectorConfig.plane``), on the table, where every card is a rectangle; the edge tests
(``side_hits``) sample each side against an edge map dilated to the tolerance wanted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.detector_config import DetectorConfig
from vision.errors import CalibrationError


def fit_quad(contour: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Four rough corners of a convex near-quadrilateral contour and its hull points, or None."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32), hull.reshape(-1, 2).astype(np.float32)
        if len(approx) < 4:
            return None
    return None


def refine_sides(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Fit a line to the hull points of each side and intersect neighbours (sub-pixel corners that
    ignore the rounded card corners)."""
    lines = []
    n = len(points)
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        ab = b - a
        length = float(np.linalg.norm(ab))
        if length < 1e-3:
            return quad
        # points near segment a-b, away from its ends (the rounded corners)
        t = ((points - a) @ ab) / (length**2)
        dist = np.abs((points - a) @ np.array([-ab[1], ab[0]]) / length)
        sel = points[(t > 0.15) & (t < 0.85) & (dist < max(2.0, 0.04 * length))]
        if len(sel) < 2 or n < 8:
            sel = np.stack([a, b])
        vx, vy, x0, y0 = cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = np.empty((4, 2), np.float32)
    for k in range(4):  # corner k = intersection of side k-1 and side k (Cramer's rule)
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        det = float(d1[0] * -d2[1] + d2[0] * d1[1])
        if abs(det) < 1e-6:
            return quad
        rx, ry = float(p2[0] - p1[0]), float(p2[1] - p1[1])
        t = (rx * -d2[1] + d2[0] * ry) / det
        out[k] = (p1[0] + t * d1[0], p1[1] + t * d1[1])
    if np.abs(out - quad).max() > 0.25 * np.linalg.norm(quad[0] - quad[2]):
        return quad
    return out


def card_like(quad: np.ndarray, contour_area: float, cfg: DetectorConfig, scale: float) -> bool:
    # Plain floats, unrolled over the four corners: ~100 calls a frame, so per-call overhead counts.
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad.tolist()
    ex0, ey0, ex1, ey1 = x1 - x0, y1 - y0, x2 - x1, y2 - y1
    ex2, ey2, ex3, ey3 = x3 - x2, y3 - y2, x0 - x3, y0 - y3
    s0, s1, s2, s3 = math.hypot(ex0, ey0), math.hypot(ex1, ey1), math.hypot(ex2, ey2), math.hypot(ex3, ey3)
    if s0 < 1 or s1 < 1 or s2 < 1 or s3 < 1:
        return False
    a, b = (s0 + s2) / 2, (s1 + s3) / 2
    short, long_ = (a, b) if a <= b else (b, a)
    if cfg.plane is not None:
        if short > cfg.max_width * scale or not _rectangle_on_plane(
            quad, short * long_ if short < cfg.min_width * scale else math.inf, cfg, scale
        ):
            return False
    elif not cfg.min_width * scale <= short <= cfg.max_width * scale:
        return False
    elif not _quad_like_card(
        s0,
        s1,
        s2,
        s3,
        (ex0, ey0, ex1, ey1, ex2, ey2, ex3, ey3),
        short,
        long_,
        cfg.min_aspect,
        cfg.max_aspect,
        cfg.max_side_ratio,
        cfg.max_corner_cos,
    ):
        return False
    turn = ex3 * ey0 - ey3 * ex0 > 0
    if (
        turn != (ex0 * ey1 - ey0 * ex1 > 0)
        or turn != (ex1 * ey2 - ey1 * ex2 > 0)
        or turn != (ex2 * ey3 - ey2 * ex3 > 0)
    ):
        return False
    area = 0.5 * abs(x0 * y1 - x1 * y0 + (x1 * y2 - x2 * y1) + (x2 * y3 - x3 * y2) + (x3 * y0 - x0 * y3))
    return bool(area > 0 and contour_area / area >= cfg.min_solidity)


def _quad_like_card(
    s0: float,
    s1: float,
    s2: float,
    s3: float,
    e: tuple[float, ...],
    short: float,
    long_: float,
    min_aspect: float,
    max_aspect: float,
    ratio: float,
    cos: float,
) -> bool:
    """Aspect, opposite sides and corner angles of a quad with sides ``s0..s3`` along edges ``e``."""
    if not min_aspect <= long_ / short <= max_aspect:
        return False
    if max(s0, s2) > ratio * min(s0, s2) or max(s1, s3) > ratio * min(s1, s3):
        return False
    # corners near square (a tilted camera bends them a little in the image)
    ex0, ey0, ex1, ey1, ex2, ey2, ex3, ey3 = e
    return not (
        abs(ex3 * ex0 + ey3 * ey0) > cos * s3 * s0
        or abs(ex0 * ex1 + ey0 * ey1) > cos * s0 * s1
        or abs(ex1 * ex2 + ey1 * ey2) > cos * s1 * s2
        or abs(ex2 * ex3 + ey2 * ey3) > cos * s2 * s3
    )


def _rectangle_on_plane(quad: np.ndarray, image_area: float, cfg: DetectorConfig, scale: float) -> bool:
    """The shape and size tests on the table plane (``cfg.plane``) for a quad at ``scale`` of the frame.

    Size: a far-side card of a tilted camera is squeezed along the tilt (to ~0.65 at 30 degrees), so its
    short side in the image can be well under ``min_width`` though the card is as readable as one a
    little smaller seen square on. Such a card (``image_area``: the product of its mean opposite sides;
    infinite when its short side is wide enough) passes if a card of its shape on the table with the same
    image area would be ``min_width`` wide: the squeeze changes the area only by its square root."""
    assert cfg.plane is not None
    h0, h1, h2, h3, h4, h5, h6, h7, h8 = cfg.plane
    pts = []
    for x, y in quad.tolist():
        x, y = (x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5  # full-resolution pixels
        w = h6 * x + h7 * y + h8
        if w <= 1e-9:  # beyond the horizon of the plane: not on the table
            return False
        pts.append(((h0 * x + h1 * y + h2) / w, (h3 * x + h4 * y + h5) / w))
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts
    e = (x1 - x0, y1 - y0, x2 - x1, y2 - y1, x3 - x2, y3 - y2, x0 - x3, y0 - y3)
    s0, s1, s2, s3 = math.hypot(e[0], e[1]), math.hypot(e[2], e[3]), math.hypot(e[4], e[5]), math.hypot(e[6], e[7])
    a, b = (s0 + s2) / 2, (s1 + s3) / 2
    if min(a, b) <= 1e-9:
        return False
    short, long_ = (a, b) if a <= b else (b, a)
    if image_area < (cfg.min_width * scale) ** 2 * (long_ / short):
        return False
    return _quad_like_card(
        s0,
        s1,
        s2,
        s3,
        e,
        short,
        long_,
        cfg.plane_min_aspect,
        cfg.plane_max_aspect,
        cfg.plane_side_ratio,
        cfg.plane_corner_cos,
    )


def grow_quad(quad: np.ndarray, pixels: float) -> np.ndarray:
    """Move every side of a convex quad outwards by ``pixels``."""
    v = quad - quad.mean(axis=0)
    # (the same float32 arithmetic as a per-corner np.linalg.norm, checked bit for bit on random quads)
    length = np.maximum(np.sqrt(np.einsum("ij,ij->i", v, v)), 1e-6).astype(quad.dtype)
    out: np.ndarray = quad + v / length[:, None] * pixels * 1.41
    return out


def overlap_share(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection area over the smaller quad's area."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / max(1e-6, min(cv2.contourArea(a), cv2.contourArea(b)))


def plane_tuple(plane: np.ndarray, frame_shape: tuple[int, ...]) -> tuple[float, ...]:
    """A table homography as ``DetectorConfig.plane``: checked, signed so that points in the frame map
    with a positive third coordinate (a homography and its negative are the same map)."""
    h = np.asarray(plane, np.float64)
    if (
        h.shape != (3, 3)
        or not np.isfinite(h).all()
        or not np.abs(h).max() > 0
        or abs(np.linalg.det(h / np.abs(h).max())) < 1e-12
    ):  # scaled first: any multiple is the same map
        raise CalibrationError(f"the table plane must be an invertible 3x3 homography, got shape {h.shape}")
    rows, cols = frame_shape[:2]
    if h[2] @ (cols / 2, rows / 2, 1.0) < 0:
        h = -h
    return tuple(float(v) for v in h.ravel())


def plane_points(quads: np.ndarray, plane: tuple[float, ...]) -> np.ndarray:
    """(Q, 4, 2) full-resolution quads mapped onto the table plane."""
    h = np.asarray(plane, np.float64).reshape(3, 3)
    pts = np.concatenate([quads.astype(np.float64), np.ones((*quads.shape[:2], 1))], axis=2) @ h.T
    out: np.ndarray = pts[..., :2] / np.where(np.abs(pts[..., 2:]) > 1e-12, pts[..., 2:], 1e-12)
    return out


def map_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(N, 2) points through a 3x3 homography, as float32."""
    out: np.ndarray = plane_points(points[None], tuple(homography.ravel()))[0].astype(np.float32)
    return out


def map_quads(homography: np.ndarray, quads: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """(Q, 4, 2) float32: the (4, 2) ``quads`` through a 3x3 homography, all at once (bit for bit what
    ``map_points`` gives each: tested)."""
    if not len(quads):
        return np.zeros((0, 4, 2), np.float32)
    out: np.ndarray = plane_points(np.stack(list(quads)), tuple(homography.ravel())).astype(np.float32)
    return out


def centre_on_any(quad: np.ndarray, polygons: Sequence[np.ndarray]) -> bool:
    """Does ``quad``'s centre (the mean of its corners) lie on or inside one of ``polygons`` (image pixels)?"""
    centre = tuple(map(float, np.asarray(quad, np.float32).reshape(-1, 2).mean(axis=0)))
    return any(cv2.pointPolygonTest(np.asarray(p, np.float32).reshape(-1, 1, 2), centre, False) >= 0 for p in polygons)


def short_longs(quads: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """(N, 2) float64: each quad's mean short and long side, its corners taken in order round its centre;
    the sides' lengths in float32, as ``np.linalg.norm`` of the float32 corner differences gives them (tested
    bit for bit), in one pass for all quads (the size pass measures dozens a frame)."""
    if not len(quads):
        return np.zeros((0, 2))
    pts = np.stack([np.asarray(q, np.float32).reshape(4, 2) for q in quads])  # (N, 4, 2)
    wide = pts.astype(np.float64)
    rel = wide - wide.mean(axis=1, keepdims=True)
    ring = np.take_along_axis(pts, np.argsort(np.arctan2(rel[..., 1], rel[..., 0]), axis=1)[..., None], axis=1)
    d = ring[:, [1, 2, 3, 0]] - ring
    sides = np.sqrt(np.einsum("nij,nij->ni", d, d)).astype(np.float64)
    a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    out: np.ndarray = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
    return out


def side_skew(quads: np.ndarray) -> np.ndarray:
    """(Q, 2): sine of the angle between sides 0 and 2, and between sides 1 and 3, of each quad."""
    d = np.roll(quads, -1, axis=1) - quads
    d = d / np.maximum(np.linalg.norm(d, axis=2, keepdims=True), 1e-9)
    cross: np.ndarray = np.abs(d[:, :2, 0] * d[:, 2:, 1] - d[:, :2, 1] * d[:, 2:, 0])
    return cross


def skew_per_px(quads: np.ndarray) -> np.ndarray:
    """(Q,): how far from parallel each (Q, 4, 2) quad's opposite sides are, for the pair furthest from it:
    the sine of the angle between them per pixel of their distance (what ``max_perspective`` bounds)."""
    length = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    apart = np.stack([length[:, 1] + length[:, 3], length[:, 0] + length[:, 2]], axis=1) / 2  # sides 0-2, 1-3
    out: np.ndarray = (side_skew(quads) / np.maximum(apart, 1e-9)).max(axis=1)
    return out


def sine_between(u: np.ndarray, v: np.ndarray) -> float:
    """Sine of the angle between two directions."""
    return float((u[0] * v[1] - u[1] * v[0]) / max(float(np.linalg.norm(u) * np.linalg.norm(v)), 1e-9))


def corners_from_sides(p0: np.ndarray, direction: np.ndarray) -> np.ndarray | None:
    """Corner k of one quad: where side k-1 (through p0[k-1] along direction[k-1]) meets side k; None
    when two adjacent sides are parallel."""
    out = np.empty((4, 2), np.float32)
    for k in range(4):
        (x1, y1), (u1, v1) = p0[k - 1], direction[k - 1]
        (x2, y2), (u2, v2) = p0[k], direction[k]
        det = u1 * -v2 + u2 * v1
        if abs(det) < 1e-6:
            return None
        t = ((x2 - x1) * -v2 + u2 * (y2 - y1)) / det
        out[k] = (x1 + t * u1, y1 + t * v1)
    return out


def pixels_at(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``image`` at the (N, 2) x, y ``points``, rounded to the nearest pixel and clamped to the image."""
    h, w = image.shape[:2]
    pts = np.clip(np.rint(points).astype(np.intp), 0, (w - 1, h - 1))
    out: np.ndarray = image[pts[:, 1], pts[:, 0]]
    return out


def filled_mask(shape: tuple[int, ...], quads: list[np.ndarray]) -> np.ndarray:
    """A mask with the cards found filled in: added to an edge map, their print gives no holes to look
    at again, so a pass over that map cannot disturb them."""
    mask = np.zeros(shape[:2], np.uint8)
    for q in quads:
        cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 255)
    return mask


# Samples along each side (from 10% to 90% of it) as weights of the four corners: side k runs from
# corner k to corner k+1, so the sample points of a quad are one matrix product.
SUPPORT_T = np.linspace(0.1, 0.9, 17)


SUPPORT_W = np.zeros((4 * len(SUPPORT_T), 4))

for _k in range(4):
    SUPPORT_W[_k * len(SUPPORT_T) : (_k + 1) * len(SUPPORT_T), _k] = 1 - SUPPORT_T
    SUPPORT_W[_k * len(SUPPORT_T) : (_k + 1) * len(SUPPORT_T), (_k + 1) % 4] = SUPPORT_T


def weakest_side_support(quads: list[np.ndarray], near_edges: np.ndarray) -> np.ndarray:
    """For each quad, the fraction of samples on its weakest side that have an edge pixel within 2 px."""
    out: np.ndarray = side_hits(np.stack(quads), near_edges).min(axis=1)
    return out


def side_hits(quads: np.ndarray, near_edges: np.ndarray) -> np.ndarray:
    """(Q, 4): for each side of each (Q, 4, 2) quad at detection scale, the fraction of its samples that
    have an edge pixel within 2 px."""
    out: np.ndarray = side_samples(quads, near_edges).mean(axis=2)
    return out


def side_samples(quads: np.ndarray, near_edges: np.ndarray) -> np.ndarray:
    """(Q, 4, T) bool: for each side of each (Q, 4, 2) quad at detection scale, which of its ``SUPPORT_T``
    samples (from its first corner to its second) have an edge pixel within 2 px."""
    h, w = near_edges.shape
    q = np.clip(quads, 0, (w - 1, h - 1)).astype(np.float64)  # corners inside the map keep every sample inside
    n = len(q)
    if not n:
        return np.zeros((0, 4, len(SUPPORT_T)), bool)
    # one (4 T, 4) @ (4, 2 Q) product: numpy's batched product of small matrices is many times slower
    pts = (SUPPORT_W @ q.transpose(1, 0, 2).reshape(4, 2 * n) + 0.5).astype(np.intp).reshape(-1, n, 2)
    out: np.ndarray = near_edges.ravel()[pts[..., 1] * w + pts[..., 0]].T.reshape(n, 4, -1) > 0
    return out
