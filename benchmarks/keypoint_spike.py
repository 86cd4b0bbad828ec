"""A learned card detector that places each card by its centre, then moves its corners with a second network: the next
step after ``segmentation_spike.py`` (whose masks placed most cards, but not their corners). A spike for issue 5's
speed target; nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/keypoint_spike.py cost
    .venv/bin/python benchmarks/keypoint_spike.py scenes --scenes 4000 [--first-seed 0] --out /tmp/kp_scenes.npz
    .venv/bin/python benchmarks/keypoint_spike.py train --data /tmp/kp_scenes.npz [...] --minutes 35 --out /tmp/kp.pt \
        [--init /tmp/kp.pt --rate 1e-3]
    .venv/bin/python benchmarks/keypoint_spike.py train-refiner --data /tmp/kp_scenes.npz --minutes 10 --out /tmp/ref.pt
    \
        [--far-share 0.33]
    .venv/bin/python benchmarks/keypoint_spike.py evaluate --model /tmp/kp.pt [--refiner /tmp/ref.pt] \
        --kind realistic|hard|clutter --scenes 10 [--threshold 0.3] [--support 0.6] [--passes 1]

* The first stage (``CentreNet``) reads the frame at a quarter of its size (320x180) and answers on a grid at a
  quarter of that (80x45, one cell per 16 frame pixels): per cell, how likely a card's centre lies in it (a heatmap,
  trained with CenterNet's focal loss on a Gaussian per card) and the card's four corners relative to the cell's
  centre (clockwise, trained with the smallest L1 loss over the four cyclic orders, so a card's turn does not
  matter). Cards a few pixels apart have centres a card's width apart, so no mask has to keep them apart.
* The second stage (``RefineNet``, ``train-refiner``) rectifies the network's input under each rough outline onto a
  square inside a 48 px patch (``patch_of``) and answers where the card's true corners lie there (``true_offsets``).
  It learns from the true outlines moved about as much as the first stage's corners are off (``rough``).
* ``scenes``: quarter-size scenes of the training designs (``models.training.synth.make_scene``: half realistic, half
  hard, a tenth with no cards) and their cards' corners, drawn once and kept in a file (drawing is the slow part).
* ``train`` / ``train-refiner``: ``--minutes`` of training on them (two threads, AdamW, cosine rate; the first stage
  with flips and colour gain, batch 16; the second with colour gain, batch 64).
* ``evaluate``: the held-out designs' scenes as ``models.training.evaluate`` deals them (``--kind clutter``: frames
  with no card, as its ``clutter_only`` draws them). Each heatmap peak over ``--threshold`` gives an outline, moved by
  the refiner when one is given, then ``vision.snapping.snap_to_edges`` moves its sides onto the full-resolution
  frame's edges. Counted as in ``segmentation_spike``: cards found (the recognition benchmark's match: corners within
  12% of the card's width), false outlines, cards located, the median ms of each step (one thread), and how far the
  first stage's and the final outlines' corners lie from the cards (``corner_error``).

Needs torch (the training extra, models/README.md) for everything but reading a scenes file, and the Debian designs
for ``scenes`` and ``evaluate``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.segmentation_spike import (  # noqa: E402
    INPUT,
    _export,
    _session,
    _torch,
    as_input,
    cosine_rate,
    layers,
    median_ms,
    medians,
    new_counts,
    tally,
    to_quarter,
)
from benchmarks.sim_scenes import SOURCES, scenes_from  # noqa: E402
from vision.learned_outlines import (  # noqa: E402,F401  (the shipped detector's; the spikes' tests import them here)
    CORNER_SCALE,
    MARGIN,
    PATCH,
    REFINE_SCALE,
    SQUARE,
    STRIDE,
    answer_patches,
    clockwise,
    clockwise_all,
    from_patch,
    patch_of,
    peak_corners,
)

FRAME_SCALE = 1280 / INPUT[0]
"""Frame pixels per input pixel: the spike reads 1280x720 frames at 320x180."""
GRID = (INPUT[0] // STRIDE, INPUT[1] // STRIDE + (INPUT[1] % STRIDE > 0))


def _nets(torch: Any) -> dict[str, Any]:
    """``CentreNet``: a separable encoder to 1/16 of the input, decoded back to 1/4 (the grid), with a heatmap head
    (one channel, logits) and a corner head (eight channels: four corners' x, y offsets from the cell's centre)."""
    nn = torch.nn
    cbr, dw, up = layers(torch)

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
            y = to_quarter(torch, up, self, x)[0]
            return torch.cat([self.heat(y), self.corners(y)], 1)

    class RefineNet(nn.Module):  # type: ignore[misc]
        """The second stage: from a ``PATCH``-square patch rectified from a card's rough outline, the card's four
        corners as offsets from where the outline put them (``patch_of``), in units of ``REFINE_SCALE`` px."""

        def __init__(self, c: tuple[int, ...] = (16, 32, 64), outputs: int = 8) -> None:
            super().__init__()
            self.body = nn.Sequential(
                cbr(3, c[0], 2), dw(c[0], c[1], 2), dw(c[1], c[2], 2), dw(c[2], c[2]), nn.Conv2d(c[2], 16, 1)
            )
            self.fc = nn.Linear(16 * (PATCH // 8) ** 2, outputs)  # (keypoint_cascade: a ninth, card or not)

        def forward(self, x: Any) -> Any:
            return self.fc(self.body(x).flatten(1))

    return {"CentreNet": CentreNet, "RefineNet": RefineNet}


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
            rows.append(
                {
                    "channels": widths,
                    "input": f"{INPUT[0]}x{INPUT[1]}",
                    "grid": f"{GRID[0]}x{GRID[1]}",
                    "params": sum(p.numel() for p in model.parameters()),
                    "ms": median_ms(session, feed),
                }
            )
    return rows


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


def _draw(job: tuple[int, int, str]) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    seed, count, source = job
    images, cards = [], []
    for scene in scenes_from(source, seed, count, salt=778):
        images.append(cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA))
        cards.append(
            [np.asarray(q, np.float32).reshape(4, 2) * (INPUT[0] / scene.image.shape[1]) for _, q in scene.cards]
        )
    return np.stack(images), cards


def draw_scenes(scenes: int, out: Path, first: int = 0, source: str = "synth") -> dict[str, Any]:
    """``scenes`` training scenes and their cards' corners into ``out`` (.npz: images, corners, counts), drawn 25 at a
    time from the seeds ``first`` on (another file from other seeds holds other scenes); ``source``:
    ``benchmarks.sim_scenes.SOURCES``."""
    t0 = time.time()
    with Pool(2) as pool:
        parts = pool.map(_draw, [(seed, 25, source) for seed in range(first, first + max(1, scenes // 25))])
    images = np.concatenate([p[0] for p in parts])
    cards = [c for p in parts for c in p[1]]
    counts = np.array([len(c) for c in cards], np.int32)
    corners = np.concatenate([np.stack(c) for c in cards if c]).astype(np.float32)
    np.savez(out, images=images, corners=corners, counts=counts)
    return {"scenes": len(images), "cards": int(counts.sum()), "seconds": round(time.time() - t0, 1), "file": str(out)}


def _load(paths: list[Path]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The scenes of every file ``draw_scenes`` wrote, one after another."""
    images, quads = [], []
    for path in paths:
        data = np.load(path)
        starts = np.concatenate([[0], np.cumsum(data["counts"])])
        quads += [data["corners"][a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]
        images.append(data["images"])
    return np.concatenate(images), quads


def _flip(quads: np.ndarray, horizontal: bool, vertical: bool) -> np.ndarray:
    """Input-scale corners as they lie in the input flipped left-right and/or upside down."""
    q = quads.copy()
    if horizontal:
        q[..., 0] = INPUT[0] - q[..., 0]
    if vertical:
        q[..., 1] = INPUT[1] - q[..., 1]
    return q


def train(
    data: list[Path],
    minutes: float,
    out: Path,
    widths: tuple[int, ...] = (16, 32, 48, 96),
    init: Path | None = None,
    rate: float = 3e-3,
) -> dict[str, Any]:
    """``minutes`` of training of the first stage, from scratch or on from the model saved at ``init``; the learning
    rate starts at ``rate`` and falls on a cosine to nothing at the end."""
    torch = _torch()
    images, quads = _load(data)
    torch.set_num_threads(2)
    if init is not None:
        saved = torch.load(init)
        widths = saved["widths"]
    model = _nets(torch)["CentreNet"](widths)
    if init is not None:
        model.load_state_dict(saved["state"])
    opt = torch.optim.AdamW(model.parameters(), rate, weight_decay=1e-4)
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
            group["lr"] = cosine_rate(rate, time.time() - t0, budget)
        y = model(xt)
        p = torch.sigmoid(y[:, :1]).clamp(1e-4, 1 - 1e-4)
        centre = (heat_t > 0.999).float()  # CenterNet's focal loss: the centre cell is 1, the rest weighed down
        focal = -(
            centre * (1 - p) ** 2 * torch.log(p) + (1 - centre) * (1 - heat_t) ** 4 * p**2 * torch.log(1 - p)
        ).sum() / centre.sum().clamp(min=1)
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
    return {
        "scenes": len(images),
        "steps": steps,
        "train_s": round(time.time() - t0, 1),
        "loss_last_100": round(float(np.mean(losses[-100:])), 4),
        "model": str(out),
    }


def patch_net_session(torch: Any, path: Path, outputs: int, folder: Path) -> Any:
    """The patch network (``RefineNet`` with ``outputs`` answers) saved at ``path`` as an onnxruntime session, its
    ONNX file written in ``folder``."""
    model = _nets(torch)["RefineNet"](outputs=outputs)
    model.load_state_dict(torch.load(path)["state"])
    onnx = folder / f"{path.stem}.onnx"
    _export(torch, model, PATCH, PATCH, onnx, any_batch=True)
    return _session(onnx)


def refine(image: np.ndarray, quads: list[np.ndarray], session: Any) -> list[np.ndarray]:
    """``quads`` (clockwise, ``image``'s pixels) with their corners moved where the refiner puts them."""
    if not quads:
        return []
    made = [patch_of(image, q) for q in quads]
    offsets = answer_patches(session, [m[0] for m in made])
    return [from_patch(to_patch, off) for (_, to_patch), off in zip(made, offsets, strict=True)]


def rough(quad: np.ndarray, rng: np.random.Generator, far_share: float = 0.0) -> np.ndarray:
    """``quad`` as the first stage might place it: turned, scaled, shifted and each corner moved, by about what the
    first stage's corners are off (median 7.5% of a card's width, one in ten over 15%: session 40), and a
    ``far_share`` of them twice as far (most cards the refiner missed had been 20-69% off)."""
    q = clockwise(quad).astype(np.float64)
    centre = q.mean(axis=0)
    width = min(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[1] - q[2])))
    far = 2.0 if far_share > 0 and rng.random() < far_share else 1.0
    turn = np.radians(rng.normal(0, 3 * far))
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) * rng.normal(1, 0.04 * far)
    moved = (
        (q - centre) @ rot.T + centre + rng.normal(0, 0.04 * far * width, 2) + rng.normal(0, 0.05 * far * width, (4, 2))
    )
    return moved.astype(np.float32)


