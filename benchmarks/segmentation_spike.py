"""A learned card detector, measured before anyone builds one: what a small segmentation network costs on one core, and
what one trained for minutes on this machine finds. A spike for issue 5's speed target; nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/segmentation_spike.py cost
    .venv/bin/python benchmarks/segmentation_spike.py train --scenes 4000 --minutes 20 --out /tmp/seg.pt
    .venv/bin/python benchmarks/segmentation_spike.py evaluate --model /tmp/seg.pt --kind realistic --scenes 10

* ``cost``: onnxruntime ms a frame (median of 50, one thread, untrained weights) of separable U-Nets on a frame at a
  quarter (320x180) and a half (640x360) of 1280x720, each with its mask at a quarter, a half (the decoder stops
  there) and the whole of the input's size (``SegNet``, what ``train`` trains).
* ``train``: ``--scenes`` quarter-size scenes of the training designs (``models.training.synth.make_scene``, half
  realistic, half hard, a tenth with no cards), each with a mask of its cards' interiors, every card shrunk by
  ``SHRINK`` of its size about its centre so that cards a few pixels apart stay apart; then ``SegNet`` trained for
  ``--minutes`` (two threads, batch 16, AdamW, cosine rate, BCE + Dice, flips and colour gain).
* ``evaluate``: the held-out designs' scenes as ``models.training.evaluate`` deals them. Each mask's blobs become
  outlines (``vision.quads.fit_quad`` and ``refine_sides``, grown back by ``SHRINK``, at full resolution), then
  ``vision.snapping.snap_to_edges``. Counted: cards found (``models.training.evaluate.matched_outlines``, the
  recognition benchmark's match: corners within 12% of the card's width), false outlines, cards located (an outline
  centred within 0.3 card widths with an IoU over 0.7), and the median ms of each step (one thread).

Needs torch (the training extra, models/README.md) for ``cost`` and ``train``, the Debian designs for ``train`` and
``evaluate``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SHRINK = 0.06
"""Each card's mask is its outline shrunk by 2 x SHRINK of its size about its centre."""
INPUT = (320, 180)
"""The network's input: the frame at a quarter of 1280x720."""


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise SystemExit("segmentation_spike needs torch: the training extra (models/README.md)") from None
    return torch


