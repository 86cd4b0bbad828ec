"""models.training.finetune starts from exactly the shipped network (batch norm folded back in)."""

from __future__ import annotations

from pathlib import Path

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


def test_fine_tune_records_the_crop_batches_designs_and_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The candidate's metadata says what it was trained on: the decks and commands stored with each batch."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import json
    import sys

    from models.training import finetune

    rng = np.random.default_rng(3)
    crops = tmp_path / "crops_x.npz"
    np.savez(crops, crops=rng.integers(0, 255, (40, 2, CORNER_H, CORNER_W, 3), dtype=np.uint8),
             labels=rng.integers(0, 54, 40), decks=np.array(["fonts:240", "fonts:241", "fonts:300"]),
             command=np.array("python -m models.training.build_crops --seed 1"))
    out = tmp_path / "cand.onnx"
    monkeypatch.setattr(sys, "argv", ["finetune", "--crops", str(crops), "--epochs", "1", "--threads", "1",
                                      "--out", str(out)])
    finetune.main()
    meta = json.loads(out.with_suffix(".json").read_text())
    assert {"fonts:240-241", "fonts:300"} <= set(meta["training_designs"])  # unbroken runs only
    assert set(json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())["training_designs"]) <= \
        set(meta["training_designs"])
    assert meta["training"]["fine_tune"]["crop_commands"] == ["python -m models.training.build_crops --seed 1"]
    assert meta["accuracy"] == {}  # to be measured by evaluate before it can ship