def _refiner_batch(
    images: np.ndarray, quads: list[np.ndarray], batch: int, rng: np.random.Generator, far_share: float
) -> tuple[np.ndarray, np.ndarray]:
    """``batch`` patches rectified from rough outlines of random cards, and where their true corners lie there (as
    the refiner answers: offsets from ``SQUARE``'s corners, clockwise from the rough outline's first corner)."""
    with_cards = [i for i, q in enumerate(quads) if len(q)]
    xs, ys = [], []
    while len(xs) < batch:
        i = with_cards[int(rng.integers(len(with_cards)))]
        truth = clockwise(quads[i][int(rng.integers(len(quads[i])))])
        guess = rough(truth, rng, far_share)
        patch, to_patch = patch_of(images[i], guess)
        xs.append(patch)
        ys.append(true_offsets(truth, to_patch))
    return np.stack(xs), np.stack(ys).astype(np.float32)


def true_offsets(truth: np.ndarray, to_patch: np.ndarray) -> np.ndarray:
    """(8,) what a perfect refiner answers for the card whose corners are ``truth`` in the patch ``to_patch`` maps
    into: each true corner's offset from the ``SQUARE`` corner nearest it (the cyclic order nearest the square)."""
    inside = cv2.perspectiveTransform(np.float32(truth).reshape(-1, 1, 2), to_patch).reshape(4, 2)
    shift = min(range(4), key=lambda k: float(np.abs(np.roll(inside, -k, axis=0) - SQUARE).sum()))
    out: np.ndarray = ((np.roll(inside, -shift, axis=0) - SQUARE).ravel() / REFINE_SCALE).astype(np.float32)
    return out


