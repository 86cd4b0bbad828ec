"""A learned card detector that places each card by its centre and four corners: the next step after
``segmentation_spike.py`` (whose masks placed most cards, but not their corners). A spike for issue 5's speed target;
nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/keypoint_spike.py cost
    .venv/bin/python benchmarks/keypoint_spike.py scenes --scenes 4000 --out /tmp/kp_scenes.npz
    .venv/bin/python benchmarks/keypoint_spike.py train --data /tmp/kp_scenes.npz --minutes 30 --out /tmp/kp.pt
    .venv/bin/python benchmarks/keypoint_spike.py evaluate --model /tmp/kp.pt --kind realistic --scenes 10

* The network (``CentreNet``) reads the frame at a quarter of its size (320x180) and answers on a grid at a quarter of
  that (80x45, one cell per 16 frame pixels): per cell, how likely a card's centre lies in it (a heatmap, trained
  with CenterNet's focal loss on a Gaussian per card) and the card's four corners relative to the cell's centre (in
  clockwise order, trained with the smallest L1 loss over the four cyclic orders, so a card's turn does not matter).
  Cards a few pixels apart have centres a card's width apart, so no mask has to keep them apart.
* ``scenes``: quarter-size scenes of the training designs (``models.training.synth.make_scene``: half realistic, half
  hard, a tenth with no cards) and their cards' corners, drawn once and kept in a file (drawing is the slow part).
* ``train``: ``--minutes`` of training on them (two threads, batch 16, AdamW, cosine rate, flips and colour gain).
* ``evaluate``: the held-out designs' scenes as ``models.training.evaluate`` deals them. Each heatmap peak over
  ``--threshold`` gives an outline (its corners times four, in the detector's corner order), then
  ``vision.snapping.snap_to_edges`` moves its sides onto the frame's edges. Counted as in ``segmentation_spike``:
  cards found (the recognition benchmark's match: corners within 12% of the card's width), false outlines, cards
  located, and the median ms of each step (one thread).

Needs torch (the training extra, models/README.md) for everything but reading a scenes file, and the Debian designs
for ``scenes`` and ``evaluate``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.segmentation_spike import INPUT, _export, _session, _torch, located  # noqa: E402

STRIDE = 4
"""Grid cells per input pixel: the answer at 80x45 for a 320x180 input."""
GRID = (INPUT[0] // STRIDE, INPUT[1] // STRIDE + (INPUT[1] % STRIDE > 0))
CORNER_SCALE = 32.0
"""Corner offsets are learned in units of this many input pixels (a card is 20-75 input pixels wide)."""


def _nets(torch: Any) -> dict[str, Any]:
    """``CentreNet``: a separable encoder to 1/16 of the input, decoded back to 1/4 (the grid), with a heatmap head
    (one channel, logits) and a corner head (eight channels: four corners' x, y offsets from the cell's centre)."""
    nn = torch.nn

    def cbr(i: int, o: int, s: int = 1, k: int = 3, g: int = 1, d: int = 1) -> Any:
        return nn.Sequential(nn.Conv2d(i, o, k, s, d * (k // 2), dilation=d, groups=g, bias=False),
                             nn.BatchNorm2d(o), nn.ReLU(True))

    def dw(i: int, o: int, s: int = 1, d: int = 1) -> Any:  # depthwise 3x3, then pointwise
        return nn.Sequential(cbr(i, i, s, 3, i, d), cbr(i, o, 1, 1))

    def up(x: Any, ref: Any) -> Any:
        return nn.functional.interpolate(x, size=ref.shape[2:], mode="bilinear", align_corners=False)

    class CentreNet(nn.Module):  # type: ignore[misc]
        def __init__(self, c: tuple[int, ...] = (12, 24, 40, 64)) -> None:
            super().__init__()
            self.e1, self.e2, self.e3 = cbr(3, c[0], 2), dw(c[0], c[1], 2), dw(c[1], c[2], 2)
            # a card's centre cell must see the whole card (up to ~110 input pixels long): dilated layers at 1/16
            self.e4 = nn.Sequential(dw(c[2], c[3], 2), dw(c[3], c[3], d=2), dw(c[3], c[3], d=4))
            self.d3, self.d2 = dw(c[3] + c[2], c[2]), dw(c[2] + c[1], c[2])
            self.heat = nn.Sequential(cbr(c[2], 24, 1, 1), nn.Conv2d(24, 1, 1))
            self.corners = nn.Sequential(cbr(c[2], 32, 1, 1), nn.Conv2d(32, 8, 1))
            self.heat[-1].bias.data.fill_(-4.0)  # CenterNet's start: almost no cell is a centre

        def forward(self, x: Any) -> Any:
            x1 = self.e1(x)
            x2 = self.e2(x1)
            x3 = self.e3(x2)
            y = self.d3(torch.cat([up(self.e4(x3), x3), x3], 1))
            y = self.d2(torch.cat([up(y, x2), x2], 1))
            return torch.cat([self.heat(y), self.corners(y)], 1)

    return {"CentreNet": CentreNet}


def cost() -> list[dict[str, Any]]:
    torch = _torch()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for widths in ((12, 24, 40, 64), (16, 32, 48, 96)):
            model = _nets(torch)["CentreNet"](widths)
            path = Path(tmp) / "net.onnx"
            _export(torch, model, *INPUT, path)
            session = _session(path)
            feed = {session.get_inputs()[0].name: np.random.rand(1, 3, INPUT[1], INPUT[0]).astype(np.float32)}
            for _ in range(5):
                session.run(None, feed)
            times = []
            for _ in range(50):
                t0 = time.perf_counter()
                session.run(None, feed)
                times.append(time.perf_counter() - t0)
            rows.append({"channels": widths, "input": f"{INPUT[0]}x{INPUT[1]}", "grid": f"{GRID[0]}x{GRID[1]}",
                         "params": sum(p.numel() for p in model.parameters()),
                         "ms": round(1000 * float(np.median(times)), 2)})
    return rows


def clockwise(quad: np.ndarray) -> np.ndarray:
    """``quad``'s corners in clockwise order on the screen (y down), starting anywhere."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    centre = q.mean(axis=0)
    return q[np.argsort(np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0]))]