def layers(torch: Any) -> tuple[Any, Any, Any]:
    """The spikes' building blocks: ``cbr`` (a convolution, batch norm and ReLU; ``d``: dilation), ``dw`` (a
    depthwise 3x3, then a pointwise ``cbr``) and ``up`` (bilinear resize of ``x`` to ``ref``'s size)."""
    nn = torch.nn

    def cbr(i: int, o: int, s: int = 1, k: int = 3, g: int = 1, d: int = 1) -> Any:
        return nn.Sequential(
            nn.Conv2d(i, o, k, s, d * (k // 2), dilation=d, groups=g, bias=False), nn.BatchNorm2d(o), nn.ReLU(True)
        )

    def dw(i: int, o: int, s: int = 1, d: int = 1) -> Any:
        return nn.Sequential(cbr(i, i, s, 3, i, d), cbr(i, o, 1, 1))

    def up(x: Any, ref: Any) -> Any:
        return nn.functional.interpolate(x, size=ref.shape[2:], mode="bilinear", align_corners=False)

    return cbr, dw, up


def to_quarter(torch: Any, up: Any, net: Any, x: Any) -> tuple[Any, Any]:
    """The spikes' shared encoder (``net.e1``-``e4``, down to 1/16 of the input) and the decoder's first two steps
    (``net.d3``, ``net.d2``, back to 1/4) on ``x``: the features at 1/4, and ``e1``'s at 1/2 for a decoder that goes
    on."""
    x1 = net.e1(x)
    x2 = net.e2(x1)
    x3 = net.e3(x2)
    y = net.d3(torch.cat([up(net.e4(x3), x3), x3], 1))
    return net.d2(torch.cat([up(y, x2), x2], 1)), x1


def as_input(images: np.ndarray) -> np.ndarray:
    """uint8 images (H, W, 3), or a batch of them (N, H, W, 3), as the spikes' networks read them: float32, channels
    first, a batch, from -0.5 to 0.5."""
    batch = images[None] if images.ndim == 3 else images
    return np.ascontiguousarray((batch.astype(np.float32) / 255.0 - 0.5).transpose(0, 3, 1, 2))


def new_counts() -> dict[str, int]:
    """What ``tally`` adds up, at nought."""
    return {"cards": 0, "found": 0, "found_snapped": 0, "false_snapped": 0, "located": 0, "frames": 0}


def _nets(torch: Any) -> dict[str, Any]:
    """``SegNet``: a separable U-Net whose mask is at the input's size (``stride`` 1, what ``train`` trains), or at a
    half or a quarter of it (its decoder stopping early)."""
    nn = torch.nn
    cbr, dw, up = layers(torch)

    class SegNet(nn.Module):  # type: ignore[misc]
        def __init__(self, c: tuple[int, ...] = (12, 16, 32, 48), stride: int = 1) -> None:
            super().__init__()
            self.stride = stride  # the mask at 1/stride of the input's size: 1, 2 or 4
            self.e1, self.e2, self.e3 = cbr(3, c[0], 2), dw(c[0], c[1], 2), dw(c[1], c[2], 2)
            self.e4 = nn.Sequential(dw(c[2], c[3], 2), dw(c[3], c[3]), dw(c[3], c[3]))
            self.d3, self.d2 = dw(c[3] + c[2], c[2]), dw(c[2] + c[1], c[1])
            self.d1 = dw(c[1] + c[0], c[0]) if stride <= 2 else None
            self.d0 = cbr(c[0] + 3, 8) if stride == 1 else None
            self.head = nn.Conv2d({1: 8, 2: c[0], 4: c[1]}[stride], 1, 1)

        def forward(self, x: Any) -> Any:
            y, x1 = to_quarter(torch, up, self, x)
            if self.stride <= 2:
                y = self.d1(torch.cat([up(y, x1), x1], 1))
            if self.stride == 1:
                y = self.d0(torch.cat([up(y, x), x], 1))
            return self.head(y)

    return {"SegNet": SegNet}


def _export(torch: Any, model: Any, width: int, height: int, path: Path, *, any_batch: bool = False) -> None:
    """``model`` as ONNX at ``path`` for one ``width`` x ``height`` image, or (``any_batch``) any number of them."""
    model.eval()
    axes = {"x": {0: "n"}} if any_batch else None
    torch.onnx.export(
        model,
        torch.zeros(1, 3, height, width),
        str(path),
        opset_version=17,
        dynamo=False,
        input_names=["x"],
        dynamic_axes=axes,
    )


def median_ms(session: ort.InferenceSession, feed: dict[str, np.ndarray], runs: int = 50) -> float:
    """The median ms of ``runs`` runs of ``session`` on ``feed``, after five to warm it."""
    for _ in range(5):
        session.run(None, feed)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        session.run(None, feed)
        times.append(time.perf_counter() - t0)
    return round(1000 * float(np.median(times)), 2)


def cosine_rate(start: float, elapsed: float, budget: float) -> float:
    """The learning rate ``elapsed`` seconds into a run of ``budget`` seconds: from ``start`` down a cosine."""
    return start * 0.5 * (1 + float(np.cos(np.pi * min(1.0, elapsed / budget)))) + 1e-5


def _session(path: Path) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def cost() -> list[dict[str, Any]]:
    torch = _torch()
    seg = _nets(torch)["SegNet"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for widths in ((12, 16, 32, 48), (16, 24, 48, 64)):
            for stride in (4, 2, 1):
                model = seg(widths, stride)
                for width, height in ((320, 180), (640, 360)):
                    path = Path(tmp) / "net.onnx"
                    _export(torch, model, width, height, path)
                    session = _session(path)
                    feed = {session.get_inputs()[0].name: np.random.rand(1, 3, height, width).astype(np.float32)}
                    rows.append(
                        {
                            "channels": widths,
                            "mask": f"1/{stride} of the input",
                            "input": f"{width}x{height}",
                            "params": sum(p.numel() for p in model.parameters()),
                            "ms": median_ms(session, feed),
                        }
                    )
    return rows


def card_mask(cards: list[tuple[str, np.ndarray]], scale: float = 0.25) -> np.ndarray:
    """The interiors of ``cards`` (full-resolution outlines), shrunk, at ``scale``."""
    mask = np.zeros((INPUT[1], INPUT[0]), np.uint8)
    for _, quad in cards:
        q = np.asarray(quad, np.float64).reshape(4, 2) * scale
        centre = q.mean(axis=0)
        inner = centre + (q - centre) * (1 - 2 * SHRINK)
        cv2.fillConvexPoly(mask, np.round(inner * 16).astype(np.int32), 1, cv2.LINE_AA, 4)
    return mask


_DECKS: dict[str, Any] = {}


def training_scenes(seed: int, count: int, salt: int) -> Iterator[Any]:
    """``count`` scenes of the training designs from the generator seeded [``seed``, ``salt``]: half realistic, half
    hard, a tenth with no card on a cluttered table."""
    from models.training import designs
    from models.training.evaluate import HARD, NORMAL
    from models.training.synth import SceneSpec, make_scene

    if not _DECKS:
        _DECKS.update(designs.training_decks())
    names = sorted(_DECKS)
    rng = np.random.default_rng([seed, salt])
    for _ in range(count):
        spec = NORMAL if rng.random() < 0.5 else HARD
        if rng.random() < 0.1:
            spec = SceneSpec(n_cards=0, clutter=4)
        deck = _DECKS[names[int(rng.integers(len(names)))]]
        yield make_scene(rng, deck if spec.n_cards else None, spec)


def _scenes(job: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    images, masks = [], []
    for scene in training_scenes(*job, salt=777):
        images.append(cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA))
        masks.append(card_mask(scene.cards))
    return np.stack(images), np.stack(masks)


def train(scenes: int, minutes: float, out: Path) -> dict[str, Any]:
    torch = _torch()
    t0 = time.time()
    with Pool(2) as pool:
        parts = pool.map(_scenes, [(seed, 25) for seed in range(max(1, scenes // 25))])
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    made = time.time() - t0
    torch.set_num_threads(2)
    model = _nets(torch)["SegNet"]()
    opt = torch.optim.AdamW(model.parameters(), 3e-3, weight_decay=1e-4)
    rng = np.random.default_rng(0)
    t0, steps, batch, budget = time.time(), 0, 16, minutes * 60
    while time.time() - t0 < budget:
        idx = rng.integers(0, len(x), batch)
        xb, yb = x[idx].astype(np.float32) / 255.0, y[idx].astype(np.float32)
        if rng.random() < 0.5:
            xb, yb = xb[:, :, ::-1], yb[:, :, ::-1]
        if rng.random() < 0.5:
            xb, yb = xb[:, ::-1], yb[:, ::-1]
        gain = rng.uniform(0.7, 1.3, (batch, 1, 1, 1)) * rng.uniform(0.9, 1.1, (batch, 1, 1, 3))
        xb = np.clip(xb * gain, 0, 1).astype(np.float32)
        xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)) - 0.5)
        yt = torch.from_numpy(np.ascontiguousarray(yb))[:, None]
        for group in opt.param_groups:
            group["lr"] = cosine_rate(3e-3, time.time() - t0, budget)
        logit = model(xt)
        p = torch.sigmoid(logit)
        loss = (
            torch.nn.functional.binary_cross_entropy_with_logits(logit, yt)
            + 1
            - (2 * (p * yt).sum() + 1) / (p.sum() + yt.sum() + 1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
    torch.save(model.state_dict(), out)
    return {
        "scenes": len(x),
        "scenes_s": round(made, 1),
        "steps": steps,
        "train_s": round(time.time() - t0, 1),
        "last_loss": round(loss.item(), 4),
        "model": str(out),
    }


def outlines(prob: np.ndarray, threshold: float = 0.5) -> list[np.ndarray]:
    """Full-resolution outlines of the mask's blobs, grown back by ``SHRINK``, their corners in the detector's order
    (``vision.rectify.order_corners``: the benchmarks' match compares corners in that order)."""
    from vision.quads import fit_quad, refine_sides
    from vision.rectify import order_corners

    contours, _ = cv2.findContours((prob > threshold).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for contour in contours:
        if cv2.contourArea(contour) < 30:
            continue
        fitted = fit_quad(contour)
        q = (
            cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)
            if fitted is None
            else refine_sides(fitted[1], fitted[0])
        )
        centre = q.mean(axis=0)
        out.append(order_corners(((centre + (q - centre) / (1 - 2 * SHRINK)) * 4).astype(np.float32)))
    return out


def located(truth: np.ndarray, quads: list[np.ndarray]) -> bool:
    width = float(min(np.linalg.norm(truth[0] - truth[1]), np.linalg.norm(truth[1] - truth[2])))
    t = np.float32(truth)
    for q in quads:
        if np.linalg.norm(q.mean(axis=0) - t.mean(axis=0)) > 0.3 * width:
            continue
        shared = cv2.intersectConvexConvex(t, np.float32(q))[0]
        if shared / (cv2.contourArea(t) + cv2.contourArea(np.float32(q)) - shared) > 0.7:
            return True
    return False


def evaluate(model_path: Path, kind: str, scenes: int, seed: int) -> dict[str, Any]:
    from models.training import designs
    from models.training.evaluate import held_out_scenes, kind_spec
    from vision.snapping import snap_to_edges

    torch = _torch()
    cv2.setNumThreads(1)
    model = _nets(torch)["SegNet"]()
    model.load_state_dict(torch.load(model_path))
    with tempfile.TemporaryDirectory() as tmp:
        _export(torch, model, *INPUT, Path(tmp) / "seg.onnx")
        session = _session(Path(tmp) / "seg.onnx")
    name = session.get_inputs()[0].name
    spec, at = kind_spec(kind, seed)
    counts = new_counts()
    times: dict[str, list[float]] = {"resize": [], "network": [], "outlines": [], "snap": []}
    for _, scene in held_out_scenes(designs.held_out_decks(), spec, scenes, at):
        t0 = time.perf_counter()
        small = cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA)
        t1 = time.perf_counter()
        logit = session.run(None, {name: as_input(small)})[0]
        t2 = time.perf_counter()
        quads = outlines(1 / (1 + np.exp(-logit[0, 0])))
        t3 = time.perf_counter()
        snapped = snap_to_edges(scene.image, quads) if quads else []
        t4 = time.perf_counter()
        for key, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            times[key].append(1000 * dt)
        tally(counts, scene.cards, quads, snapped)
    return {"kind": kind, "seed": seed, **counts, **medians(times)}


def tally(
    counts: dict[str, int], cards: list[tuple[str, np.ndarray]], quads: list[np.ndarray], snapped: list[np.ndarray]
) -> None:
    """Add one frame to ``counts``: its true ``cards``, those the outlines (``quads``) and the snapped outlines find
    (the recognition benchmark's match), the snapped ones that match no card, and the cards ``located``."""
    from models.training.evaluate import matched_outlines

    matched = matched_outlines(cards, snapped)
    counts["frames"] += 1
    counts["cards"] += len(cards)
    counts["found"] += sum(i is not None for i in matched_outlines(cards, quads))
    counts["found_snapped"] += sum(i is not None for i in matched)
    counts["false_snapped"] += len(snapped) - len({i for i in matched if i is not None})
    counts["located"] += sum(located(np.asarray(q), quads) for _, q in cards)


def medians(times: dict[str, list[float]]) -> dict[str, Any]:
    """Each step's median ms a frame, and the median of their sum."""
    return {
        "ms_median": {k: round(float(np.median(v)), 2) for k, v in times.items()},
        "ms_median_total": round(float(np.median(np.sum(list(times.values()), axis=0))), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("cost")
    t = sub.add_parser("train")
    t.add_argument("--scenes", type=int, default=4000)
    t.add_argument("--minutes", type=float, default=20.0)
    t.add_argument("--out", type=Path, required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("--model", type=Path, required=True)
    e.add_argument("--kind", choices=("realistic", "hard"), default="realistic")
    e.add_argument("--scenes", type=int, default=10, help="scenes a held-out design")
    e.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    if args.command == "cost":
        for row in cost():
            print(row, flush=True)
    elif args.command == "train":
        print(train(args.scenes, args.minutes, args.out))
    else:
        print(evaluate(args.model, args.kind, args.scenes, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
