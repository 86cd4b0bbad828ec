"""Card outlines from the learned networks first, the shipped detector only where they leave a doubt.

``detect_learned`` takes the outlines of ``vision.learned_outlines`` that ``vision.outline_judge`` finds good, and
hands to ``vision.detect.detect_in_region`` only the parts of the frame around a poor outline or a doubtful peak
(``doubtful_regions``), on the plane the good outlines give (or the calibrated table's). Most frames need no part
handed on. Measured against the shipped detector in ``benchmarks/bench_recognition.py``: docs/performance.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from vision.detect import DEFAULT_CONFIG, DetectorConfig, Region, detect_cards, detect_in_region, merged_regions
from vision.errors import ImageError
from vision.learned_outlines import FRAME, OutlineNets, off_every
from vision.outline_judge import OutlineJudge
from vision.plane_from_cards import plane_from_cards
from vision.quads import centre_on_any

JUDGE = OutlineJudge()
"""The shipped judge (``vision.outline_judge``: cues and rescue, size cue)."""
GROW = 0.6
"""A doubtful region is its outline's bounding box grown by this share of the box's larger side on every side: a
card the outline is off holds the outline's place."""


class LearnedDetection(NamedTuple):
    quads: list[np.ndarray]
    """The card outlines found ((4, 2) float32, full-resolution pixels, the detector's corner order)."""
    learned: int
    """How many of them the networks gave (the rest the shipped detector, in ``regions``)."""
    regions: list[Region]
    """The parts of the frame handed to the shipped detector (the whole frame for one the networks cannot read)."""


def doubtful_regions(shape: tuple[int, ...], quads: Sequence[np.ndarray], grow: float = GROW) -> list[Region]:
    """The parts of a frame of ``shape`` to detect again: each outline's bounding box grown by ``grow`` of its larger
    side on every side, clipped to the frame, those that overlap merged into one box."""
    height, width = shape[:2]
    boxes: list[Region] = []
    for q in quads:
        (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
        pad = grow * max(x1 - x0, y1 - y0)
        boxes.append(
            (
                max(0, int(x0 - pad)),
                max(0, int(y0 - pad)),
                min(width, int(x1 + pad) + 1),
                min(height, int(y1 + pad) + 1),
            )
        )
    return [b for b in merged_regions(boxes) if b[2] > b[0] and b[3] > b[1]]


def readable(frame: np.ndarray) -> bool:
    """Can the networks read ``frame``: 16:9 (as they learned, to a pixel's rounding) and at least a quarter of
    ``FRAME`` wide?"""
    height, width = frame.shape[:2]
    return bool(width >= FRAME[0] // 4 and abs(width * FRAME[1] - height * FRAME[0]) <= FRAME[0])


def detect_learned(
    frame_bgr: np.ndarray,
    nets: OutlineNets,
    config: DetectorConfig = DEFAULT_CONFIG,
    plane: np.ndarray | None = None,
    ignore: Sequence[np.ndarray] = (),
    judge: OutlineJudge = JUDGE,
    grow: float = GROW,
) -> LearnedDetection:
    """Card outlines in ``frame_bgr`` (BGR uint8), as ``vision.detect.detect_cards`` gives them: the good learned
    outlines, and the shipped detector's (``config``; the good outlines as the deck) in the doubtful regions of
    the poor ones and of the doubtful peaks, where no good outline lies already. ``plane``: the calibrated table
    (image pixels -> table); without one each region is detected on the plane the good outlines give, where they
    give one. A region's edge can cut a card the networks did not give, and a cut card is not found (
    one frame of a Garbage match; detecting such frames whole cost more on the validation set than it won).
    A region detection whose centre lies on a kept outline is a piece of that card cut by the region's edge (as
    ``Recognizer.recognize_regions`` judges it), not another card. ``ignore``: polygons that hold no card (the mat's
    markers): a learned outline whose centre lies in one is dropped, and the shipped detector is told of them. A frame
    the networks cannot read (``readable``) is
    detected by the shipped detector whole."""
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
        raise ImageError(f"expected a BGR uint8 frame, got shape {frame_bgr.shape} {frame_bgr.dtype}")
    if not readable(frame_bgr):
        height, width = frame_bgr.shape[:2]
        return LearnedDetection(detect_cards(frame_bgr, config, plane=plane, ignore=ignore), 0, [(0, 0, width, height)])
    found = nets.find(frame_bgr)
    snapped, poor = judge.rescued(nets, frame_bgr, found, plane)
    kept = [q for q, bad in zip(snapped, poor, strict=True) if not bad and not centre_on_any(q, ignore)]
    doubted = [q for q, bad in zip(snapped, poor, strict=True) if bad] + found.doubtful
    doubted = [q for q in doubted if not centre_on_any(q, ignore)]
    regions = doubtful_regions(frame_bgr.shape, doubted, grow)
    if not regions:
        return LearnedDetection(kept, len(kept), [])
    table = (
        plane
        if plane is not None
        else plane_from_cards(kept, frame_bgr.shape, spread=config.plane_spread, drop=config.plane_drop)
    )
    out = list(kept)
    for region in regions:
        more = detect_in_region(frame_bgr, region, config, plane=table, ignore=ignore, deck=kept)
        out += [q for q, off in zip(more, off_every(more, kept), strict=True) if off and not centre_on_any(q, kept)]
    return LearnedDetection(out, len(kept), regions)
