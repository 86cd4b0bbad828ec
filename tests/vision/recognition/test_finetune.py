"""models.training.finetune starts from exactly the shipped network (batch norm folded back in)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.recognizer import DEFAULT_MODEL
from vision.rectify import CORNER_H, CORNER_W


def test_fine_tune_twin_loads_the_shipped_weights_exactly() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from models.training.finetune import build_folded_net, load_onnx_weights

    net = build_folded_net()
    load_onnx_weights(net, DEFAULT_MODEL)
    net.eval()
    x = np.random.default_rng(0).uniform(-0.5, 0.75, (4, 3, CORNER_H, CORNER_W)).astype(np.float32)
    session = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    assert np.abs(got - expected).max() < 1e-4
