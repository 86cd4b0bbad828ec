"""Classification of rectified index corners with onnxruntime: preprocess -> infer -> postprocess.

Each card gives two crops (top-left index, and bottom-right index turned 180 degrees); the network
scores each crop and :func:`postprocess` combines the two by averaging log-probabilities, so one
corner under glare or a thumb is outvoted by a clear one only when the clear one is confident.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import ModelError
from vision.model_meta import ModelMeta


def preprocess(crops: np.ndarray, meta: ModelMeta) -> np.ndarray:
    """(N, 2, H, W, 3) uint8 BGR crops -> (2N, 3, H, W) float32 network input (also (N, 1, ...) -> (N, ...):
    one corner of each card).

    White-point normalisation: each channel of each crop is divided by its high percentile (the card's
    paper), which cancels exposure and colour casts while keeping red ink red.
    """
    if crops.ndim != 5 or crops.shape[1] not in (1, 2) or crops.shape[2:] != (meta.input_height, meta.input_width, 3):
        raise ValueError(
            f"expected crops of shape (N, 2 or 1, {meta.input_height}, {meta.input_width}, 3), got {crops.shape}"
        )
    m = crops.shape[0] * crops.shape[1]  # crops in all
    # channels first before anything else: the result is already the network's NCHW layout
    planes = np.ascontiguousarray(crops.reshape(m, -1, 3).transpose(0, 2, 1))  # (2N, 3, H*W) uint8
    white = order_statistic(planes.reshape(3 * m, -1), round(meta.percentile / 100 * (planes.shape[2] - 1)))
    white = white.astype(np.float32).reshape(m, 3, 1)
    scaled = planes.astype(np.float32)
    scaled /= np.maximum(white, np.float32(24.0))
    np.minimum(scaled, np.float32(1.25), out=scaled)
    scaled -= np.float32(meta.offset)
    return scaled.reshape(m, 3, meta.input_height, meta.input_width)


def order_statistic(rows: np.ndarray, k: int) -> np.ndarray:
    """(R,) the ``k``-th smallest value (from 0) of each row of (R, n) uint8 ``rows``: ``np.partition``'s answer,
    counted in one ``np.bincount`` of all rows (each row's values offset by 256 a row), in half its time."""
    r, n = rows.shape
    if not 0 <= k < n:
        raise ValueError(f"order statistic {k} of rows of {n} values")
    offsets = np.arange(0, 256 * r, 256, dtype=np.int32)[:, None]
    counts = np.bincount((rows + offsets).ravel(), minlength=256 * r).reshape(r, 256)
    out: np.ndarray = (counts.cumsum(axis=1) <= k).sum(axis=1)  # values whose count up to them is k or less
    return out


def log_softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    out: np.ndarray = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    """(N, L) logits of single crops -> (N, L) float32 probabilities (computed in float64, as ``postprocess``)."""
    lp = log_softmax(logits.astype(np.float64))
    p = np.exp(lp - lp.max(axis=1, keepdims=True))
    out: np.ndarray = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def postprocess(logits: np.ndarray) -> np.ndarray:
    """(2N, L) corner logits -> (N, L) card probabilities (geometric mean of the two corners)."""
    if logits.ndim != 2 or logits.shape[0] % 2:
        raise ValueError(f"expected (2N, L) logits, got {logits.shape}")
    lp = log_softmax(logits.astype(np.float64)).reshape(-1, 2, logits.shape[1]).mean(axis=1)
    p = np.exp(lp - lp.max(axis=1, keepdims=True))
    probs: np.ndarray = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
    return probs


def decide(
    probs: np.ndarray, labels: tuple[str, ...], min_confidence: float, min_margin: float, unknown: str = "unknown"
) -> list[tuple[str, float]]:
    """Top label and its probability per card; ``unknown`` when top-1 or its margin over top-2 is low."""
    out: list[tuple[str, float]] = []
    for p in probs:
        order = np.argsort(p)[::-1]
        top, second = float(p[order[0]]), float(p[order[1]])
        label = labels[order[0]] if top >= min_confidence and top - second >= min_margin else unknown
        out.append((label, top))
    return out


def cpu_session(path: str | Path, threads: int, what: str) -> Any:
    """An onnxruntime session on the CPU with explicit thread counts (leave a core for capture on a Pi); a file
    onnxruntime cannot load is a ModelError naming it and ``what`` it should be."""
    import onnxruntime as ort

    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own classes for missing/corrupt files
        raise ModelError(f"{path}: cannot load {what} ({exc})") from exc


class OnnxClassifier:
    """An onnxruntime session with explicit thread counts (leave a core for capture on a Pi)."""

    def __init__(self, model_path: str | Path, meta: ModelMeta, *, threads: int = 1) -> None:
        self.session = cpu_session(model_path, threads, "ONNX model")
        inputs = self.session.get_inputs()
        outputs = self.session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 1:
            raise ModelError(f"{model_path}: expected one input and one output")
        shape: list[Any] = list(inputs[0].shape)
        if len(shape) != 4 or shape[1:] != [3, meta.input_height, meta.input_width]:
            raise ModelError(
                f"{model_path}: input shape {shape} does not match metadata "
                f"[N, 3, {meta.input_height}, {meta.input_width}]"
            )
        out_shape: list[Any] = list(outputs[0].shape)
        if out_shape[-1] != len(meta.labels):
            raise ModelError(f"{model_path}: {out_shape[-1]} outputs but {len(meta.labels)} labels")
        self.input_name = inputs[0].name
        self.meta = meta

    def infer(self, batch: np.ndarray) -> np.ndarray:
        """(2N, 3, H, W) float32 -> (2N, L) logits, in one run."""
        if len(batch) == 0:
            return np.zeros((0, len(self.meta.labels)), np.float32)
        out = self.session.run(None, {self.input_name: batch})[0]
        return np.asarray(out, np.float32)
