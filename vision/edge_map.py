"""The detector's edge map: Canny on grey and on chroma, at detection scale."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detector_config import DetectorConfig


def chroma_of(channels: tuple[np.ndarray, ...], least: np.ndarray) -> np.ndarray:
    """Chroma: max - min of the channels (``least`` the min), high on coloured felt, low on white card paper."""
    b, g, r = channels
    out: np.ndarray = cv2.subtract(cv2.max(cv2.max(b, g), r), least)
    return out


def edge_map(
    small_bgr: np.ndarray, channels: tuple[np.ndarray, ...], least: np.ndarray, cfg: DetectorConfig
) -> np.ndarray:
    grey = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    edges = cv2.Canny(grey, cfg.grey_low, cfg.grey_high)
    chroma = cv2.GaussianBlur(chroma_of(channels, least), (3, 3), 0)
    out: np.ndarray = cv2.bitwise_or(edges, cv2.Canny(chroma, cfg.chroma_low, cfg.chroma_high))
    return out
