"""The detector's edge map: Canny on grey and on chroma, at detection scale."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detector_config import DetectorConfig


def edge_map(small_bgr: np.ndarray, channels: tuple[np.ndarray, ...], least: np.ndarray,
             cfg: DetectorConfig) -> np.ndarray:
    grey = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    edges = cv2.Canny(grey, cfg.grey_low, cfg.grey_high)
    # Chroma: max - min of the channels, high on coloured felt, low on white card paper.
    b, g, r = channels
    chroma = cv2.subtract(cv2.max(cv2.max(b, g), r), least)
    chroma = cv2.GaussianBlur(chroma, (3, 3), 0)
    out: np.ndarray = cv2.bitwise_or(edges, cv2.Canny(chroma, cfg.chroma_low, cfg.chroma_high))
    return out
