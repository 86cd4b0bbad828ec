"""The table plane from the cards on it: a homography, up to a similarity, under which every outline is the
same rectangle.

An uncalibrated camera still sees one deck on one flat table: each card is a rectangle of the deck's size.
Two steps of the classic stratified rectification (Hartley and Zisserman, *Multiple View Geometry*, 2.7):

* projective: the two vanishing points of each card (where its opposite sides meet) lie on the image of the
  table's line at infinity; the least-squares line through all of them is that horizon, and the map that
  sends it back to infinity leaves only an affine distortion;
* affine: on the table each card's sides are at right angles and every card has the same short and long
  side. Both are linear in the symmetric 2x2 metric ``S = A^T A`` of the affine correction ``A``:
  ``a^T S b = 0`` for a card's two side vectors, ``a_i^T S a_i = a_j^T S a_j`` between cards.

The result is checked: on it the cards' sides must agree to ``spread``; otherwise there is no plane (a frame
of one card, of cards outlined wrong, or not flat). Used by ``vision.detect`` where the table is not
calibrated, for the passes that need the deck's rectangle.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mean_side_vectors(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For (..., 4, 2) quads in cyclic corner order, each quad's two mean side vectors (..., 2): of sides 0 and
    2 (corner 0 to 1 and corner 3 to 2) and of sides 1 and 3 (1 to 2 and 0 to 3). On a rectangle they are its
    sides; their lengths are the quad's two side lengths and their angle its corners'."""
    c = corners
    return (c[..., 1, :] - c[..., 0, :] + c[..., 2, :] - c[..., 3, :]) / 2, (
        c[..., 2, :] - c[..., 1, :] + c[..., 3, :] - c[..., 0, :]
    ) / 2


def plane_from_cards(
    quads: Sequence[np.ndarray],
    frame_shape: tuple[int, ...],
    *,
    spread: float = 0.04,
    min_cards: int = 4,
    drop: int = 0,
) -> np.ndarray | None:
    """A 3x3 homography from image pixels to a plane on which the (4, 2) card outlines ``quads`` (in cyclic
    corner order) are rectangles of one size, in units of about an image pixel at the frame's centre; None
    with fewer than ``min_cards`` outlines or when, on the plane found, the median absolute deviation of
    the cards' short or long sides exceeds ``spread`` of their median (no one deck on one flat table).

    ``drop``: where no plane fits all the outlines, it is sought without one of them, in turn for each of the
    ``drop`` outlines whose image area is furthest from the median (a court card outlined on its printed
    frame, 0.6 of the card: among five outlines it bends the fit beyond what dropping the worst fitting
    repairs), while ``min_cards`` are left."""
    q = np.stack([np.asarray(x, np.float64).reshape(4, 2) for x in quads]) if len(quads) else np.zeros((0, 4, 2))
    edges = np.roll(q, -1, axis=1) - q
    cross = edges[:, :, 0] * np.roll(edges, -1, axis=1)[:, :, 1] - edges[:, :, 1] * np.roll(edges, -1, axis=1)[:, :, 0]
    # outlines a card could be: finite, sides of a pixel or more, convex (every corner turns the same way)
    usable = (
        np.isfinite(q).all(axis=(1, 2))
        & (np.linalg.norm(edges, axis=2).min(axis=1) >= 1.0)
        & ((cross > 0).all(axis=1) | (cross < 0).all(axis=1))
    )
    if int(usable.sum()) < min_cards:
        return None
    cards = q[usable]
    tries = [np.ones(len(cards), bool)]
    if drop and len(cards) > min_cards:
        area = np.abs(cross[usable]).sum(axis=1) / 4  # the four corners' crosses sum to four times the area
        off = np.abs(np.log(area / np.median(area)))
        for j in np.argsort(-off)[:drop]:
            tries.append(np.arange(len(cards)) != j)
    for keep in tries:
        try:
            with np.errstate(all="ignore"):
                plane = _estimate(cards[keep], frame_shape, spread)
        except np.linalg.LinAlgError:
            plane = None
        if plane is not None:
            return plane
    return None


