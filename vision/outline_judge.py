"""Is a learned outline good enough to keep without the shipped detector's word? (``vision.learned_detect``)

An outline is poor where its weakest side lies off the frame's own colour steps (``step_support``), the verifier
does not trust it (``vision.learned_outlines.OutlineNets.trust``), or it is of another size than the frame's other
outlines (``areas``). Before a poor outline sends its part of the frame
to the shipped detector it gets two more chances (``OutlineJudge.rescued``): its outline before snapping (the snap
may have taken a printed border or a chip's edge) and itself snapped once more. An outline the snap hardly moved is
not put to the verifier (``SETTLED``). Figures:
docs/performance.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.learned_outlines import LearnedOutlines, OutlineNets
from vision.quads import map_quads
from vision.snapping import snap_to_edges

STEP_T = np.linspace(0.1, 0.9, 16, dtype=np.float32)
"""Where ``step_support`` samples a side, as shares of its length: its ends lie on corners, which may be rounded."""
MIN_FOR_SIZE = 3
"""The fewest outlines in a frame for their median area to tell the deck's size."""
SETTLED = 2.0
"""An outline whose snap moved none of the checker's corners this many full-resolution pixels or more is settled: its
corners lay on the frame's edges already, and the verifier is not asked about it (about half of the speed
frames' outlines, 0.3 ms a frame; over the six held-out seeds one hard card less named, the same realistic ones)."""


def step_support(frame: np.ndarray, quads: list[np.ndarray], least: float, reach: int = 2) -> np.ndarray:
    """(Q,) for each full-resolution outline, the share of its weakest side's ``STEP_T`` samples where the frame
    steps by ``least`` or more (the colour change over 2 px, summed over B, G and R, as ``vision.snapping`` measures
    it) within ``reach`` px across the side. Read from the frame in one ``cv2.remap`` of a few thousand points
    (0.4 ms a frame where an edge map of the whole frame took 1.7-1.9)."""
    if not quads:
        return np.zeros(0)
    q = np.stack(quads).astype(np.float32).reshape(-1, 4, 2)
    along = q[:, [1, 2, 3, 0]] - q
    across = np.stack([along[..., 1], -along[..., 0]], axis=2) / np.maximum(
        np.linalg.norm(along, axis=2, keepdims=True), 1e-6
    )
    offsets = np.arange(-reach - 1, reach + 2, dtype=np.float32)
    # the sample points (Q, 4, T, O), x and y apart (as vision.snapping: no broadcast over a last axis of two)
    map_x, map_y = (
        (q[..., k, None] + STEP_T * along[..., k, None])[..., None] + offsets * across[..., k, None, None]
        for k in (0, 1)
    )
    samples = cv2.remap(
        frame,
        map_x.reshape(-1, len(offsets)),
        map_y.reshape(-1, len(offsets)),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.int16)
    diff = np.abs(samples[:, 2:] - samples[:, :-2])
    step = (diff[..., 0] + diff[..., 1] + diff[..., 2]).max(axis=1)  # (Q 4 T,)
    out: np.ndarray = (step >= least).reshape(len(q), 4, -1).mean(axis=2).min(axis=1)
    return out


def areas(quads: list[np.ndarray], plane: np.ndarray | None = None) -> np.ndarray:
    """(Q,) each outline's area: in image pixels, or on the table ``plane`` (image pixels -> table) where given."""
    if not quads:
        return np.zeros(0)
    q = (np.stack(quads) if plane is None else map_quads(np.asarray(plane, np.float64), quads)).astype(np.float64)
    x, y = q[..., 0], q[..., 1]  # the shoelace formula, all outlines at once
    out: np.ndarray = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    return out


