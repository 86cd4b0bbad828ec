"""Training of the outline finder's verifier (``outline_networks.refine_net`` with one answer): is a final (snapped)
outline on its card, or off it?

Many outlines that are off their card (12-28% of its width) have every side on edges all the same: one side on a
chip's or a neighbour's edge, or all four on a court figure's frame. The verifier looks at the patch an outline
rectifies (``level_patch``) and answers how likely the outline is on its card (``vision.outline_judge`` asks it).

* **Lessons** (``mine``): training scenes (seeds the first stage and the checker did not learn from) through the
  first stage and the checker as the finder runs them (``vision.learned_outlines.find_outlines``); each snapped
  outline within ``GOOD`` of its card's width (``corner_error``) is "on", each ``BAD`` or more off (or on no card) is
  "off", those between teach nothing. Too few are off, so each card adds one outline moved a little (on) and one
  spoiled as the finder spoils them (``spoil``: a corner or a side moved out or in, or the whole outline scaled).
* **Training** (``train``): cross-entropy, batches of 128, AdamW, a cosine rate, colour gain, two threads.

    python -m models.training.outline_verifier patches --model kp.pt --checker kc.pt --scenes 2000 --first-seed 600 \\
        --out P.npz
    python -m models.training.outline_verifier train --patches P.npz [...] --minutes 8 --out kv.pt [--init --rate]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.training.outline_checker import add_patches_command, add_train_command, first_stage_onnx, patch_sampler
from models.training.outline_networks import (
    Batch,
    Budget,
    Trained,
    export_onnx,
    load_patch_net,
    load_torch,
    refine_net,
    train_patch_net,
)
from models.training.outline_scenes import card_corners, pooled, scenes_from, seeds
from vision.classify import cpu_session
from vision.learned_outlines import HALF, PATCH, clockwise, find_outlines, level_patch, pyramid, short_side
from vision.rectify import order_corners

GOOD, BAD = 0.06, 0.12
"""An outline whose farthest corner is within ``GOOD`` of its card's width is on the card; ``BAD`` or more, off (the
recognition benchmark's match is 12%)."""


def corner_error(truth: np.ndarray, quads: Sequence[np.ndarray]) -> float | None:
    """How far the outline of ``quads`` whose centre is nearest the true card's lies from it: its farthest corner's
    distance (in the corners' best cyclic order) over the card's width; None where no centre is within 0.3 widths."""
    t = order_corners(np.float32(truth).reshape(4, 2))
    width = min(float(np.linalg.norm(t[0] - t[1])), float(np.linalg.norm(t[1] - t[2])))
    if not quads:
        return None
    q = min(quads, key=lambda q: float(np.linalg.norm(q.mean(axis=0) - t.mean(axis=0))))
    if np.linalg.norm(q.mean(axis=0) - t.mean(axis=0)) > 0.3 * width:
        return None
    return min(float(np.linalg.norm(np.roll(q, k, axis=0) - t, axis=1).max()) / width for k in range(4))


