"""Training of the index-corner finder (``vision.index_corners``): a network that finds the printed index corners of
cards in a frame, whole or partly covered, and says which way each card lies and how wide it is.

Scenes are overlap scenes (``overlap_scenes``: fans, piles, rows, covered cards; realistic and hard, half with the
photographic look on a share of them), kept at half size (``vision.index_corners.INPUT_SCALE``) with every index
corner that shows (``overlap_scenes.INDEX_SHOWS``): its point, the card's unit directions across and down, and its
width. Index corners half covered are marked "either" (the loss leaves them be).

Per grid cell (``STRIDE`` input pixels) the network learns how likely an index corner lies there (CenterNet's focal
loss on a Gaussian about the corner's cell), and near one: the corner's offset from the cell's centre, the direction
across the card times its width and the direction down it (``vision.index_corners.decode``: the same layout). It
trains on random windows of the scenes, scaled by 0.7-1.4 (cards from about 25 to 110 input pixels wide) and turned
by quarter turns, with colour gain.

    python -m models.training.index_corners scenes --scenes 2500 --seed 81 --out .cache/index_81.npz
    python -m models.training.index_corners train --data .cache/index_81.npz --minutes 40 --out idx.pt
    python -m models.training.index_corners export --net idx.pt [--out models]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.training import designs
from models.training.build_crops import add_realism
from models.training.outline_networks import (
    Budget,
    Trained,
    TrainingError,
    _last_loss,
    colour_gain,
    cosine_rate,
    heatmap_net,
    load_torch,
)
from models.training.overlap_crops import HALF_SHOWN, card_corners, overlap_scenes
from models.training.overlap_scenes import INDEX_SHOWS
from vision.index_corners import ANSWERS, INPUT_SCALE, META_FILE, MODEL_FILE, OFFSET_SCALE, STRIDE, WIDTH_SCALE
from vision.learned_outlines import sha256

MODELS = Path(__file__).resolve().parents[1]
MOST_CORNERS = 64
"""At most this many index corners are kept a scene (a scene holds up to about 30 cards)."""
WIDTHS = (16, 32, 48, 96)
"""The network's channels at 1/2, 1/4, 1/8 and 1/16 of its input."""
WINDOW = 256
"""Training windows are this many input pixels square."""
BATCH = 16
SHOWN, EITHER = 1.0, 0.5
"""A stored corner's kind: its index shows (a target), or half shows (neither target nor background)."""


def scene_corners(scene: Any) -> np.ndarray:
    """(N, 8) float32 the index corners of an overlap scene that show or half show, at full size: x, y, across
    (unit, 2), down (unit, 2), the card's width and ``SHOWN`` or ``EITHER``."""
    corners, _ = card_corners(scene)
    rows = [
        [*c.at, *c.across, *c.down, c.width, SHOWN if c.shown >= INDEX_SHOWS else EITHER]
        for c in corners
        if c.shown > HALF_SHOWN
    ]
    return np.array(rows, np.float32).reshape(-1, 8)


def make_scenes(
    decks: dict[str, Any], n_scenes: int, seed: int, *, hard_share: float, realism: float
) -> tuple[np.ndarray, np.ndarray]:
    """Half-size images (N, H, W, 3) uint8 and their index corners (N, ``MOST_CORNERS``, 8), half-size pixels,
    rows of zeros after the last."""
    rng = np.random.default_rng(seed)
    images, all_corners = [], []
    for k, scene in enumerate(overlap_scenes(rng, decks, n_scenes, hard_share, 0.3, realism)):
        h, w = scene.image.shape[:2]
        size = (round(w * INPUT_SCALE), round(h * INPUT_SCALE))
        images.append(cv2.resize(scene.image, size, interpolation=cv2.INTER_AREA))
        found = scene_corners(scene)[:MOST_CORNERS]
        found[:, [0, 1, 6]] *= INPUT_SCALE
        rows = np.zeros((MOST_CORNERS, 8), np.float32)
        rows[: len(found)] = found
        all_corners.append(rows)
        if (k + 1) % 250 == 0:
            print(f"  scenes {k + 1}/{n_scenes}", flush=True)
    return np.stack(images), np.stack(all_corners)


def load_scenes(paths: Sequence[Path]) -> tuple[np.ndarray, np.ndarray]:
    images, corners = [], []
    for path in paths:
        try:
            with np.load(path) as data:
                images.append(data["images"])
                corners.append(data["corners"])
        except (OSError, KeyError, ValueError) as e:
            raise TrainingError(f"{path}: not an index-corner scenes file ({e})") from e
    return np.concatenate(images), np.concatenate(corners)


