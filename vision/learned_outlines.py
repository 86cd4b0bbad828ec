"""Card outlines from three small networks (``models/outline_*.onnx``): the fast first look of
``vision.learned_detect``.

* The **first stage** reads the frame at a quarter of 1280x720 (320x180) and answers on a grid of one cell per 16
  frame pixels: how likely a card's centre lies in each cell (a heatmap, logits) and the card's four corners from the
  cell's centre. Each peak over ``THRESHOLD`` is a rough outline.
* The **checker** rectifies each rough outline's patch (``level_patch``: from the half-size frame, or the quarter-size
  one for a large card) and answers where the card's corners lie in it and whether it holds a card; the outlines over
  ``KEEP`` are kept, the surer of two on one card (``surest``). Peaks over ``DOUBT`` that lie on no kept outline are
  where a card may lie that was not given (``doubtful``).
* The kept outlines' sides are snapped onto the full-resolution frame's edges (``vision.snapping``).
* The **verifier** answers for any outline how likely it is on its card (``OutlineNets.trust``, for
  ``vision.outline_judge``).

``python -m models.training.build outline`` trains them (``models/training/outline_*.py``) and writes
``models/outline_nets.json``, checked here at load.
They read frames of 16:9; ``vision.learned_detect`` hands other frames to the shipped detector.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from models import shipped
from vision.classify import cpu_session
from vision.errors import ModelError
from vision.rectify import order_corners
from vision.snapping import snap_to_edges

DEFAULT_META = shipped("outline_nets.json")
FRAME = (1280, 720)
"""The frame size the networks learned at; any 16:9 frame is read at the same shares of it."""
INPUT = (320, 180)
"""The first stage's input: the frame at a quarter of ``FRAME``."""
HALF = (INPUT[0] * 2, INPUT[1] * 2)
STRIDE = 4
"""Input pixels per cell of the first stage's grid."""
CORNER_SCALE = 32.0
"""The first stage's corner offsets are in units of this many input pixels."""
PATCH = 48
"""A patch network's patch: an outline rectified onto the square ``MARGIN`` inside a patch this wide."""
MARGIN = 8
SQUARE = np.array(
    [[MARGIN, MARGIN], [PATCH - MARGIN, MARGIN], [PATCH - MARGIN, PATCH - MARGIN], [MARGIN, PATCH - MARGIN]], np.float32
)
REFINE_SCALE = 8.0
"""The checker's corner offsets are in units of this many patch pixels."""
WIDEST_AT_HALF = 2.0 * (PATCH - 2 * MARGIN)
"""A card wider than this (half-size pixels) is rectified from the quarter-size input: the patch's square is drawn
from at most two pixels a patch pixel, so no side is lost between samples."""
NEAR = 0.3
"""Two outlines whose centres lie within this share of a card's short side are on one card."""
THRESHOLD, KEEP, DOUBT = 0.3, 0.5, 0.2
"""The least heatmap peak for a rough outline, the least checker probability to keep one, the least peak off every
kept outline that leaves a doubt."""


def as_input(images: np.ndarray) -> np.ndarray:
    """uint8 images (H, W, 3), or a batch (N, H, W, 3), as the networks read them: float32, channels first, a batch,
    from -0.5 to 0.5."""
    batch = images[None] if images.ndim == 3 else images
    return np.ascontiguousarray((batch.astype(np.float32) / 255.0 - 0.5).transpose(0, 3, 1, 2))


def sigmoid(logits: np.ndarray) -> np.ndarray:
    """The logistic function, without ``exp``'s overflow for large negative logits."""
    out: np.ndarray = 0.5 * (1.0 + np.tanh(0.5 * logits))
    return out


def pyramid(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``frame`` at half of ``FRAME`` and at the first stage's input size, each halved with ``INTER_AREA`` (OpenCV has
    a fast path for halving; halving twice is within one level of a direct resize to a quarter)."""
    half = cv2.resize(frame, HALF, interpolation=cv2.INTER_AREA)
    return half, cv2.resize(half, INPUT, interpolation=cv2.INTER_AREA)


def clockwise(quad: np.ndarray) -> np.ndarray:
    """``quad``'s corners in clockwise order on the screen (y down), starting anywhere."""
    out: np.ndarray = clockwise_all(quad)[0]
    return out