def _estimate(q: np.ndarray, frame_shape: tuple[int, ...], spread: float) -> np.ndarray | None:
    """``plane_from_cards`` on (N, 4, 2) usable outlines (N at least the minimum)."""
    rows, cols = frame_shape[:2]
    half = max(rows, cols) / 2
    norm = np.array([[1 / half, 0, -cols / 2 / half], [0, 1 / half, -rows / 2 / half], [0, 0, 1]])
    pts = np.concatenate([q, np.ones((*q.shape[:2], 1))], axis=2) @ norm.T  # (N, 4, 3)
    sides = np.cross(pts, np.roll(pts, -1, axis=1))  # line k through corners k and k + 1
    vanishing = np.concatenate([np.cross(sides[:, 0], sides[:, 2]), np.cross(sides[:, 1], sides[:, 3])])
    vanishing /= np.linalg.norm(vanishing, axis=1, keepdims=True)
    horizon = np.linalg.svd(vanishing)[2][-1]
    if abs(horizon[2]) < 1e-9:
        return None  # the horizon through the frame's centre: not a table seen from above
    horizon = horizon / horizon[2]
    projective = np.array([[1.0, 0, 0], [0, 1.0, 0], horizon])
    flat = pts @ projective.T
    if (flat[..., 2] <= 0).any():
        return None  # a card beyond the horizon
    flat = flat[..., :2] / flat[..., 2:]
    a, b = mean_side_vectors(flat)
    swap = np.linalg.norm(a, axis=1) > np.linalg.norm(b, axis=1)
    short = np.where(swap[:, None], b, a)
    long_ = np.where(swap[:, None], a, b)

    def quadric(u: np.ndarray, v: np.ndarray) -> np.ndarray:  # rows r with r . (s11, s12, s22) = u^T S v
        return np.stack([u[:, 0] * v[:, 0], u[:, 0] * v[:, 1] + u[:, 1] * v[:, 0], u[:, 1] * v[:, 1]], axis=1)

    scale = np.linalg.norm(short, axis=1).mean() ** 2
    rows_ = [
        quadric(short, long_) / scale,  # right angles
        (quadric(short, short) - quadric(short, short).mean(axis=0)) / scale,  # one short side
        (quadric(long_, long_) - quadric(long_, long_).mean(axis=0)) / scale,
    ]  # one long side
    s11, s12, s22 = np.linalg.svd(np.concatenate(rows_))[2][-1]
    if s11 < 0:
        s11, s12, s22 = -s11, -s12, -s22
    if s11 <= 0 or s11 * s22 - s12 * s12 <= 0:
        return None  # not a metric: the outlines are no rectangles of one size
    # refined: the horizon and the affine part together, by least squares on every card's shape, in the
    # parametrisation [[1, 0, 0], [s, e^t, 0], [l1, l2, 1]] (any such map up to a similarity); started from
    # the linear solution (A = [[1, 0], [s, e^t]] with A^T A proportional to S), twice, dropping after the
    # first the cards whose shape fits worst (an outline off its card)
    tau = s22 / np.sqrt(s11 * s22 - s12 * s12)
    params = np.array([horizon[0], horizon[1], tau * s12 / s22, np.log(tau)])
    keep = np.ones(len(q), bool)
    for _ in range(2):
        params = _least_squares(params, pts[keep])
        residual = np.linalg.norm(_residuals(params[None], pts)[0].reshape(len(q), 3), axis=1)
        fits = residual <= max(3 * float(np.median(residual)), 0.02)
        if (fits == keep).all():
            break  # no card to drop (or none to take back): the second fit would be the first
        keep = fits
    homography = _homography(params) @ norm
    # units: a card at the frame's centre keeps about its size in pixels
    unit = 1 / np.sqrt(abs(np.linalg.det(_jacobian(homography, np.array([cols / 2, rows / 2])))))
    homography = np.diag([unit, unit, 1.0]) @ homography
    on_plane = np.concatenate([q[keep], np.ones((int(keep.sum()), 4, 1))], axis=2) @ homography.T
    side_a, side_b = mean_side_vectors(on_plane[..., :2] / on_plane[..., 2:])
    pa, pb = np.linalg.norm(side_a, axis=1), np.linalg.norm(side_b, axis=1)
    for side in (np.minimum(pa, pb), np.maximum(pa, pb)):
        median = float(np.median(side))
        if not median > 0 or float(np.median(np.abs(side - median))) > spread * median:
            return None
    out: np.ndarray = homography / homography[2, 2]
    return out if np.isfinite(out).all() else None