def train_patch_net(
    torch: Any,
    model: Any,
    draw: Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]],
    loss_of: Callable[[Any, Any], Any],
    minutes: float,
    out: Path,
    seed: int,
    rate: float = 3e-3,
    init: Path | None = None,
) -> dict[str, Any]:
    """``minutes`` of training of a network on ``PATCH``-square patches (the refiner, ``keypoint_cascade``'s checker,
    ``keypoint_verifier``'s verifier): two threads, AdamW, a cosine rate from ``rate``, colour gain. ``draw(rng)``
    gives a batch of uint8 patches (B, PATCH, PATCH, 3) and what the network should answer for them, ``loss_of(answer,
    wanted)`` the loss; the state is saved at ``out``. ``init``: a saved state to go on from."""
    if init is not None:
        model.load_state_dict(torch.load(init)["state"])
    torch.set_num_threads(2)
    opt = torch.optim.AdamW(model.parameters(), rate, weight_decay=1e-4)
    rng = np.random.default_rng(seed)
    t0, steps, budget = time.time(), 0, minutes * 60
    losses: list[float] = []
    while time.time() - t0 < budget:
        xb, yb = draw(rng)
        gain = rng.uniform(0.7, 1.3, (len(xb), 1, 1, 1)) * rng.uniform(0.9, 1.1, (len(xb), 1, 1, 3))
        xb = np.clip(xb.astype(np.float32) / 255.0 * gain, 0, 1).astype(np.float32)
        xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)) - 0.5)
        for group in opt.param_groups:
            group["lr"] = cosine_rate(rate, time.time() - t0, budget)
        loss = loss_of(model(xt), torch.from_numpy(yb))
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
        losses.append(loss.item())
    torch.save({"state": model.state_dict()}, out)
    return {
        "steps": steps,
        "train_s": round(time.time() - t0, 1),
        "loss_last_100": round(float(np.mean(losses[-100:])), 4),
        "model": str(out),
    }


