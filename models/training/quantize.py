"""Quantise a trained cardnet to 8-bit integers (onnxruntime static quantisation), the form that ships.

    python -m models.training.quantize --model .cache/cardnet_w.onnx --crops .cache/crops_k71.npz \\
        --out models/cardnet.onnx
    python -m models.training.evaluate --scenes 20 --seed 2024 --write   # then measure it

Why: a card's classification is small convolutions, which onnxruntime runs about twice as fast in int8
as in float32 on one core (x86 with VNNI here, ARM64's dot-product instructions on a Pi 5), and the file
is a quarter the size. Weights are int8 per output channel with 7-bit range (``reduce_range``: x86 CPUs
without VNNI saturate on full-range u8 x s8 products), activations uint8 with ranges calibrated (min/max)
on corner crops of a crop batch, preprocessed exactly as at run time. The format is QDQ: the graph keeps
float inputs and outputs, so nothing else in the recogniser changes. The metadata is copied from the float
model's JSON with a ``quantization`` record; ``accuracy`` is reset and must be measured with
``evaluate --write``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vision.classify import preprocess
from vision.model_meta import load_meta

QUANT_FORMAT = "static int8 QDQ, weights per channel (7-bit range), activations uint8, min/max calibration"


def batches(x: np.ndarray, size: int = 50) -> list[np.ndarray]:
    """Preprocessed network input in calibration batches (``train`` calibrates on its own crops)."""
    x = x.astype(np.float32, copy=False)
    return [x[i : i + size] for i in range(0, len(x), size)]


def calibration_batches(crops: np.ndarray, meta_path: Path, count: int, seed: int) -> list[np.ndarray]:
    """``count`` cards drawn at random from (N, 2, H, W, 3) crops, both corners, preprocessed as at run time."""
    pick = np.sort(np.random.default_rng(seed).permutation(len(crops))[:count])
    return batches(preprocess(crops[pick], load_meta(meta_path)))


def quantize_model(src: Path, dst: Path, batches: list[np.ndarray]) -> None:
    """Write the int8 form of the float model ``src`` to ``dst`` (ONNX only; see ``write_meta``)."""
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.feeds = iter([{name: b} for b in batches])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.feeds, None)

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # shape inference + graph clean-up, as the tool advises; ONNX shape inference suffices for this static
        # graph (the symbolic kind would need sympy, which the project does not otherwise need)
        quant_pre_process(str(src), str(prepared), skip_symbolic_shape=True)
        dst.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(
            str(prepared),
            str(dst),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            reduce_range=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )


def write_meta(src: Path, dst: Path, record: dict[str, Any]) -> None:
    """The float model's metadata beside the int8 model, with the quantisation (``QUANT_FORMAT``, the float
    model's name and ``record``: what it was calibrated on) recorded, accuracy reset."""
    meta = json.loads(src.with_suffix(".json").read_text())
    meta["accuracy"] = {}
    meta.pop("accuracy_calibrated", None)  # measured on the other model: evaluate --calibrated --write again
    meta["training"] = {
        **meta.get("training", {}),
        "quantization": {"format": QUANT_FORMAT, "float_model": src.name, **record},
    }
    dst.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m models.training.quantize", description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, required=True, help="the float32 model (its .json beside it)")
    ap.add_argument("--crops", type=Path, required=True, help="a crop batch (build_crops) to calibrate on")
    ap.add_argument("--cards", type=int, default=500, help="cards to calibrate on (two crops each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    return ap


def main(argv: list[str] | None = None) -> None:
    ap = parser()
    args = ap.parse_args(argv)
    if args.out.resolve() == args.model.resolve():
        ap.error("--out must not overwrite --model (keep the float model to fine-tune from)")
    if args.cards < 1:
        ap.error("--cards must be at least 1")
    with np.load(args.crops) as data:
        crops = data["crops"]
    if not len(crops):
        ap.error(f"{args.crops}: no cards to calibrate on")
    batches = calibration_batches(crops, args.model.with_suffix(".json"), args.cards, args.seed)
    quantize_model(args.model, args.out, batches)
    write_meta(
        args.model,
        args.out,
        {"calibration_crops": str(args.crops), "calibration_cards": min(args.cards, len(crops)), "seed": args.seed},
    )
    kib = args.out.stat().st_size / 1024
    print(f"wrote {args.out} ({kib:.0f} KiB) from {args.model} ({args.model.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