def window(rng: np.random.Generator, image: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A ``WINDOW``-square window of ``image`` scaled by 0.7-1.4 and turned by a random number of quarter turns,
    with its corners (rows of ``corners`` that are one, moved the same way)."""
    rows = corners[corners[:, 7] > 0].copy()
    scale = float(np.exp(rng.uniform(np.log(0.7), np.log(1.4))))
    h, w = image.shape[:2]
    # the window's top left in the scaled image, often over a card
    sw, sh = w * scale, h * scale
    if len(rows) and rng.random() < 0.85:
        cx, cy = rows[rng.integers(len(rows)), :2] * scale + rng.uniform(-WINDOW / 2, WINDOW / 2, 2)
    else:
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
    x0 = float(np.clip(cx - WINDOW / 2, min(0.0, sw - WINDOW), max(0.0, sw - WINDOW)))
    y0 = float(np.clip(cy - WINDOW / 2, min(0.0, sh - WINDOW), max(0.0, sh - WINDOW)))
    affine = np.array([[scale, 0, -x0], [0, scale, -y0]], np.float64)
    quarter = int(rng.integers(4))
    for _ in range(quarter):  # (x, y) -> (y, WINDOW - x): a quarter turn anticlockwise on screen
        affine = np.array([[0, 1, 0], [-1, 0, WINDOW]], np.float64) @ np.vstack([affine, [0, 0, 1]])
    out = cv2.warpAffine(image, affine, (WINDOW, WINDOW), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    linear = affine[:, :2]
    rows[:, :2] = rows[:, :2] @ linear.T + affine[:, 2]
    rows[:, 2:4] = rows[:, 2:4] @ linear.T / scale
    rows[:, 4:6] = rows[:, 4:6] @ linear.T / scale
    rows[:, 6] *= scale
    return out, rows


def targets(rows: np.ndarray, size: int = WINDOW) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The grid's targets for a window's corners: the heatmap (a Gaussian about each corner's cell), the answers
    (``ANSWERS``, H, W: ``decode``'s layout), their weight (cells within a cell or so of a shown corner) and where
    the heatmap is left be (cells about a half shown corner)."""
    g = size // STRIDE
    heat = np.zeros((g, g), np.float32)
    answers = np.zeros((ANSWERS, g, g), np.float32)
    weight = np.zeros((g, g), np.float32)
    either = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, ax, ay, dx, dy, width, kind in rows.tolist():
        cx, cy = int(np.floor(x / STRIDE)), int(np.floor(y / STRIDE))
        if not (0 <= cx < g and 0 <= cy < g):
            continue
        sigma = max(0.7, width / STRIDE / 10)
        blob = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
        if kind < SHOWN:
            either = np.maximum(either, blob)
            continue
        heat = np.maximum(heat, blob)
        near = (np.abs(xs - cx) <= 1) & (np.abs(ys - cy) <= 1)
        cell_x, cell_y = (xs + 0.5) * STRIDE, (ys + 0.5) * STRIDE
        values = [
            (x - cell_x) / OFFSET_SCALE,
            (y - cell_y) / OFFSET_SCALE,
            np.full_like(xs, ax * width / WIDTH_SCALE),
            np.full_like(xs, ay * width / WIDTH_SCALE),
            np.full_like(xs, dx),
            np.full_like(xs, dy),
        ]
        for k, v in enumerate(values):
            answers[k] = np.where(near, v, answers[k])
        weight = np.where(near, np.maximum(weight, blob), weight)
    either = np.where(heat > 0.5, 0.0, either)
    return heat, answers, weight, either


def index_net(torch: Any, widths: tuple[int, ...] = WIDTHS) -> Any:
    """A new index-corner network (``outline_networks.heatmap_net``): a heatmap head (logits) and an answers head
    (``ANSWERS`` channels) on the grid at 1/4 of its input; one dilated layer at 1/16 (an index corner needs less
    context than a card's centre)."""
    return heatmap_net(torch, widths, ANSWERS, head="answers", dilations=(2,))


def loss(torch: Any, answer: Any, heat: Any, answers: Any, weight: Any, either: Any) -> Any:
    """CenterNet's focal loss on the heatmap (cells about a half shown corner left out) and the answers' L1 where
    weighted."""
    p = torch.sigmoid(answer[:, :1]).clamp(1e-4, 1 - 1e-4)
    centre = (heat > 0.999).float()
    background = (1 - centre) * (1 - either)
    focal = -(
        centre * (1 - p) ** 2 * torch.log(p) + background * (1 - heat) ** 4 * p**2 * torch.log(1 - p)
    ).sum() / centre.sum().clamp(min=1)
    l1 = (answer[:, 1:] - answers).abs().sum(dim=1, keepdim=True)
    return focal + (l1 * weight).sum() / weight.sum().clamp(min=1)


def train(data: Sequence[Path], budget: Budget, out: Path, *, init: Path | None = None, rate: float = 3e-3) -> Trained:
    """Trains the network for ``budget`` on the scenes of ``data`` (from scratch, or on from ``init``)."""
    torch = load_torch()
    images, corners = load_scenes(data)
    torch.set_num_threads(2)
    model = index_net(torch)
    if init is not None:
        model.load_state_dict(torch.load(init)["state"])
    opt = torch.optim.AdamW(model.parameters(), rate, weight_decay=1e-4)
    rng = np.random.default_rng(0)
    t0, steps, losses = time.time(), 0, list[float]()
    while budget.goes_on(t0, steps):
        windows, made = [], []
        for i in rng.integers(0, len(images), BATCH).tolist():
            img, rows = window(rng, images[i], corners[i])
            windows.append(img)
            made.append(targets(rows))
        xb = np.stack(windows).astype(np.float32) / 255.0
        xb = np.clip(xb * colour_gain(rng, BATCH), 0, 1).astype(np.float32)
        xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)) - 0.5)
        heat, answers, weight, either = (torch.from_numpy(np.stack([m[k] for m in made])) for k in range(4))
        for group in opt.param_groups:
            group["lr"] = cosine_rate(rate, time.time() - t0, budget.minutes * 60)
        step_loss = loss(torch, model(xt), heat[:, None], answers, weight[:, None], either[:, None])
        opt.zero_grad()
        step_loss.backward()
        opt.step()
        steps += 1
        losses.append(float(step_loss.item()))
        if steps % 200 == 0:
            print(f"  step {steps}: loss {_last_loss(losses):.4f} ({time.time() - t0:.0f} s)", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"widths": model.widths, "state": model.state_dict()}, out)
    return Trained(out, steps, round(time.time() - t0, 1), _last_loss(losses), len(images))


