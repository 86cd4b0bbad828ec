"""models.training.finetune starts from exactly the shipped network (batch norm folded back in)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.recognizer import DEFAULT_MODEL
from vision.rectify import CORNER_H, CORNER_W


def test_fine_tune_twin_loads_an_exported_network_exactly(tmp_path: Path) -> None:
    """The twin without batch norm reproduces an exported (batch-norm folded) network of the shipped
    widths, read from the file itself."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from models.training.finetune import build_folded_net, load_onnx_weights, onnx_widths
    from models.training.train import WIDTHS, build_net, export

    torch.manual_seed(0)
    trained = build_net(WIDTHS)
    with torch.no_grad():  # batch norm statistics away from the identity, so folding them matters
        for m in trained:
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 2.0)
    trained.eval()
    path = tmp_path / "float.onnx"
    export(trained, path)
    assert onnx_widths(path) == WIDTHS
    net = build_folded_net(onnx_widths(path))
    load_onnx_weights(net, path)
    net.eval()
    x = np.random.default_rng(0).uniform(-0.5, 0.75, (4, 3, CORNER_H, CORNER_W)).astype(np.float32)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    assert np.abs(got - expected).max() < 1e-4


def test_fine_tune_twin_starts_from_the_shipped_int8_model() -> None:
    """Loaded from the shipped int8 model, the twin answers as that model does up to its quantisation."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import onnxruntime as ort

    from models.training.finetune import build_folded_net, load_onnx_weights, onnx_widths

    net = build_folded_net(onnx_widths(DEFAULT_MODEL))
    load_onnx_weights(net, DEFAULT_MODEL)
    net.eval()
    rng = np.random.default_rng(0)
    x = rng.uniform(0.3, 0.75, (64, 3, CORNER_H, CORNER_W)).astype(np.float32)  # pale paper ...
    x[:, :, 4:20, 3:14] = rng.uniform(-0.5, -0.2, (64, 3, 1, 1))  # ... with a dark index stroke
    session = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x)).numpy()
    assert (got.argmax(1) == expected.argmax(1)).mean() >= 0.9
    assert np.abs(got - expected).mean() < 0.05 * (expected.max() - expected.min())


def test_fine_tune_records_the_crop_batches_designs_and_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The candidate's metadata says what it was trained on: the decks and commands stored with each batch."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import sys

    from models.training import finetune

    rng = np.random.default_rng(3)
    crops = tmp_path / "crops_x.npz"
    np.savez(
        crops,
        crops=rng.integers(0, 255, (40, 2, CORNER_H, CORNER_W, 3), dtype=np.uint8),
        labels=rng.integers(0, 54, 40),
        decks=np.array(["fonts:240", "fonts:241", "fonts:300"]),
        command=np.array("python -m models.training.build_crops --seed 1"),
    )
    out = tmp_path / "cand.onnx"
    monkeypatch.setattr(
        sys, "argv", ["finetune", "--crops", str(crops), "--epochs", "1", "--threads", "1", "--out", str(out)]
    )
    finetune.main()
    meta = json.loads(out.with_suffix(".json").read_text())
    assert {"fonts:240-241", "fonts:300"} <= set(meta["training_designs"])  # unbroken runs only
    assert set(json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())["training_designs"]) <= set(
        meta["training_designs"]
    )
    assert meta["training"]["fine_tune"]["crop_commands"] == ["python -m models.training.build_crops --seed 1"]
    assert meta["accuracy"] == {} and "accuracy_calibrated" not in meta  # to be measured before it can ship


def test_motion_blur_smears_each_crop_along_one_line_and_keeps_its_light() -> None:
    """`train.motion_blur` (the camera's 6-8 px motion blur is 8-14 px on a 32 px wide index crop): a
    point becomes a line of 3 to 13 px, each crop along its own direction, the total light kept; off
    (`degrade(..., motion=0)`) it draws nothing, so `train`'s own recipe is unchanged."""
    torch = pytest.importorskip("torch")
    from models.training.train import degrade, motion_blur

    gen = torch.Generator().manual_seed(4)
    dot = torch.zeros(16, 3, CORNER_H, CORNER_W)
    dot[:, :, CORNER_H // 2, CORNER_W // 2] = 1.0
    out = motion_blur(dot, gen, share=1.0)
    assert torch.allclose(out.sum(dim=(2, 3)), torch.ones(16, 3), atol=1e-4)
    spans, angles = [], set()
    for crop in out[:, 0]:
        ys, xs = (crop > 0.02).nonzero(as_tuple=True)
        spans.append(max(int(ys.max() - ys.min()), int(xs.max() - xs.min())) + 1)
        cov = np.cov(np.stack([xs.numpy(), ys.numpy()]).astype(float), aweights=crop[ys, xs].numpy())
        angles.add(round(float(np.degrees(np.arctan2(2 * cov[0, 1], cov[0, 0] - cov[1, 1]) / 2)) / 20))
    assert min(spans) >= 3 and max(spans) <= 13 and len(angles) >= 4, (spans, angles)
    assert torch.equal(motion_blur(dot, gen, share=0.0), dot)
    x = torch.rand(8, 3, CORNER_H, CORNER_W)
    a, b = torch.Generator().manual_seed(1), torch.Generator().manual_seed(1)
    assert torch.equal(degrade(x, a, 0.6), degrade(x, b, 0.6, motion=0.0))
