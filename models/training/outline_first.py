"""Training of the outline finder's first stage (``outline_networks.centre_net``) on scenes drawn by
``outline_scenes``.

Per grid cell the network learns how likely a card's centre lies there (CenterNet's focal loss on a Gaussian about
each card's centre cell) and the card's four corners from the cell's centre (clockwise, the smallest L1 loss over the
four cyclic orders, so a card's turn does not matter; only cells near a centre learn corners). Batches of 16 with
flips and colour gain, AdamW, a cosine rate, two threads.

    python -m models.training.outline_first --data F.npz [G.npz ...] --minutes 35 --out kp.pt [--init K.pt --rate R]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from models.training.outline_networks import (
    FIRST_WIDTHS,
    Budget,
    Trained,
    _last_loss,
    centre_net,
    colour_gain,
    cosine_rate,
    load_first_stage,
    load_torch,
    save_first_stage,
)
from models.training.outline_scenes import load_scenes
from vision.learned_outlines import CORNER_SCALE, INPUT, STRIDE, clockwise

GRID = (INPUT[0] // STRIDE, INPUT[1] // STRIDE + (INPUT[1] % STRIDE > 0))
"""The first stage's answer grid (width, height) for its input."""
BATCH = 16


def targets(quads: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def flipped(quads: np.ndarray, horizontal: bool, vertical: bool) -> np.ndarray:
    """Input-scale corners as they lie in the input flipped left-right and/or upside down."""
    q = quads.copy()
    if horizontal:
        q[..., 0] = INPUT[0] - q[..., 0]
    if vertical:
        q[..., 1] = INPUT[1] - q[..., 1]
    return q


def loss(torch: Any, answer: Any, heat: Any, corners: Any, weight: Any) -> Any:
    """The first stage's loss on a batch: CenterNet's focal loss on the heatmap (the centre cell is 1, the rest weighed
    down by how near a centre they lie), plus the corners' smallest L1 over the four cyclic orders, where weighted."""
    p = torch.sigmoid(answer[:, :1]).clamp(1e-4, 1 - 1e-4)
    centre = (heat > 0.999).float()
    focal = -(
        centre * (1 - p) ** 2 * torch.log(p) + (1 - centre) * (1 - heat) ** 4 * p**2 * torch.log(1 - p)
    ).sum() / centre.sum().clamp(min=1)
    pred = answer[:, 1:]
    shifts = torch.stack([torch.roll(pred, -2 * k, dims=1) for k in range(4)])  # (4, B, 8, H, W)
    l1 = (shifts - corners[None]).abs().sum(dim=2, keepdim=True).min(dim=0).values  # (B, 1, H, W)
    return focal + (l1 * weight).sum() / weight.sum().clamp(min=1)


def train(
    data: Sequence[Path],
    budget: Budget,
    out: Path,
    *,
    widths: tuple[int, ...] = FIRST_WIDTHS,
    init: Path | None = None,
    rate: float = 3e-3,
) -> Trained:
    """Trains the first stage for ``budget`` on the scenes of ``data``, from scratch or on from the network saved at
    ``init`` (whose widths it keeps); the rate starts at ``rate`` and falls on a cosine to nothing at the end."""
    torch = load_torch()
    scenes = load_scenes(data)
    images, quads = scenes.images, scenes.quads
    torch.set_num_threads(2)
    model = load_first_stage(torch, init) if init is not None else centre_net(torch, widths)
    opt = torch.optim.AdamW(model.parameters(), rate, weight_decay=1e-4)
    rng = np.random.default_rng(0)
    t0, steps, losses = time.time(), 0, list[float]()
    while budget.goes_on(t0, steps):
        idx = rng.integers(0, len(images), BATCH)
        flip_h, flip_v = rng.random() < 0.5, rng.random() < 0.5
        xb = images[idx].astype(np.float32) / 255.0
        if flip_h:
            xb = xb[:, :, ::-1]
        if flip_v:
            xb = xb[:, ::-1]
        xb = np.clip(xb * colour_gain(rng, BATCH), 0, 1).astype(np.float32)
        made = [targets(list(flipped(quads[i], flip_h, flip_v))) for i in idx]
        heat = torch.from_numpy(np.stack([m[0] for m in made]))[:, None]
        corners = torch.from_numpy(np.stack([m[1] for m in made]))
        weight = torch.from_numpy(np.stack([m[2] for m in made]))[:, None]
        xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)) - 0.5)
        for group in opt.param_groups:
            group["lr"] = cosine_rate(rate, time.time() - t0, budget.minutes * 60)
        step_loss = loss(torch, model(xt), heat, corners, weight)
        opt.zero_grad()
        step_loss.backward()
        opt.step()
        steps += 1
        losses.append(float(step_loss.item()))
    save_first_stage(torch, model, out)
    return Trained(out, steps, round(time.time() - t0, 1), _last_loss(losses), len(images))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m models.training.outline_first", description="Train the outline finder's first stage."
    )
    p.add_argument("--data", type=Path, nargs="+", required=True, help="scenes files (outline_scenes)")
    p.add_argument("--minutes", type=float, default=30.0, help="how long it trains, by the clock")
    p.add_argument("--steps", type=int, help="at most this many steps")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--init", type=Path, help="go on training this saved first stage")
    p.add_argument("--rate", type=float, default=3e-3, help="the learning rate at the start")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    print(train(args.data, Budget(args.minutes, args.steps), args.out, init=args.init, rate=args.rate), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