def train_refiner(data: list[Path], minutes: float, out: Path, far_share: float = 0.0) -> dict[str, Any]:
    torch = _torch()
    images, quads = _load(data)
    return train_patch_net(
        torch,
        _nets(torch)["RefineNet"](),
        lambda rng: _refiner_batch(images, quads, 64, rng, far_share),
        lambda y, wanted: torch.nn.functional.smooth_l1_loss(y, wanted, beta=0.1),
        minutes,
        out,
        seed=1,
    )


def outlines(out: np.ndarray, threshold: float) -> list[np.ndarray]:
    """Full-resolution outlines from one frame's answer (9, H, W: heatmap logits, corner offsets): one per heatmap
    peak (the largest in its 3x3) over ``threshold``, corners in the detector's order."""
    from vision.rectify import order_corners

    return [order_corners(q) for q in peak_corners(out, threshold)[0]]


def on_edges(frame: np.ndarray, quads: list[np.ndarray], support: float) -> list[np.ndarray]:
    """The full-resolution ``quads`` whose every side lies on edges of the frame at half its size for ``support`` of
    its samples (``vision.quads.weakest_side_support``; Canny as the detector's grey map, dilated 3x3): a coin's,
    a chip's or a hand's outline has no four straight edges."""
    from vision.quads import weakest_side_support

    grey = cv2.cvtColor(
        cv2.resize(frame, (frame.shape[1] // 2, frame.shape[0] // 2), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY
    )
    near = cv2.dilate(cv2.Canny(grey, 40, 120), np.ones((3, 3), np.uint8))
    kept = weakest_side_support([q / 2 for q in quads], near) >= support
    return [q for q, keep in zip(quads, kept, strict=True) if keep]


def evaluation_scenes(kind: str, scenes: int, seed: int) -> Iterator[Any]:
    """The held-out designs' scenes of ``kind`` as ``models.training.evaluate`` deals them, ``scenes`` a design; or
    for "clutter", as many frames with no card on a cluttered table as its ``clutter_only`` draws them."""
    from dataclasses import replace

    from models.training import designs
    from models.training.evaluate import NORMAL, held_out_scenes, kind_spec
    from models.training.synth import make_scene

    if kind == "clutter":
        rng = np.random.default_rng(seed)
        for _ in range(scenes * len(designs.held_out_decks())):
            yield make_scene(rng, None, replace(NORMAL, n_cards=0, clutter=int(rng.integers(2, 7))))
        return
    spec, at = kind_spec(kind, seed)
    for _, scene in held_out_scenes(designs.held_out_decks(), spec, scenes, at):
        yield scene


def export_first_stage(torch: Any, model_path: Path, folder: Path) -> Path:
    """The first stage saved at ``model_path`` (``train``) as ONNX in ``folder``; its path."""
    saved = torch.load(model_path)
    model = _nets(torch)["CentreNet"](saved["widths"])
    model.load_state_dict(saved["state"])
    _export(torch, model, *INPUT, folder / "kp.onnx")
    return folder / "kp.onnx"


def evaluate(
    model_path: Path,
    kind: str,
    scenes: int,
    seed: int,
    threshold: float,
    refiner_path: Path | None = None,
    passes: int = 1,
    support: float = 0.0,
) -> dict[str, Any]:
    from vision.rectify import order_corners
    from vision.snapping import snap_to_edges

    torch = _torch()
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        session = _session(export_first_stage(torch, model_path, Path(tmp)))
        refiner = None if refiner_path is None else patch_net_session(torch, refiner_path, 8, Path(tmp))
    name = session.get_inputs()[0].name
    counts = new_counts()
    times: dict[str, list[float]] = {"resize": [], "network": [], "outlines": [], "snap": []}
    errors: list[tuple[float, float]] = []  # per located card: the first stage's corner error, the final outline's
    for scene in evaluation_scenes(kind, scenes, seed):
        t0 = time.perf_counter()
        small = cv2.resize(scene.image, INPUT, interpolation=cv2.INTER_AREA)
        t1 = time.perf_counter()
        answer = session.run(None, {name: as_input(small)})[0]
        t2 = time.perf_counter()
        quads = first = outlines(answer[0], threshold)
        if refiner is not None:  # the second stage works on the network's input, in clockwise order
            rough_quads = [clockwise(q / FRAME_SCALE) for q in quads]
            for _ in range(passes):
                rough_quads = refine(small, rough_quads, refiner)
            quads = [order_corners(q * FRAME_SCALE) for q in rough_quads]
        t3 = time.perf_counter()
        snapped = snap_to_edges(scene.image, quads) if quads else []
        if support > 0 and snapped:
            snapped = on_edges(scene.image, snapped, support)
        t4 = time.perf_counter()
        for key, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            times[key].append(1000 * dt)
        tally(counts, scene.cards, quads, snapped)
        for _, truth in scene.cards:
            if (rough_error := corner_error(truth, first)) is not None:
                errors.append((rough_error, final_error(truth, quads)))
    return {
        "kind": kind,
        "seed": seed,
        "threshold": threshold,
        "refiner_passes": passes if refiner else 0,
        "support": support,
        **counts,
        **medians(times),
        **corner_errors(errors),
    }


def corner_error(truth: np.ndarray, quads: list[np.ndarray]) -> float | None:
    """How far the outline of ``quads`` whose centre is nearest the true card's lies from it: its farthest corner's
    distance (in the corners' best cyclic order) over the card's width; None where no centre is within 0.3 widths."""
    from vision.rectify import order_corners

    t = order_corners(np.float32(truth).reshape(4, 2))
    width = min(float(np.linalg.norm(t[0] - t[1])), float(np.linalg.norm(t[1] - t[2])))
    if not quads:
        return None
    q = min(quads, key=lambda q: float(np.linalg.norm(q.mean(axis=0) - t.mean(axis=0))))
    if np.linalg.norm(q.mean(axis=0) - t.mean(axis=0)) > 0.3 * width:
        return None
    return min(float(np.linalg.norm(np.roll(q, k, axis=0) - t, axis=1).max()) / width for k in range(4))


def final_error(truth: np.ndarray, quads: list[np.ndarray]) -> float:
    """``corner_error``, or 1.0 (a card's width off) where no outline is left near the card."""
    error = corner_error(truth, quads)
    return 1.0 if error is None else error


def corner_errors(errors: list[tuple[float, float]]) -> dict[str, Any]:
    """The first stage's and the final outlines' corner errors (``corner_error``, per located card) as median and
    90th percentile, the located cards whose final outline is 12% or more off, and how many of those the first stage
    had put 20% or more off."""
    if not errors:
        return {}
    e = np.array(errors)
    off = e[:, 1] >= 0.12
    return {
        "corner_error_first_p50_p90": np.round(np.quantile(e[:, 0], [0.5, 0.9]), 3).tolist(),
        "corner_error_final_p50_p90": np.round(np.quantile(e[:, 1], [0.5, 0.9]), 3).tolist(),
        "final_off_12pct": int(off.sum()),
        "of_them_first_off_20pct": int((off & (e[:, 0] >= 0.2)).sum()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("cost")
    s = sub.add_parser("scenes")
    s.add_argument("--scenes", type=int, default=4000)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--first-seed", type=int, default=0, help="draw from these seeds on (25 scenes a seed)")
    s.add_argument("--source", choices=SOURCES, default="synth", help="synthetic scenes or the simulated table's")
    t = sub.add_parser("train")
    t.add_argument("--data", type=Path, nargs="+", required=True)
    t.add_argument("--minutes", type=float, default=30.0)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--init", type=Path, help="go on training this saved model")
    t.add_argument("--rate", type=float, default=3e-3, help="the learning rate at the start")
    r = sub.add_parser("train-refiner")
    r.add_argument("--data", type=Path, nargs="+", required=True)
    r.add_argument("--minutes", type=float, default=20.0)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--far-share", type=float, default=0.0, help="the share of rough outlines moved twice as far")
    e = sub.add_parser("evaluate")
    e.add_argument("--model", type=Path, required=True)
    e.add_argument("--kind", choices=("realistic", "hard", "clutter"), default="realistic")
    e.add_argument("--scenes", type=int, default=10, help="scenes a held-out design (clutter: as many frames)")
    e.add_argument("--seed", type=int, default=2024)
    e.add_argument("--threshold", type=float, default=0.3, help="the heatmap's least peak for a card")
    e.add_argument("--refiner", type=Path, help="a trained second stage (train-refiner) to move the corners first")
    e.add_argument("--passes", type=int, default=1, help="times the refiner moves each outline")
    e.add_argument(
        "--support",
        type=float,
        default=0.0,
        help="keep only outlines whose every side lies on edges for this share (on_edges; 0: all)",
    )
    args = parser.parse_args()
    if args.command == "cost":
        for row in cost():
            print(row, flush=True)
    elif args.command == "scenes":
        print(draw_scenes(args.scenes, args.out, args.first_seed, args.source))
    elif args.command == "train":
        print(train(args.data, args.minutes, args.out, init=args.init, rate=args.rate))
    elif args.command == "train-refiner":
        print(train_refiner(args.data, args.minutes, args.out, args.far_share))
    else:
        print(
            evaluate(
                args.model, args.kind, args.scenes, args.seed, args.threshold, args.refiner, args.passes, args.support
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