def rescue(
    frame: np.ndarray,
    before: list[np.ndarray],
    snapped: list[np.ndarray],
    poor: np.ndarray,
    poor_of: Callable[[list[np.ndarray]], np.ndarray],
) -> tuple[list[np.ndarray], np.ndarray]:
    """``snapped`` with each ``poor`` outline replaced by the first of two others that ``poor_of`` does not call poor:
    its outline ``before`` snapping (the snap may have taken a printed border or a chip's edge), then itself snapped
    once more; and (Q,) which were replaced. Only those two candidates a poor outline are judged."""
    bad = np.flatnonzero(poor)
    replaced = np.zeros(len(snapped), bool)
    if not len(bad):
        return list(snapped), replaced
    candidates = [before[i] for i in bad] + snap_to_edges(frame, [snapped[i] for i in bad])
    good = ~poor_of(candidates)
    out = list(snapped)
    for k, i in enumerate(bad):
        for c in (k, k + len(bad)):
            if good[c]:
                out[i], replaced[i] = candidates[c], True
                break
    return out, replaced


@dataclass(frozen=True)
class OutlineJudge:
    """``step``: the least colour step a side's sample must see (``step_support``); ``support``: the least share of the
    weakest side's samples on such steps; ``trust``: the verifier's least trust (0.8 since the learned path became the
    default: a realistic card more named on the model
    card's frames and over six seeds, fewer false cards, and no speed frame more handed on). ``size_image``
    / ``size_plane``: the shares of the median outline's area (in the image, or on the table's plane where it is
    known) an outline must lie between, in frames of ``MIN_FOR_SIZE`` outlines or more: the cards of one deck are one
    size, and two cards that touch, taken for one, are twice it (the Garbage table's turn-up row). On the
    held-out frames true cards lie at 0.65-1.49 of the median in the image, 0.90-1.11 on the plane."""

    step: float = 20.0
    support: float = 0.95
    trust: float = 0.8
    size_image: tuple[float, float] = (0.55, 1.6)
    size_plane: tuple[float, float] = (0.75, 1.35)

    def poor(
        self,
        nets: OutlineNets,
        frame: np.ndarray,
        quads: list[np.ndarray],
        found: LearnedOutlines,
        median_area: float | None = None,
        plane: np.ndarray | None = None,
        settled: np.ndarray | None = None,
    ) -> np.ndarray:
        """(Q,) for each full-resolution outline of ``found``'s frame: is it poor (a side off the steps, not trusted,
        or with ``median_area`` (on ``plane`` where given), of another size than the frame's cards)? ``settled``: (Q,)
        the outlines the verifier is not asked about (``SETTLED``)."""
        if not quads:
            return np.zeros(0, bool)
        out: np.ndarray = step_support(frame, quads, self.step) < self.support
        # an outline off the steps is poor whatever the verifier says, and a settled one good unless off them
        asked = np.flatnonzero(~out if settled is None else ~out & ~settled)
        if len(asked):
            levels = None if found.half is None or found.quarter is None else (found.half, found.quarter)
            out[asked] = nets.trust(frame, [quads[i] for i in asked], levels) < self.trust
        if median_area:
            low, high = self.size_image if plane is None else self.size_plane
            share = areas(quads, plane) / median_area
            out |= (share < low) | (share > high)
        return out

    def rescued(
        self, nets: OutlineNets, frame: np.ndarray, found: LearnedOutlines, plane: np.ndarray | None = None
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """``found``'s snapped outlines, each poor one replaced by the first of two others that is not poor (its
        outline before snapping, then itself snapped once more), and (Q,) which stay poor. ``plane``: the table's
        (image pixels -> table), where sizes are compared."""
        median = float(np.median(areas(found.snapped, plane))) if len(found.snapped) >= MIN_FOR_SIZE else None
        settled = (
            (np.abs(np.stack(found.snapped) - np.stack(found.kept)).max(axis=(1, 2)) < SETTLED)
            if found.kept
            else np.zeros(0, bool)
        )
        poor = self.poor(nets, frame, found.snapped, found, median, plane, settled)
        snapped, replaced = rescue(
            frame, found.kept, found.snapped, poor, lambda quads: self.poor(nets, frame, quads, found, median, plane)
        )
        return snapped, poor & ~replaced
