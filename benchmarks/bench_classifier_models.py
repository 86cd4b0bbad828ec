"""Classification speed of two or more models on the same outlines, interleaved in one process.

    .venv/bin/python benchmarks/bench_classifier_models.py HEAD~1:models/cardnet.onnx models/cardnet.onnx \\
        [--frames 40] [--runs 3] [--held-out SCENES] [--both-corners]

A model is a file (its .json beside it) or ``REV:PATH`` (read with ``git show``, metadata too). Frames
are the speed frames of ``bench_recognition_ab.py`` (1280x720, 12 cards of the project's own drawn
designs, seeded), or with ``--held-out SCENES`` that many realistic and hard scenes of each held-out design
as ``models.training.evaluate`` deals them (seeds 2024 and 2025; needs the Debian designs); each frame's
outlines are detected once, then every model classifies them (corner crops, preprocessing, onnxruntime,
postprocess: ``Recognizer.model_probabilities``, the path users run: the first index corners, then the
second corners of the cards not sure at the first, or with ``--both-corners`` both corners of every card in
one run) in an order rotated each frame, one thread, process CPU time. Prints the median per frame
per run and the median of runs, per card, how often each model's top label agrees with the first's, for how
many cards it read the second corner, and the network's multiply-accumulates per crop (its Conv and Gemm
layers, from the graph's shapes) with the rate the CPU reached on the crops it read.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_recognition_ab import frames  # noqa: E402
from models.training.evaluate import add_both_corners_argument  # noqa: E402
from vision.detect import detect_cards  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402


def model_file(spec: str, tmp: Path, index: int) -> Path:
    """A path as given, or ``REV:PATH`` written (with its metadata) from git into ``tmp``."""
    if ":" not in spec:
        return Path(spec)
    rev, path = spec.split(":", 1)
    out = tmp / f"model{index}.onnx"
    for suffix in (".onnx", ".json"):
        blob = subprocess.run(
            ["git", "show", f"{rev}:{Path(path).with_suffix(suffix)}"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        out.with_suffix(suffix).write_bytes(blob)
    return out


def held_out_frames(scenes: int) -> list[np.ndarray]:
    """``scenes`` realistic (seed 2024) and hard (seed 2025) scenes of each held-out design, as evaluate deals them."""
    from models.training import designs
    from models.training.evaluate import NORMAL, held_out_scenes
    from models.training.synth import HARD

    held = designs.held_out_decks()
    return [
        scene.image
        for spec, seed in ((NORMAL, 2024), (HARD, 2025))
        for _, scene in held_out_scenes(held, spec, scenes, seed)
    ]


def macs_per_crop(path: Path) -> int:
    """Multiply-accumulates of one crop through the network's Conv and Gemm layers (shapes inferred for a
    batch of one)."""
    import onnx
    from onnx import numpy_helper, shape_inference

    model = onnx.load(str(path))
    batch = model.graph.input[0].type.tensor_type.shape.dim[0]
    batch.ClearField("dim_param")
    batch.dim_value = 1
    graph = shape_inference.infer_shapes(model).graph
    shapes = {
        v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in [*graph.value_info, *graph.output, *graph.input]
    }
    shapes.update({t.name: list(numpy_helper.to_array(t).shape) for t in graph.initializer})
    total = 0
    for node in graph.node:
        if node.op_type == "Conv":
            weight, out = shapes[node.input[1]], shapes[node.output[0]]
            total += int(np.prod(out[1:])) * int(np.prod(weight[1:]))
        elif node.op_type == "Gemm":
            total += int(np.prod(shapes[node.input[1]]))
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", help="model files or REV:PATH")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=102)
    ap.add_argument(
        "--held-out",
        type=int,
        metavar="SCENES",
        help="held-out designs' scenes (this many realistic and hard ones per design) instead of the speed frames",
    )
    add_both_corners_argument(ap)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [model_file(m, Path(tmp), i) for i, m in enumerate(args.models)]
        recs = [Recognizer(path, threads=1, one_corner_sure=args.one_corner_sure) for path in paths]
        macs = [macs_per_crop(path) for path in paths]
    imgs = held_out_frames(args.held_out) if args.held_out else frames(args.frames, args.seed)
    outlines = [detect_cards(f) for f in imgs]
    cards = sum(len(q) for q in outlines)
    agree, crops = [0] * len(recs), [0] * len(recs)
    top0 = [recs[0].model_probabilities(f, q).argmax(1) for f, q in zip(imgs, outlines, strict=True)]
    for k, rec in enumerate(recs):
        infer = rec.classifier.infer

        def counting(batch: np.ndarray, k: int = k, infer: Any = infer) -> np.ndarray:
            crops[k] += len(batch)
            out: np.ndarray = infer(batch)
            return out

        rec.classifier.infer = counting  # type: ignore[method-assign]
        for f, q, t in zip(imgs, outlines, top0, strict=True):
            agree[k] += int((rec.model_probabilities(f, q).argmax(1) == t).sum())
        rec.classifier.infer = infer  # type: ignore[method-assign]
    runs: list[list[float]] = [[] for _ in recs]
    for _ in range(args.runs):
        per: list[list[float]] = [[] for _ in recs]
        for i, (f, q) in enumerate(zip(imgs, outlines, strict=True)):
            order = [(i + j) % len(recs) for j in range(len(recs))]
            for k in order:
                t0 = time.process_time()
                recs[k].model_probabilities(f, q)
                per[k].append(time.process_time() - t0)
        for k in range(len(recs)):
            runs[k].append(1000 * statistics.median(per[k]))
    per_frame = cards / len(imgs)
    print(f"{len(imgs)} frames, {per_frame:.1f} outlines a frame, {args.runs} runs, one thread, process CPU")
    for k, spec in enumerate(args.models):
        med = statistics.median(runs[k])
        print(
            f"{spec}: classification {med:.2f} ms a frame (runs {[round(x, 2) for x in runs[k]]}), "
            f"{med / per_frame:.3f} ms a card; top label as the first model's {agree[k]}/{cards}; second "
            f"corners read for {crops[k] - cards} of {cards} cards; {macs[k] / 1e6:.2f} M multiply-accumulates a "
            f"crop, {macs[k] * crops[k] / len(imgs) / med / 1e6:.1f} G a second over the whole classification"
        )


if __name__ == "__main__":
    main()