def clockwise_all(quads: np.ndarray) -> np.ndarray:
    """``clockwise`` for each of (N, 4, 2) ``quads`` at once."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    centre = q.mean(axis=1, keepdims=True)
    order = np.argsort(np.arctan2(q[..., 1] - centre[..., 1], q[..., 0] - centre[..., 0]), axis=1)
    out: np.ndarray = np.take_along_axis(q, order[..., None], axis=1)
    return out


def short_side(quad: np.ndarray) -> float:
    """The shorter of ``quad``'s first two sides (``short_sides`` of one)."""
    return float(short_sides(quad)[0])


def short_sides(quads: np.ndarray) -> np.ndarray:
    """``short_side`` of each of (N, 4, 2) ``quads``, at once."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    out: np.ndarray = np.minimum(np.linalg.norm(q[:, 0] - q[:, 1], axis=1), np.linalg.norm(q[:, 1] - q[:, 2], axis=1))
    return out


def patch_of(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``PATCH``-square patch of ``image`` in which ``quad`` (clockwise) is ``SQUARE``, and the homography from
    ``image`` to the patch."""
    to_patch = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), SQUARE)
    patch = cv2.warpPerspective(
        image, to_patch, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return patch, to_patch


def from_patch(to_patch: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The four corners a patch network puts at ``offsets`` (8,: from ``SQUARE``'s corners, in ``REFINE_SCALE`` units),
    in the pixels of the image ``to_patch`` maps into the patch."""
    out: np.ndarray = from_patches(np.asarray(to_patch)[None], np.asarray(offsets)[None])[0]
    return out


def from_patches(to_patch: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``from_patch`` for (N, 3, 3) homographies and (N, 8) offsets at once: (N, 4, 2) float32."""
    corners = SQUARE + np.asarray(offsets, np.float64).reshape(-1, 4, 2) * REFINE_SCALE
    back = np.linalg.inv(np.asarray(to_patch, np.float64))  # (N, 3, 3): patch -> image
    mapped = corners @ back[:, :, :2].transpose(0, 2, 1) + back[:, None, :, 2]  # (N, 4, 3) homogeneous
    out: np.ndarray = (mapped[..., :2] / mapped[..., 2:]).astype(np.float32)
    return out


_QUARTER_TO_HALF = np.diag([INPUT[0] / HALF[0], INPUT[0] / HALF[0], 1.0])
"""Quarter-size pixels -> half-size pixels."""


def level_patch(
    half: np.ndarray, quarter: np.ndarray, quad: np.ndarray, short: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The patch for ``quad`` (clockwise, half-size pixels): from ``half``, or from ``quarter`` where the card is wider
    than ``WIDEST_AT_HALF``; and the homography from half-size pixels to the patch. ``short``: the quad's
    ``short_side``, where it is known."""
    if (short_side(quad) if short is None else short) <= WIDEST_AT_HALF:
        return patch_of(half, quad)
    patch, to_patch = patch_of(quarter, quad * (INPUT[0] / HALF[0]))
    return patch, to_patch @ _QUARTER_TO_HALF


def level_patches(half: np.ndarray, quarter: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``level_patch`` for each of (N, 4, 2) ``quads`` (their short sides at once): (N, PATCH, PATCH, 3) the patches
    and (N, 3, 3) the homographies."""
    made = [level_patch(half, quarter, q, s) for q, s in zip(quads, short_sides(quads).tolist(), strict=True)]
    return np.stack([m[0] for m in made]), np.stack([m[1] for m in made])


def answer_patches(session: Any, patches: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """A patch network's answers (one row a patch) for ``PATCH``-square uint8 ``patches``."""
    batch = patches if isinstance(patches, np.ndarray) else np.stack(patches)
    out: np.ndarray = session.run(None, {session.get_inputs()[0].name: as_input(batch)})[0]
    return out


def peak_corners(answer: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(N, 4, 2) the corners (``FRAME`` pixels, as the network orders them) of each peak of the first stage's
    ``answer`` (9, H, W: heatmap logits, corner offsets) over ``threshold`` (the largest in its 3x3), and (N,) each
    one's peak. Outlines of no area are left out."""
    heat = sigmoid(answer[0])
    ys, xs = np.nonzero((heat >= threshold) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))))
    cells = np.stack([(xs + 0.5) * STRIDE, (ys + 0.5) * STRIDE], axis=1).astype(np.float32)[:, None, :]
    corners = (cells + answer[1:, ys, xs].T.reshape(-1, 4, 2) * CORNER_SCALE) * (FRAME[0] / INPUT[0])
    corners = corners.astype(np.float32)
    real = np.array([cv2.contourArea(q) > 0 for q in corners], bool)
    return corners[real].reshape(-1, 4, 2), heat[ys, xs][real]


def rough_outlines(answer: np.ndarray, threshold: float) -> tuple[list[np.ndarray], np.ndarray]:
    """The outlines of ``answer``'s peaks over ``threshold`` (``peak_corners``): clockwise, in half-size pixels; and
    each one's peak, so that one decoding serves several least peaks."""
    corners, peaks = peak_corners(answer, threshold)
    return list(clockwise_all(corners * (HALF[0] / FRAME[0]))), peaks


def centres_and_short_sides(quads: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) the centres and (N,) the ``short_side`` of ``quads``, at once."""
    if not quads:
        return np.zeros((0, 2), np.float32), np.zeros(0, np.float32)
    q = np.stack(quads).astype(np.float32).reshape(-1, 4, 2)
    return q.mean(axis=1), short_sides(q)


def off_every(quads: list[np.ndarray], kept: list[np.ndarray]) -> np.ndarray:
    """(N,) for each of ``quads``: does its centre lie ``NEAR`` of a kept outline's short side or more from every kept
    outline's centre?"""
    centres = centres_and_short_sides(quads)[0]
    kept_centres, kept_short = centres_and_short_sides(kept)
    far: np.ndarray = (np.linalg.norm(centres[:, None] - kept_centres[None], axis=2) > NEAR * kept_short).all(axis=1)
    return far


def surest(quads: list[np.ndarray], probs: np.ndarray, keep: float) -> list[np.ndarray]:
    """The outlines over ``keep``, the surer first, each unless its centre lies within ``NEAR`` of a kept one's short
    side from that one's centre (two peaks on one card)."""
    centres, short = centres_and_short_sides(quads)
    near = (np.linalg.norm(centres[:, None] - centres[None], axis=2) <= NEAR * short[None]).tolist()  # i near k
    kept: list[int] = []
    for i in np.argsort(-probs).tolist():
        if probs[i] < keep:
            break
        if not any(near[i][k] for k in kept):
            kept.append(i)
    return [quads[i] for i in kept]


def check(
    half: np.ndarray, quarter: np.ndarray, quads: list[np.ndarray], checker: Any
) -> tuple[list[np.ndarray], np.ndarray]:
    """``quads`` (clockwise, half-size pixels) moved where the ``checker`` (an onnxruntime InferenceSession) puts their
    corners, and how
    likely each holds a card (0-1)."""
    if not quads:
        return [], np.zeros(0)
    patches, to_patch = level_patches(half, quarter, np.stack(quads))
    answer = answer_patches(checker, patches)
    moved = list(from_patches(to_patch, answer[:, :8]))
    return moved, sigmoid(answer[:, 8])


class LearnedOutlines(NamedTuple):
    """What ``OutlineNets.find`` gives for one frame (full-resolution pixels, the detector's corner order)."""

    kept: list[np.ndarray]
    """The first stage's outlines over ``THRESHOLD`` that the checker moved and kept."""
    snapped: list[np.ndarray]
    """The kept ones with their sides snapped to the frame's edges: the outlines found."""
    doubtful: list[np.ndarray]
    """The first stage's outlines over ``DOUBT`` whose centre lies on no kept outline: a card may lie there."""
    ms: list[float]
    """Each step's ms: resize, first stage, check, snap."""
    half: np.ndarray | None = None
    """The frame at half size (``pyramid``), for the verifier to share."""
    quarter: np.ndarray | None = None
    """The frame at the first stage's input size."""


def sha256(path: Path) -> str:
    """The hex SHA-256 of a file (``models/outline_nets.json`` records each network's)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_outlines(
    first: Any, checker: Any, frame: np.ndarray, threshold: float = THRESHOLD, keep: float = KEEP, doubt: float = DOUBT
) -> LearnedOutlines:
    """The outlines of ``frame`` (BGR, 16:9) by the ``first`` stage and the ``checker`` (sessions), each step timed."""
    to_full = frame.shape[1] / HALF[0]
    t0 = time.perf_counter()
    half, quarter = pyramid(frame)
    t1 = time.perf_counter()
    answer = first.run(None, {first.get_inputs()[0].name: as_input(quarter)})[0][0]
    every, peaks = rough_outlines(answer, min(doubt, threshold))  # one decoding for both least peaks
    rough = [q for q, peak in zip(every, peaks, strict=True) if peak >= threshold]
    t2 = time.perf_counter()
    moved, probs = check(half, quarter, rough, checker)
    kept = surest(moved, probs, keep)
    low = [q for q, off in zip(every, off_every(every, kept), strict=True) if off]
    full = [order_corners(q * to_full) for q in kept]
    t3 = time.perf_counter()
    snapped = snap_to_edges(frame, full) if full else []
    t4 = time.perf_counter()
    return LearnedOutlines(
        full,
        snapped,
        [order_corners(q * to_full) for q in low],
        [1000 * (b - a) for a, b in ((t0, t1), (t1, t2), (t2, t3), (t3, t4))],
        half,
        quarter,
    )


class OutlineNets:
    """The three networks as onnxruntime sessions (``threads`` each), loaded from the files ``meta`` names beside it
    and checked against it: each file's SHA-256 and the sizes the pipeline cuts (a network made for another input
    would put every outline wrong)."""

    def __init__(self, meta: str | Path = DEFAULT_META, *, threads: int = 1) -> None:
        where = Path(meta)
        try:
            data = json.loads(where.read_text())
        except (OSError, ValueError) as e:
            raise ModelError(f"{where}: cannot read the outline networks' metadata: {e}") from e
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            raise ModelError(f"{where}: the outline networks' metadata must be a JSON object with 'files'")
        wanted = {
            "first_stage_input": {"width": INPUT[0], "height": INPUT[1]},
            "patch": PATCH,
            "frame_size": {"width": FRAME[0], "height": FRAME[1]},
        }
        for key, value in wanted.items():
            if data.get(key) != value:
                raise ModelError(f"{where}: {key!r} should be {value!r} for this pipeline, got {data.get(key)!r}")
        sessions = {}
        for name in ("first_stage", "checker", "verifier"):
            entry = data["files"].get(name)
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                raise ModelError(f"{where}: 'files' lacks the {name} network")
            path = where.parent / entry["file"]
            if not path.is_file():
                raise ModelError(f"{path}: the {name} network is missing")
            if entry.get("sha256") != sha256(path):
                raise ModelError(f"{path}: the {name} network is not the one {where.name} describes (SHA-256 differs)")
            sessions[name] = cpu_session(path, threads, f"the {name} network")
        self.first, self.checker, self.verifier = sessions["first_stage"], sessions["checker"], sessions["verifier"]

    def find(
        self, frame: np.ndarray, threshold: float = THRESHOLD, keep: float = KEEP, doubt: float = DOUBT
    ) -> LearnedOutlines:
        """The outlines of ``frame`` (BGR, 16:9), each step timed."""
        return find_outlines(self.first, self.checker, frame, threshold, keep, doubt)

    def trust(
        self, frame: np.ndarray, quads: list[np.ndarray], levels: tuple[np.ndarray, np.ndarray] | None = None
    ) -> np.ndarray:
        """(Q,) how likely each full-resolution outline of ``frame`` is on its card (0-1), by the verifier;
        ``levels``: the frame's ``pyramid`` where it was made already."""
        if not quads:
            return np.zeros(0)
        half, quarter = pyramid(frame) if levels is None else levels
        to_half = HALF[0] / frame.shape[1]
        ordered = clockwise_all(np.stack(quads) * to_half)  # all at once, not one numpy call a quad
        logits = answer_patches(self.verifier, level_patches(half, quarter, ordered)[0])
        return sigmoid(logits[:, 0])