def spoil(truth: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``truth`` (clockwise) spoiled as the finder spoils outlines: one corner moved 15-35% of the card's width, one
    side moved out or in 15-30% of it, or the whole outline scaled by 0.7-0.85 or 1.15-1.35 about its centre (a
    corner of a card 1.4 times as long as wide is 0.86 of its width from the centre: 13% or more off)."""
    q = np.asarray(truth, np.float64).reshape(4, 2).copy()
    width = short_side(q)
    how = int(rng.integers(3))
    if how == 0:
        turn = rng.uniform(0, 2 * np.pi)
        q[int(rng.integers(4))] += rng.uniform(0.15, 0.35) * width * np.array([np.cos(turn), np.sin(turn)])
    elif how == 1:
        k = int(rng.integers(4))
        a, b = q[k], q[(k + 1) % 4]
        normal = np.array([b[1] - a[1], a[0] - b[0]]) / max(float(np.linalg.norm(b - a)), 1e-6)
        outward = normal if np.dot(normal, (a + b) / 2 - q.mean(axis=0)) > 0 else -normal
        step = rng.uniform(0.15, 0.3) * width * (1 if rng.random() < 0.5 else -1) * outward
        q[k] += step
        q[(k + 1) % 4] += step
    else:
        factor = rng.uniform(0.7, 0.85) if rng.random() < 0.5 else rng.uniform(1.15, 1.35)
        q = (q - q.mean(axis=0)) * factor + q.mean(axis=0)
    return q.astype(np.float32)


def on_card(quad: np.ndarray, truths: Sequence[np.ndarray], good: float = GOOD) -> float | None:
    """1.0 where ``quad`` is within ``good`` of a card of ``truths``, 0.0 where it is ``BAD`` or more off every card
    (or near none), None between."""
    if not truths:
        return 0.0
    card = min(truths, key=lambda t: float(np.linalg.norm(t.mean(axis=0) - quad.mean(axis=0))))
    error = corner_error(card, [quad])  # (over the card's width; None: the outline's centre is not on the card)
    if error is None or error >= BAD:
        return 0.0
    return 1.0 if error < good else None


def _mine(job: tuple[int, int, str, str, float, str]) -> Batch:
    seed, count, first_stage, checker, good, source = job
    cv2.setNumThreads(1)
    first = cpu_session(first_stage, 1, "the first stage")
    checking = cpu_session(checker, 1, "the checker")
    rng = np.random.default_rng([seed, 782])
    patches, labels = [], []
    for scene in scenes_from(source, seed, count, salt=781):
        half, quarter = pyramid(scene.image)
        to_half = HALF[0] / scene.image.shape[1]
        truths = [clockwise(q) for q in card_corners(scene, HALF[0])]
        outlines = [clockwise(q * to_half) for q in find_outlines(first, checking, scene.image).snapped]
        outlines += [t + rng.normal(0, 0.01 * short_side(t), (4, 2)).astype(np.float32) for t in truths]
        outlines += [spoil(t, rng) for t in truths]
        for quad in outlines:
            if (verdict := on_card(quad, truths, good)) is not None:
                patches.append(level_patch(half, quarter, quad)[0])
                labels.append(verdict)
    if not patches:
        return np.zeros((0, PATCH, PATCH, 3), np.uint8), np.zeros(0, np.float32)
    return np.stack(patches), np.array(labels, np.float32)


def mine(
    model: Path,
    checker: Path,
    scenes: int,
    out: Path,
    first: int,
    *,
    good: float = GOOD,
    source: str = "synth",
    workers: int = 2,
) -> dict[str, Any]:
    """Lessons for the verifier from ``scenes`` scenes of ``source`` through the first stage saved at ``model`` and the
    checker saved at ``checker``, drawn from the seed ``first`` on, into ``out`` (.npz: patches, labels)."""
    t0 = time.time()
    torch = load_torch()
    with tempfile.TemporaryDirectory() as tmp:
        first_onnx = str(first_stage_onnx(torch, model, Path(tmp)))
        checker_onnx = Path(tmp) / "checker.onnx"
        export_onnx(torch, load_patch_net(torch, checker, 9), PATCH, PATCH, checker_onnx, any_batch=True)
        jobs = [(seed, count, first_onnx, str(checker_onnx), good, source) for seed, count in seeds(first, scenes)]
        parts = pooled(workers, _mine, jobs)
    patches = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, patches=patches, labels=labels)
    return {
        "patches": len(patches),
        "on": int(labels.sum()),
        "off": int((labels == 0).sum()),
        "seconds": round(time.time() - t0, 1),
        "file": str(out),
    }


def train(paths: Sequence[Path], budget: Budget, out: Path, *, rate: float = 3e-3, init: Path | None = None) -> Trained:
    """Trains the verifier for ``budget`` on the lessons of ``paths``, from scratch or on from ``init``."""
    torch = load_torch()
    count, draw = patch_sampler(paths, "labels")
    return train_patch_net(
        torch,
        refine_net(torch, 1),
        draw,
        lambda y, wanted: torch.nn.functional.binary_cross_entropy_with_logits(y[:, 0], wanted),
        budget,
        out,
        seed=3,
        rate=rate,
        init=init,
        examples=count,
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m models.training.outline_verifier", description="Mine lessons for the verifier and train it."
    )
    sub = p.add_subparsers(dest="command", required=True)
    mining = add_patches_command(sub, scenes=2000, first_seed=600)
    mining.add_argument("--checker", type=Path, required=True, help="a trained checker (outline_checker train)")
    mining.add_argument("--good", type=float, default=GOOD, help="an outline this near its card (of its width) is on")
    add_train_command(sub, minutes=8.0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "patches":
        found = mine(
            args.model,
            args.checker,
            args.scenes,
            args.out,
            args.first_seed,
            good=args.good,
            source=args.source,
            workers=args.workers,
        )
        print(found, flush=True)
    else:
        print(train(args.patches, Budget(args.minutes, args.steps), args.out, rate=args.rate, init=args.init))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