def targets(quads: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training targets on the grid for one scene's cards (input-scale corners): the heatmap (a Gaussian per card
    about its centre cell, the larger where two meet), the corners (8, H, W; offsets from each cell's centre in
    ``CORNER_SCALE`` units, clockwise) and their weight (the heatmap where it is over 0.3: cells near a centre)."""
    w, h = GRID
    heat = np.zeros((h, w), np.float32)
    corners = np.zeros((8, h, w), np.float32)
    owner = np.zeros((h, w), np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cell_x, cell_y = (xs + 0.5) * STRIDE, (ys + 0.5) * STRIDE
    for quad in quads:
        q = clockwise(quad)
        centre = q.mean(axis=0) / STRIDE
        short = min(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[1] - q[2]))) / STRIDE
        sigma = max(0.6, short / 6)
        cx, cy = np.floor(centre).astype(int)
        if not (0 <= cx < w and 0 <= cy < h):
            continue
        g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
        mine = g > owner  # a cell between two cards learns the nearer one's corners
        owner = np.where(mine, g, owner)
        heat = np.maximum(heat, g)
        for k in range(4):
            corners[2 * k] = np.where(mine, (q[k, 0] - cell_x) / CORNER_SCALE, corners[2 * k])
            corners[2 * k + 1] = np.where(mine, (q[k, 1] - cell_y) / CORNER_SCALE, corners[2 * k + 1])
    weight = np.where(owner > 0.3, owner, 0.0).astype(np.float32)
    return heat, corners, weight


_DECKS: dict[str, Any] = {}


def _draw(job: tuple[int, int]) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    from models.training import designs
    from models.training.evaluate import HARD, NORMAL
    from models.training.synth import SceneSpec, make_scene

    seed, count = job
    if not _DECKS:
        _DECKS.update(designs.training_decks())
    names = sorted(_DECKS)
    rng = np.random.default_rng([seed, 778])
    images, cards = [], []
    for _ in range(count):
        spec = NORMAL if rng.random() < 0.5 else HARD
        if rng.random() < 0.1:
            spec = SceneSpec(n_cards=0, clutter=4)
        deck = _DECKS[names[int(rng.integers(len(names)))]]
        scene = make_scene(rng, deck if spec.n_cards else None, spec)
        images.append(cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA))
        cards.append([np.asarray(q, np.float32).reshape(4, 2) * (INPUT[0] / scene.image.shape[1]) for _, q in scene.cards])
    return np.stack(images), cards


def draw_scenes(scenes: int, out: Path) -> dict[str, Any]:
    """``scenes`` training scenes and their cards' corners into ``out`` (.npz: images, corners, counts)."""
    t0 = time.time()
    with Pool(2) as pool:
        parts = pool.map(_draw, [(seed, 25) for seed in range(max(1, scenes // 25))])
    images = np.concatenate([p[0] for p in parts])
    cards = [c for p in parts for c in p[1]]
    counts = np.array([len(c) for c in cards], np.int32)
    corners = np.concatenate([np.stack(c) for c in cards if c]).astype(np.float32)
    np.savez(out, images=images, corners=corners, counts=counts)
    return {"scenes": len(images), "cards": int(counts.sum()), "seconds": round(time.time() - t0, 1), "file": str(out)}


def _load(path: Path) -> tuple[np.ndarray, list[np.ndarray]]:
    data = np.load(path)
    starts = np.concatenate([[0], np.cumsum(data["counts"])])
    quads = [data["corners"][a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]
    return data["images"], quads


def _flip(quads: np.ndarray, horizontal: bool, vertical: bool) -> np.ndarray:
    q = quads.copy()
    if horizontal:
        q[..., 0] = INPUT[0] - q[..., 0]
    if vertical:
        q[..., 1] = INPUT[1] - q[..., 1]
    return q


def train(data: Path, minutes: float, out: Path, widths: tuple[int, ...] = (16, 32, 48, 96)) -> dict[str, Any]:
    torch = _torch()
    images, quads = _load(data)
    torch.set_num_threads(2)
    model = _nets(torch)["CentreNet"](widths)
    opt = torch.optim.AdamW(model.parameters(), 3e-3, weight_decay=1e-4)
    rng = np.random.default_rng(0)
    t0, steps, batch, budget = time.time(), 0, 16, minutes * 60
    losses: list[float] = []
    while time.time() - t0 < budget:
        idx = rng.integers(0, len(images), batch)
        flip_h, flip_v = rng.random() < 0.5, rng.random() < 0.5
        xb = images[idx].astype(np.float32) / 255.0
        if flip_h:
            xb = xb[:, :, ::-1]
        if flip_v:
            xb = xb[:, ::-1]
        gain = rng.uniform(0.7, 1.3, (batch, 1, 1, 1)) * rng.uniform(0.9, 1.1, (batch, 1, 1, 3))
        xb = np.clip(xb * gain, 0, 1).astype(np.float32)
        made = [targets(list(_flip(quads[i], flip_h, flip_v))) for i in idx]
        heat_t = torch.from_numpy(np.stack([m[0] for m in made]))[:, None]
        corner_t = torch.from_numpy(np.stack([m[1] for m in made]))
        weight = torch.from_numpy(np.stack([m[2] for m in made]))[:, None]
        xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)) - 0.5)
        for group in opt.param_groups:
            group["lr"] = 3e-3 * 0.5 * (1 + np.cos(np.pi * min(1.0, (time.time() - t0) / budget))) + 1e-5
        y = model(xt)
        p = torch.sigmoid(y[:, :1]).clamp(1e-4, 1 - 1e-4)
        centre = (heat_t > 0.999).float()  # CenterNet's focal loss: the centre cell is 1, the rest weighed down
        focal = -(centre * (1 - p) ** 2 * torch.log(p)
                  + (1 - centre) * (1 - heat_t) ** 4 * p**2 * torch.log(1 - p)).sum() / centre.sum().clamp(min=1)
        pred = y[:, 1:]
        # the smallest L1 over the four cyclic orders of the predicted corners
        shifts = torch.stack([torch.roll(pred, -2 * k, dims=1) for k in range(4)])  # (4, B, 8, H, W)
        l1 = (shifts - corner_t[None]).abs().sum(dim=2, keepdim=True).min(dim=0).values  # (B, 1, H, W)
        corner_loss = (l1 * weight).sum() / weight.sum().clamp(min=1)
        loss = focal + corner_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
        losses.append(loss.item())
    torch.save({"widths": widths, "state": model.state_dict()}, out)
    return {"scenes": len(images), "steps": steps, "train_s": round(time.time() - t0, 1),
            "loss_last_100": round(float(np.mean(losses[-100:])), 4), "model": str(out)}


def outlines(out: np.ndarray, threshold: float) -> list[np.ndarray]:
    """Full-resolution outlines from one frame's answer (9, H, W: heatmap logits, corner offsets): one per heatmap
    peak (the largest in its 3x3) over ``threshold``, corners in the detector's order."""
    from vision.rectify import order_corners

    heat = 1 / (1 + np.exp(-out[0]))
    peaks = (heat >= threshold) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    quads = []
    for y, x in zip(*np.nonzero(peaks), strict=True):
        offsets = out[1:, y, x].reshape(4, 2) * CORNER_SCALE
        q = (np.array([(x + 0.5) * STRIDE, (y + 0.5) * STRIDE], np.float32) + offsets) * (1280 / INPUT[0])
        if cv2.contourArea(q.astype(np.float32)) > 0:
            quads.append(order_corners(q.astype(np.float32)))
    return quads


def evaluate(model_path: Path, kind: str, scenes: int, seed: int, threshold: float) -> dict[str, Any]:
    from models.training import designs
    from models.training.evaluate import held_out_scenes, kind_spec, matched_outlines
    from vision.snapping import snap_to_edges

    torch = _torch()
    cv2.setNumThreads(1)
    saved = torch.load(model_path)
    model = _nets(torch)["CentreNet"](saved["widths"])
    model.load_state_dict(saved["state"])
    with tempfile.TemporaryDirectory() as tmp:
        _export(torch, model, *INPUT, Path(tmp) / "kp.onnx")
        session = _session(Path(tmp) / "kp.onnx")
    name = session.get_inputs()[0].name
    spec, at = kind_spec(kind, seed)
    counts = {"cards": 0, "found": 0, "found_snapped": 0, "false_snapped": 0, "found_snapped_twice": 0,
              "located": 0, "frames": 0}
    times: dict[str, list[float]] = {"resize": [], "network": [], "outlines": [], "snap": []}
    for _, scene in held_out_scenes(designs.held_out_decks(), spec, scenes, at):
        t0 = time.perf_counter()
        small = cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA)
        t1 = time.perf_counter()
        answer = session.run(None, {name: (small.astype(np.float32) / 255.0 - 0.5).transpose(2, 0, 1)[None]})[0]
        t2 = time.perf_counter()
        quads = outlines(answer[0], threshold)
        t3 = time.perf_counter()
        snapped = snap_to_edges(scene.image, quads) if quads else []
        t4 = time.perf_counter()
        for key, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            times[key].append(1000 * dt)
        matched = matched_outlines(scene.cards, snapped)
        counts["frames"] += 1
        counts["cards"] += len(scene.cards)
        counts["found"] += sum(i is not None for i in matched_outlines(scene.cards, quads))
        counts["found_snapped"] += sum(i is not None for i in matched)
        counts["false_snapped"] += len(snapped) - len({i for i in matched if i is not None})
        twice = snap_to_edges(scene.image, snapped) if snapped else []  # reaches twice as far from the network's
        counts["found_snapped_twice"] += sum(i is not None for i in matched_outlines(scene.cards, twice))
        counts["located"] += sum(located(np.asarray(q), quads) for _, q in scene.cards)
    return {"kind": kind, "seed": seed, "threshold": threshold, **counts,
            "ms_median": {k: round(float(np.median(v)), 2) for k, v in times.items()},
            "ms_median_total": round(float(np.median(np.sum(list(times.values()), axis=0))), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("cost")
    s = sub.add_parser("scenes")
    s.add_argument("--scenes", type=int, default=4000)
    s.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--minutes", type=float, default=30.0)
    t.add_argument("--out", type=Path, required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("--model", type=Path, required=True)
    e.add_argument("--kind", choices=("realistic", "hard"), default="realistic")
    e.add_argument("--scenes", type=int, default=10, help="scenes a held-out design")
    e.add_argument("--seed", type=int, default=2024)
    e.add_argument("--threshold", type=float, default=0.3, help="the heatmap's least peak for a card")
    args = parser.parse_args()
    if args.command == "cost":
        for row in cost():
            print(row, flush=True)
    elif args.command == "scenes":
        print(draw_scenes(args.scenes, args.out))
    elif args.command == "train":
        print(train(args.data, args.minutes, args.out))
    else:
        print(evaluate(args.model, args.kind, args.scenes, args.seed, args.threshold))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