def export(net: Path, out: Path) -> dict[str, Any]:
    """The trained network as ``out/index_corners.onnx`` (any input size, a multiple of 16) and its metadata."""
    torch = load_torch()
    saved = torch.load(net)
    model = index_net(torch, tuple(saved["widths"]))
    model.load_state_dict(saved["state"])
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    path = out / MODEL_FILE
    torch.onnx.export(
        model,
        torch.zeros(1, 3, 368, 640),
        str(path),
        opset_version=17,
        dynamo=False,
        input_names=["x"],
        dynamic_axes={"x": {2: "h", 3: "w"}},  # fully convolutional: any size, a multiple of 16
    )
    meta = {
        "name": "index_corners",
        "what": "the index-corner finder (vision/index_corners.py)",
        "input_scale": INPUT_SCALE,
        "stride": STRIDE,
        "answers": ANSWERS,
        "normalisation": "uint8 BGR / 255 - 0.5, channels first",
        "file": MODEL_FILE,
        "sha256": sha256(path),
        "trained_from": net.name,
        "training": "python -m models.training.build corners (models/training/build.py: the recipe)",
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m models.training.index_corners", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("scenes", help="draw overlap scenes and their index corners")
    s.add_argument("--scenes", type=int, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--hard-share", type=float, default=0.4, help="share of hard scenes (small cards, glare, blur)")
    add_realism(s)
    t = sub.add_parser("train", help="train the network on scenes files")
    t.add_argument("--data", type=Path, nargs="+", required=True)
    t.add_argument("--minutes", type=float, default=40.0, help="how long it trains, by the clock")
    t.add_argument("--steps", type=int, help="at most this many steps")
    t.add_argument("--init", type=Path, help="go on training this saved network")
    t.add_argument("--rate", type=float, default=3e-3, help="the learning rate at the start")
    t.add_argument("--out", type=Path, required=True)
    e = sub.add_parser("export", help="write the trained network and its metadata to the models folder")
    e.add_argument("--net", type=Path, required=True)
    e.add_argument("--out", type=Path, default=MODELS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "scenes":
        decks = designs.training_decks() | designs.font_decks(designs.FONT_STYLES)
        images, corners = make_scenes(decks, args.scenes, args.seed, hard_share=args.hard_share, realism=args.realism)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        command = "python -m models.training.index_corners " + " ".join(sys.argv[1:] if argv is None else argv)
        np.savez(args.out, images=images, corners=corners, command=np.array(command))
        print(f"{args.out}: {len(images)} scenes, {int((corners[:, :, 7] == SHOWN).sum())} index corners", flush=True)
    elif args.command == "train":
        print(train(args.data, Budget(args.minutes, args.steps), args.out, init=args.init, rate=args.rate), flush=True)
    else:
        print(json.dumps(export(args.net, args.out), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
