"""Fine-tune the shipped cardnet from its own ONNX weights on new crop batches (minutes, not an hour).

    python -m models.training.build_crops --scenes 1500 --seed 23 --out .cache/crops_23.npz
    python -m models.training.finetune --crops .cache/crops_23.npz .cache/crops.npz --epochs 2 \\
        --out .cache/cardnet_ft.onnx
    python -m models.training.evaluate --model .cache/cardnet_ft.onnx --scenes 10   # compare
    python -m models.training.quantize --model .cache/cardnet_ft.onnx --crops .cache/crops_23.npz \\
        --out models/cardnet.onnx                                                  # then ship, measure

The shipped model is int8 (``quantize.py``); its weights are read dequantised, so a fine-tune can start
from it, though starting from the float model it was quantised from (``--base``) loses nothing. The
result is float; quantise it before shipping. The exported network has batch norm folded into the
convolutions, so it is loaded into a twin of ``train.build_net`` without batch norm (convolutions with
bias), which exports to the same graph; its widths are read from the file. The metadata (labels,
normalisation, thresholds, designs) is copied from the shipped model's JSON; the ``accuracy`` block is
reset and must be measured with ``evaluate --write``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from models.training.synth import LABELS
from models.training.train import (
    META,
    MODEL,
    WIDTHS,
    augment,
    batch_record,
    degrade,
    export,
    meta_object,
    training_design_names,
)
from vision.classify import preprocess
from vision.rectify import CORNER_H, CORNER_W


def onnx_constants(path: Path) -> tuple[Any, dict[str, np.ndarray]]:
    """The model and its constant tensors by name, in float: initialisers, and the outputs of
    ``DequantizeLinear`` nodes over initialisers, so the shipped int8 model (``quantize.py``) is read
    as the float weights it stands for ((q - zero point) x scale, per channel along the node's axis)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    consts = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and all(name in consts for name in node.input):
            q, scale, *zero = (consts[name] for name in node.input)
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            if scale.ndim == 1 and q.ndim > 0:
                shape[axis] = -1
            zp = zero[0].astype(np.float64).reshape(shape) if zero else 0.0
            consts[node.output[0]] = ((q.astype(np.float64) - zp) * scale.astype(np.float64).reshape(shape)).astype(
                np.float32
            )
    return model, consts


def onnx_widths(path: Path) -> tuple[int, int, int, int]:
    """Channels of the four convolution blocks of an exported cardnet, read from its weight shapes, so a
    network trained with ``train --widths`` is fine-tuned as itself."""
    model, consts = onnx_constants(path)
    outs = [int(consts[n.input[1]].shape[0]) for n in model.graph.node if n.op_type == "Conv"]
    if len(outs) != 4:
        raise ValueError(f"{path}: {len(outs)} convolutions, a cardnet has 4")
    return outs[0], outs[1], outs[2], outs[3]


def build_folded_net(widths: tuple[int, int, int, int] = WIDTHS):  # type: ignore[no-untyped-def]
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=True), nn.ReLU(inplace=True)]

    a, b, c, d = widths
    return nn.Sequential(
        *block(3, a),
        nn.MaxPool2d(2),
        *block(a, b),
        nn.MaxPool2d(2),
        *block(b, c),
        nn.MaxPool2d(2),
        *block(c, d),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(d * (CORNER_H // 8) * (CORNER_W // 8), len(LABELS) + 1),
    )


def load_onnx_weights(net, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Copy the ONNX weights (conv weight/bias pairs in graph order, then the linear layer); an int8
    model gives its dequantised weights."""
    import torch

    model, init = onnx_constants(path)
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    layers = [m for m in net if isinstance(m, torch.nn.Conv2d)]
    if len(convs) != len(layers):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(layers)}")
    with torch.no_grad():
        for node, layer in zip(convs, layers, strict=True):
            layer.weight.copy_(torch.from_numpy(init[node.input[1]].copy()))
            assert layer.bias is not None  # build_folded_net's convolutions have biases
            layer.bias.copy_(torch.from_numpy(init[node.input[2]].copy()))
        linear = net[-1]
        linear.weight.copy_(torch.from_numpy(init[gemm.input[1]].copy()))
        linear.bias.copy_(torch.from_numpy(init[gemm.input[2]].copy()))


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m models.training.finetune", description=__doc__.splitlines()[0])
    ap.add_argument("--crops", type=Path, nargs="+", required=True)
    ap.add_argument("--per-file", type=int, default=25000, help="at most this many examples from each file")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument(
        "--degrade",
        type=float,
        default=0.6,
        help="fraction of each batch given blur/low-resolution/glare/noise (train.degrade)",
    )
    ap.add_argument(
        "--motion",
        type=float,
        default=0.0,
        help="fraction of the degraded crops also given a line (motion) blur (train.motion_blur)",
    )
    ap.add_argument("--base", type=Path, default=MODEL)
    ap.add_argument("--out", type=Path, required=True)
    return ap


def main(argv: list[str] | None = None) -> None:
    ap = parser()
    args = ap.parse_args(argv)
    import torch
    import torch.nn as nn

    t_start = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    xs, ys = [], []
    meta = json.loads(META.read_text())
    trained_on = set(meta["training_designs"])
    commands = []
    for f in args.crops:
        data = np.load(f)
        decks, command = batch_record(data)  # stored by build_crops since the font decks / model v6
        if decks is not None:
            trained_on |= set(training_design_names(dict.fromkeys(decks)))
        if command is not None:
            commands.append(command)
        pick = rng.permutation(len(data["labels"]))[: args.per_file]
        xs.append(data["crops"][np.sort(pick)])
        ys.append(data["labels"][np.sort(pick)])
    crops, labels = np.concatenate(xs), np.concatenate(ys)
    meta["training_designs"] = sorted(trained_on)
    x = torch.from_numpy(preprocess(crops, meta_object(meta)))
    y = torch.from_numpy(np.repeat(labels, 2))
    print(f"fine-tuning on {len(y)} corner crops from {len(args.crops)} files", flush=True)
    widths = onnx_widths(args.base)
    net = build_folded_net(widths)
    load_onnx_weights(net, args.base)
    gen = torch.Generator().manual_seed(args.seed)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    batch = 256
    steps = args.epochs * ((len(x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(args.epochs):
        net.train()
        perm = torch.randperm(len(x), generator=gen)
        total, correct = 0.0, 0
        for k in range(0, len(x), batch):
            idx = perm[k : k + batch]
            out = net(degrade(augment(x[idx], gen), gen, args.degrade, args.motion))
            loss = loss_fn(out, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            correct += int((out.argmax(1) == y[idx]).sum())
        print(
            f"  epoch {epoch + 1}/{args.epochs}: loss {total / len(x):.3f}, train acc {correct / len(x):.4f}, "
            f"{time.time() - t_start:.0f}s",
            flush=True,
        )
    net.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(net, args.out)
    meta["accuracy"] = {}
    meta.pop("accuracy_calibrated", None)  # measured on the other model: evaluate --calibrated --write again
    training = dict(meta.get("training", {}))
    training.pop("quantization", None)  # the result is float until quantize.py is run on it
    if "fine_tune" in training:  # keep the lineage: earlier fine-tunes of the base model, oldest first
        training["earlier_fine_tunes"] = [*training.get("earlier_fine_tunes", []), training["fine_tune"]]
    meta["training"] = {
        **training,
        "fine_tune": {
            "base": str(args.base.name),
            "base_widths": list(widths),
            "crop_files": [str(f) for f in args.crops],
            "examples": int(len(labels)),
            "epochs": args.epochs,
            "lr": args.lr,
            "seed": args.seed,
            "degrade": args.degrade,
            "motion": args.motion,
            "seconds": round(time.time() - t_start),
            **({"crop_commands": commands} if commands else {}),
        },
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB) in {time.time() - t_start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