def _jacobian(homography: np.ndarray, point: np.ndarray) -> np.ndarray:
    """The 2x2 derivative of the homography's map at an image ``point``."""
    x, y = point
    u, v, w = homography @ np.array([x, y, 1.0])
    h = homography
    return np.array(
        [
            [(h[0, 0] * w - u * h[2, 0]) / w**2, (h[0, 1] * w - u * h[2, 1]) / w**2],
            [(h[1, 0] * w - v * h[2, 0]) / w**2, (h[1, 1] * w - v * h[2, 1]) / w**2],
        ]
    )


def _homography(params: np.ndarray) -> np.ndarray:
    l1, l2, shear, log_scale = params
    return np.array([[1.0, 0.0, 0.0], [shear, np.exp(log_scale), 0.0], [l1, l2, 1.0]])


def _residuals(params: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(K, 3N) for (K, 4) ``params``: per card (``pts``: (N, 4, 3) homogeneous normalised corners) its
    short and long side's log against the cards' mean, and the cosine between its sides, on each plane."""
    l1, l2, shear, log_scale = params.T[:, :, None, None]  # each (K, 1, 1)
    x, y = pts[None, ..., 0], pts[None, ..., 1]  # (1, N, 4)
    w = l1 * x + l2 * y + 1.0
    w = np.where(np.abs(w) > 1e-9, w, 1e-9)
    u, v = x / w, (shear * x + np.exp(log_scale) * y) / w  # (K, N, 4)
    a, b = mean_side_vectors(np.stack([u, v], axis=3))
    la, lb = np.linalg.norm(a, axis=2), np.linalg.norm(b, axis=2)
    short = np.log(np.maximum(np.minimum(la, lb), 1e-12))
    long_ = np.log(np.maximum(np.maximum(la, lb), 1e-12))
    cos = (a * b).sum(axis=2) / np.maximum(la * lb, 1e-12)
    out: np.ndarray = np.stack(
        [short - short.mean(axis=1, keepdims=True), long_ - long_.mean(axis=1, keepdims=True), cos], axis=2
    ).reshape(len(params), -1)
    return out


_STEP = 1e-6


def _least_squares(params: np.ndarray, pts: np.ndarray, iterations: int = 8) -> np.ndarray:
    """Levenberg-Marquardt on ``_residuals``, the Jacobian by forward differences (four parameters: the
    point and its four steps are one batched evaluation)."""
    damping = 1e-3
    r = _residuals(params[None], pts)[0]
    cost = float(r @ r)
    for _ in range(iterations):
        around = _residuals(params + np.concatenate([np.zeros((1, 4)), np.eye(4) * _STEP]), pts)
        jac = ((around[1:] - around[0]) / _STEP).T
        normal, grad = jac.T @ jac, jac.T @ r
        for _ in range(8):
            trial = params - np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), grad)
            rt = _residuals(trial[None], pts)[0]
            if float(rt @ rt) < cost:
                break
            damping *= 4
        else:
            return params  # no step lowers the cost: converged
        gain = cost - float(rt @ rt)
        params, r, cost, damping = trial, rt, float(rt @ rt), damping / 3
        if gain < 1e-10 + 1e-6 * cost:
            break
    return params
