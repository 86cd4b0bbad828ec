"""The float twin of an int8 (QDQ) model: the same network with its weights dequantized, to measure what
the quantisation buys on a given CPU.

    .venv/bin/python -m models.training.dequantize --model models/cardnet.onnx --out .cache/cardnet_deq.onnx
    .venv/bin/python benchmarks/bench_classifier_models.py models/cardnet.onnx .cache/cardnet_deq.onnx

``quantize.py`` writes a QDQ graph: every weight an int8 initializer behind a DequantizeLinear, every
activation a QuantizeLinear / DequantizeLinear pair. Here each weight becomes its float value, ``(q - zero)
* scale``, and each activation pair is dropped, except that a pair quantising to uint8 with zero point 0 is
a ReLU (the quantiser folds the ReLU after a convolution into it: nothing below 0 survives) and is written
as one. The metadata is copied beside the output. Only the quantisation's rounding differs, so the twin's
top labels match the int8 model's (tested) and its speed is the float network's.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

import numpy as np


def dequantize(src: Path, dst: Path) -> None:
    """Write the float twin of the QDQ model ``src`` to ``dst`` (and its ``.json`` metadata beside it)."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    floats: dict[str, np.ndarray] = {}
    alias: dict[str, str] = {}  # a dropped activation pair's output -> its input
    nodes: list[Any] = []
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in consts:
            floats[node.output[0]] = _dequantized(node, consts)
        elif node.op_type == "DequantizeLinear":
            quant = producer[node.input[0]]
            if quant.op_type != "QuantizeLinear":
                raise ValueError(f"{src}: {node.name} dequantizes {quant.op_type}, not a QuantizeLinear")
            zero = consts[quant.input[2]] if len(quant.input) > 2 else np.zeros((), np.uint8)
            if zero.dtype == np.uint8 and not zero.any():
                nodes.append(helper.make_node("Relu", [quant.input[0]], [node.output[0]]))
            else:
                alias[node.output[0]] = quant.input[0]
        elif node.op_type != "QuantizeLinear":
            nodes.append(node)
    for node in nodes:
        for k, name in enumerate(node.input):
            node.input[k] = _resolve(name, alias)
    for out in graph.output:
        if out.name in alias:
            nodes.append(helper.make_node("Identity", [_resolve(out.name, alias)], [out.name]))
    used = {name for node in nodes for name in node.input}
    kept = [i for i in graph.initializer if i.name in used and i.name not in floats]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + [numpy_helper.from_array(v, k) for k, v in floats.items() if k in used])
    onnx.checker.check_model(model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    shutil.copyfile(src.with_suffix(".json"), dst.with_suffix(".json"))


def _dequantized(node: Any, consts: dict[str, np.ndarray]) -> np.ndarray:
    q = consts[node.input[0]].astype(np.float32)
    scale = consts[node.input[1]].astype(np.float32)
    zero = consts[node.input[2]].astype(np.float32) if len(node.input) > 2 else np.zeros((), np.float32)
    axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
    if scale.size > 1:  # per channel along ``axis``
        shape = [1] * q.ndim
        shape[axis] = -1
        scale = scale.reshape(shape)
        zero = zero.reshape(shape) if zero.size > 1 else zero
    out: np.ndarray = ((q - zero) * scale).astype(np.float32)
    return out


def _resolve(name: str, alias: dict[str, str]) -> str:
    while name in alias:
        name = alias[name]
    return name


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=Path("models/cardnet.onnx"))
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    dequantize(args.model, args.out)
    print(f"wrote {args.out} (and {args.out.with_suffix('.json').name})")


if __name__ == "__main__":
    main()
