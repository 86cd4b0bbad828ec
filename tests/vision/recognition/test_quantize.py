"""models.training.quantize: the int8 form that ships keeps the float model's answers, and the training
tools read its weights back as the floats they stand for."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.recognizer import DEFAULT_MODEL
from vision.rectify import CORNER_H, CORNER_W

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

LABELS = 54


def _float_model(path: Path, seed: int = 0) -> dict[str, np.ndarray]:
    """A small network of the recogniser's shape (two convolutions, a linear layer), random weights."""
    rng = np.random.default_rng(seed)
    w = {
        "c1.w": rng.normal(0, 0.4, (8, 3, 3, 3)),
        "c1.b": rng.normal(0, 0.1, 8),
        "c2.w": rng.normal(0, 0.15, (12, 8, 3, 3)),
        "c2.b": rng.normal(0, 0.1, 12),
        "fc.w": rng.normal(0, 0.02, (LABELS, 12 * (CORNER_H // 2) * (CORNER_W // 2))),
        "fc.b": rng.normal(0, 0.1, LABELS),
    }
    w = {k: v.astype(np.float32) for k, v in w.items()}
    nodes = [
        helper.make_node("Conv", ["crops", "c1.w", "c1.b"], ["a1"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "c2.w", "c2.b"], ["a2"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["a2"], ["r2"]),
        helper.make_node("Flatten", ["r2"], ["f"]),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, CORNER_H, CORNER_W])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", LABELS])],
        [numpy_helper.from_array(v, k) for k, v in w.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    shutil.copy(DEFAULT_MODEL.with_suffix(".json"), path.with_suffix(".json"))
    return w


def _crops(n: int, seed: int) -> np.ndarray:
    """Card-corner-like crops: pale paper with dark and red strokes (N, 2, H, W, 3) uint8."""
    rng = np.random.default_rng(seed)
    crops = rng.integers(200, 256, (n, 2, CORNER_H, CORNER_W, 3)).astype(np.uint8)
    for i in range(n):
        y, x = rng.integers(4, CORNER_H - 16), rng.integers(2, CORNER_W - 12)
        crops[i, :, y : y + 14, x : x + 9] = rng.integers(0, 120, 3)
    return crops


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"crops": x})[0])


def test_the_int8_model_answers_as_the_float_model_did(tmp_path: Path) -> None:
    from models.training import quantize
    from vision.classify import preprocess
    from vision.model_meta import load_meta

    src, dst = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    _float_model(src)
    batches = quantize.calibration_batches(_crops(200, 1), src.with_suffix(".json"), 100, seed=0)
    assert sum(len(b) for b in batches) == 200  # 100 cards, both corners
    quantize.quantize_model(src, dst, batches)

    graph = onnx.load(str(dst)).graph
    assert {"QuantizeLinear", "DequantizeLinear"} <= {n.op_type for n in graph.node}
    int8 = [i for i in graph.initializer if i.data_type == TensorProto.INT8]
    assert {tuple(i.dims) for i in int8} >= {(8, 3, 3, 3), (12, 8, 3, 3)}  # the convolution weights

    x = preprocess(_crops(64, 2), load_meta(src.with_suffix(".json")))  # other crops than calibrated on
    want, got = _run(src, x), _run(dst, x)
    spread = want.max() - want.min()
    assert np.abs(got - want).mean() < 0.02 * spread and np.abs(got - want).max() < 0.1 * spread
    assert (got.argmax(1) == want.argmax(1)).mean() >= 0.9


def test_the_training_tools_read_int8_weights_back_as_floats(tmp_path: Path) -> None:
    """finetune starts from the shipped (int8) model: each weight comes back within half a step of its
    channel's scale from the float it was quantised from."""
    from models.training import quantize
    from models.training.finetune import onnx_constants, onnx_widths

    src, dst = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    w = _float_model(src)
    quantize.quantize_model(src, dst, quantize.calibration_batches(_crops(50, 1), src.with_suffix(".json"), 50, 0))
    model, consts = onnx_constants(dst)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    for node, name in zip(convs, ("c1.w", "c2.w"), strict=True):
        got = consts[node.input[1]]
        step = np.abs(w[name]).reshape(len(w[name]), -1).max(1) / 63  # 7-bit range: +-63 steps a channel
        assert got.shape == w[name].shape
        assert (np.abs(got - w[name]).reshape(len(got), -1).max(1) <= step * 0.5 + 1e-6).all()
    with pytest.raises(ValueError, match="a cardnet has 4"):
        onnx_widths(dst)  # two convolutions: not a cardnet


def test_quantize_command_records_what_it_did_and_keeps_the_float_model(tmp_path: Path) -> None:
    from models.training import quantize

    src, dst = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    _float_model(src)
    crops = tmp_path / "crops.npz"
    np.savez(crops, crops=_crops(30, 4), labels=np.zeros(30, np.int64))
    before = src.read_bytes()
    quantize.main(["--model", str(src), "--crops", str(crops), "--cards", "100", "--out", str(dst)])
    meta = json.loads(dst.with_suffix(".json").read_text())
    assert meta["accuracy"] == {} and "accuracy_calibrated" not in meta  # to be measured by evaluate --write
    assert meta["training"]["quantization"]["calibration_cards"] == 30  # all there were
    assert meta["training"]["quantization"]["float_model"] == "float.onnx"
    assert src.read_bytes() == before
    with pytest.raises(SystemExit):
        quantize.main(["--model", str(src), "--crops", str(crops), "--out", str(src)])
    with pytest.raises(SystemExit):
        quantize.main(["--model", str(src), "--crops", str(crops), "--cards", "0", "--out", str(tmp_path / "x.onnx")])
    empty = tmp_path / "empty.npz"
    np.savez(empty, crops=_crops(0, 4), labels=np.zeros(0, np.int64))
    with pytest.raises(SystemExit):
        quantize.main(["--model", str(src), "--crops", str(empty), "--out", str(tmp_path / "x.onnx")])
    assert not (tmp_path / "x.onnx").exists()


def test_the_shipped_model_is_the_int8_form_its_metadata_names() -> None:
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    graph = onnx.load(str(DEFAULT_MODEL)).graph
    assert meta["training"]["quantization"]["format"].startswith("static int8 QDQ")
    assert "QuantizeLinear" in {n.op_type for n in graph.node}
    from models.training.finetune import onnx_widths

    assert onnx_widths(DEFAULT_MODEL) == tuple(meta["training"]["widths"])


def test_the_dequantized_twin_of_the_shipped_model_answers_as_it_does(tmp_path: Path) -> None:
    """models.training.dequantize: the float twin (weights dequantized, the ReLUs the quantiser folded into
    uint8 zero points restored) gives the shipped int8 model's top label on every crop and logits within
    the int8 rounding; without the restored ReLUs its logits are off by hundreds (checked by hand), so the
    tolerance below can fail."""
    import onnxruntime as ort

    from models.training.dequantize import dequantize

    out = tmp_path / "twin.onnx"
    dequantize(DEFAULT_MODEL, out)
    assert json.loads(out.with_suffix(".json").read_text()) == json.loads(
        DEFAULT_MODEL.with_suffix(".json").read_text()
    )
    ops = {n.op_type for n in onnx.load(str(out)).graph.node}
    assert "QuantizeLinear" not in ops and "DequantizeLinear" not in ops and "Relu" in ops
    x = np.random.default_rng(5).uniform(-0.5, 0.75, (64, 3, CORNER_H, CORNER_W)).astype(np.float32)
    runs = []
    for path in (DEFAULT_MODEL, out):
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        runs.append(sess.run(None, {sess.get_inputs()[0].name: x})[0])
    int8, twin = runs
    assert (int8.argmax(axis=1) == twin.argmax(axis=1)).mean() >= 0.95
    assert np.abs(int8 - twin).max() < 0.1 * np.abs(int8).max()
