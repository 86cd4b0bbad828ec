"""Is a learned outline good enough to keep without the shipped detector's word? (``vision.learned_detect``)

An outline is poor where its weakest side lies off the frame's own colour steps (``step_support``) or the verifier
does not trust it (``vision.learned_outlines.OutlineNets.trust``). Before a poor outline sends its part of the frame
to the shipped detector it gets two more chances (``OutlineJudge.rescued``): its outline before snapping (the snap
may have taken a printed border or a chip's edge) and itself snapped once more. Chosen in
``benchmarks/keypoint_hybrid.py`` (sessions 41-42, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.learned_outlines import LearnedOutlines, OutlineNets
from vision.snapping import snap_to_edges

STEP_T = np.linspace(0.1, 0.9, 16, dtype=np.float32)
"""Where ``step_support`` samples a side, as shares of its length: its ends lie on corners, which may be rounded."""


def step_support(frame: np.ndarray, quads: list[np.ndarray], least: float, reach: int = 2) -> np.ndarray:
    """(Q,) for each full-resolution outline, the share of its weakest side's ``STEP_T`` samples where the frame
    steps by ``least`` or more (the colour change over 2 px, summed over B, G and R, as ``vision.snapping`` measures
    it) within ``reach`` px across the side. Read from the frame in one ``cv2.remap`` of a few thousand points
    (0.4 ms a frame where an edge map of the whole frame took 1.7-1.9)."""
    if not quads:
        return np.zeros(0)
    q = np.stack(quads).astype(np.float32).reshape(-1, 4, 2)
    along = np.roll(q, -1, axis=1) - q
    across = np.stack([along[..., 1], -along[..., 0]], axis=2) / np.maximum(
        np.linalg.norm(along, axis=2, keepdims=True), 1e-6)
    offsets = np.arange(-reach - 1, reach + 2, dtype=np.float32)
    pts = (q[:, :, None, None] + STEP_T[None, None, :, None, None] * along[:, :, None, None]
           + offsets[None, None, None, :, None] * across[:, :, None, None])  # (Q, 4, T, O, 2)
    flat = pts.reshape(-1, len(offsets), 2)
    samples = cv2.remap(frame, np.ascontiguousarray(flat[..., 0]), np.ascontiguousarray(flat[..., 1]),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.int16)
    step = np.abs(samples[:, 2:] - samples[:, :-2]).sum(axis=2).max(axis=1)  # (Q 4 T,)
    out: np.ndarray = (step >= least).reshape(len(q), 4, -1).mean(axis=2).min(axis=1)
    return out


@dataclass(frozen=True)
class OutlineJudge:
    """``step``: the least colour step a side's sample must see (``step_support``); ``support``: the least share of the
    weakest side's samples on such steps; ``trust``: the verifier's least trust. Session 42's choices."""

    step: float = 20.0
    support: float = 0.95
    trust: float = 0.5

    def poor(self, nets: OutlineNets, frame: np.ndarray, quads: list[np.ndarray], found: LearnedOutlines
             ) -> np.ndarray:
        """(Q,) for each full-resolution outline of ``found``'s frame: is it poor (a side off the steps, or not
        trusted)?"""
        if not quads:
            return np.zeros(0, bool)
        off_edges = step_support(frame, quads, self.step) < self.support
        levels = None if found.half is None or found.quarter is None else (found.half, found.quarter)
        out: np.ndarray = off_edges | (nets.trust(frame, quads, levels) < self.trust)
        return out

    def rescued(self, nets: OutlineNets, frame: np.ndarray, found: LearnedOutlines
                ) -> tuple[list[np.ndarray], np.ndarray]:
        """``found``'s snapped outlines, each poor one replaced by the first of two others that is not poor (its
        outline before snapping, then itself snapped once more), and (Q,) which stay poor."""
        poor = self.poor(nets, frame, found.snapped, found)
        bad = np.flatnonzero(poor)
        if not len(bad):
            return list(found.snapped), poor
        candidates = [found.kept[i] for i in bad] + snap_to_edges(frame, [found.snapped[i] for i in bad])
        good = ~self.poor(nets, frame, candidates, found)
        snapped, poor = list(found.snapped), poor.copy()
        for k, i in enumerate(bad):
            for c in (k, k + len(bad)):
                if good[c]:
                    snapped[i], poor[i] = candidates[c], False
                    break
        return snapped, poor
