"""Training of the outline finder's checker (``outline_networks.refine_net`` with nine answers) on lessons mined
from a trained first stage's own outlines.

* **Lessons** (``mine``): training scenes (seeds the first stage did not learn from) run through the first stage;
  each rough outline near a card (its centre within ``NEAR`` of the card's width from the card's) is a lesson in
  moving its corners onto the card, each one ``FAR`` or more from every card a lesson in saying "no card", those
  between teach nothing. Each card adds one outline moved at random about as much as the first stage's are off
  (``rough``), so a second pass has something to learn from too, and a few ``strays`` of a card's shape where the
  first stage might put one by mistake. Each lesson is the patch ``level_patch`` rectifies (from the half-size frame,
  or the quarter-size input for a large card), as the finder cuts it.
* **Training** (``train``): smooth L1 on the offsets of patches that hold a card, cross-entropy on card or not;
  batches of 128, AdamW, a cosine rate, colour gain, two threads.

    python -m models.training.outline_checker patches --model kp.pt --scenes 3000 --first-seed 400 --out P.npz
    python -m models.training.outline_checker train --patches P.npz [...] --minutes 12 --out kc.pt [--init --rate]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.training.outline_networks import (
    Batch,
    Budget,
    Trained,
    TrainingError,
    export_onnx,
    load_first_stage,
    load_torch,
    refine_net,
    train_patch_net,
)
from models.training.outline_scenes import SOURCES, card_corners, pooled, scenes_from, seeds
from vision.classify import cpu_session
from vision.learned_outlines import (
    HALF,
    INPUT,
    NEAR,
    PATCH,
    REFINE_SCALE,
    SQUARE,
    as_input,
    clockwise,
    level_patch,
    pyramid,
    rough_outlines,
    short_side,
)

FAR = 0.5
"""An outline whose centre lies ``FAR`` or more of a card's width from every card's centre learns to say "no card"."""
MINING_THRESHOLD = 0.1
"""The least heatmap peak of a rough outline mined for a lesson: more than the finder's, so the checker also learns
from the first stage's weaker guesses."""


def rough(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``quad`` as the first stage might place it: turned, scaled, shifted and each corner moved, by about what the
    first stage's corners are off (median 7.5% of a card's width, one in ten over 15%)."""
    q = clockwise(quad).astype(np.float64)
    centre = q.mean(axis=0)
    width = min(float(np.linalg.norm(q[0] - q[1])), float(np.linalg.norm(q[1] - q[2])))
    turn = np.radians(rng.normal(0, 3))
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) * rng.normal(1, 0.04)
    moved: np.ndarray = (
        (q - centre) @ rot.T + centre + rng.normal(0, 0.04 * width, 2) + rng.normal(0, 0.05 * width, (4, 2))
    )
    return moved.astype(np.float32)


def true_offsets(truth: np.ndarray, to_patch: np.ndarray) -> np.ndarray:
    """(8,) what a perfect checker answers for the card whose corners are ``truth`` in the patch ``to_patch`` maps
    into: each true corner's offset from the ``SQUARE`` corner nearest it (the cyclic order nearest the square), in
    ``REFINE_SCALE`` units."""
    inside = cv2.perspectiveTransform(np.float32(truth).reshape(-1, 1, 2), to_patch).reshape(4, 2)
    shift = min(range(4), key=lambda k: float(np.abs(np.roll(inside, -k, axis=0) - SQUARE).sum()))
    out: np.ndarray = ((np.roll(inside, -shift, axis=0) - SQUARE).ravel() / REFINE_SCALE).astype(np.float32)
    return out


def label(quad: np.ndarray, truths: Sequence[np.ndarray]) -> int | None:
    """Which of ``truths`` the outline ``quad`` should move onto (its centre within ``NEAR`` of the card's width from
    the card's); -1 for none (``FAR`` or more from every card); None in between."""
    best, index = np.inf, -1
    for i, t in enumerate(truths):
        d = float(np.linalg.norm(quad.mean(axis=0) - t.mean(axis=0))) / short_side(t)
        if d < best:
            best, index = d, i
    if best <= NEAR:
        return index
    return -1 if best >= FAR else None


def strays(truths: Sequence[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """Outlines of a card's shape where the first stage might put one by mistake: each card's moved 0.6-1.5 of its
    width (half on a neighbour, half on the table), and two of a random card's shape anywhere in the frame (on a
    cluttered table with no card, a card-sized outline of the frame's size)."""
    out = []
    for truth in truths:
        turn = rng.uniform(0, 2 * np.pi)
        out.append(
            truth + rng.uniform(0.6, 1.5) * short_side(truth) * np.array([np.cos(turn), np.sin(turn)], np.float32)
        )
    shapes = list(truths) or [np.array([[0, 0], [40, 0], [40, 56], [0, 56]], np.float32) * rng.uniform(1, 2.5)]
    for _ in range(2):
        shape = shapes[int(rng.integers(len(shapes)))]
        shape = shape - shape.mean(axis=0)
        out.append(shape + np.array([rng.uniform(0, HALF[0]), rng.uniform(0, HALF[1])], np.float32))
    return [clockwise(q) for q in out]


def lesson(half: np.ndarray, quarter: np.ndarray, quad: np.ndarray, truth: np.ndarray | None) -> Batch:
    """The patch of ``quad`` and what the checker should answer for it: the offsets onto ``truth`` and 1 (a card), or
    nine noughts (no card)."""
    patch, to_patch = level_patch(half, quarter, quad)
    if truth is None:
        return patch, np.zeros(9, np.float32)
    return patch, np.append(true_offsets(truth, to_patch), np.float32(1.0))


def _mine(job: tuple[int, int, str, float, str]) -> Batch:
    seed, count, first_stage, threshold, source = job
    cv2.setNumThreads(1)
    session = cpu_session(first_stage, 1, "the first stage")
    rng = np.random.default_rng([seed, 780])
    patches, answers = [], []
    for scene in scenes_from(source, seed, count, salt=779):
        half, quarter = pyramid(scene.image)
        truths = [clockwise(q) for q in card_corners(scene, HALF[0])]
        answer = session.run(None, {session.get_inputs()[0].name: as_input(quarter)})[0][0]
        # (the order of the random draws: each card's rough outline, then the strays)
        lessons = [(q, label(q, truths)) for q in rough_outlines(answer, threshold)[0]]
        lessons += [(rough(truth, rng), i) for i, truth in enumerate(truths)]
        lessons += [(q, label(q, truths)) for q in strays(truths, rng)]
        for quad, i in lessons:
            if i is not None:
                patch, wanted = lesson(half, quarter, quad, truths[i] if i >= 0 else None)
                patches.append(patch)
                answers.append(wanted)
    if not patches:
        return np.zeros((0, PATCH, PATCH, 3), np.uint8), np.zeros((0, 9), np.float32)
    return np.stack(patches), np.stack(answers)


def first_stage_onnx(torch: Any, saved: Path, folder: Path) -> Path:
    """The first stage saved at ``saved`` as ONNX in ``folder``, for onnxruntime to run as the finder does."""
    onnx = folder / "first_stage.onnx"
    export_onnx(torch, load_first_stage(torch, saved), *INPUT, onnx)
    return onnx


def mine(
    model: Path,
    scenes: int,
    out: Path,
    first: int,
    *,
    threshold: float = MINING_THRESHOLD,
    source: str = "synth",
    workers: int = 2,
) -> dict[str, Any]:
    """Lessons for the checker from ``scenes`` scenes of ``source`` through the first stage saved at ``model``, drawn
    from the seed ``first`` on, into ``out`` (.npz: patches, answers: eight offsets and card or not)."""
    t0 = time.time()
    torch = load_torch()
    with tempfile.TemporaryDirectory() as tmp:
        onnx = str(first_stage_onnx(torch, model, Path(tmp)))
        parts = pooled(workers, _mine, [(seed, count, onnx, threshold, source) for seed, count in seeds(first, scenes)])
    patches = np.concatenate([p[0] for p in parts])
    answers = np.concatenate([p[1] for p in parts])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, patches=patches, answers=answers)
    return {
        "patches": len(patches),
        "cards": int(answers[:, 8].sum()),
        "no_card": int((answers[:, 8] == 0).sum()),
        "seconds": round(time.time() - t0, 1),
        "file": str(out),
    }


def patch_sampler(
    paths: Sequence[Path], wanted: str, batch: int = 128
) -> tuple[int, Callable[[np.random.Generator], Batch]]:
    """The patches of every .npz file of ``paths`` (their "patches" and ``wanted`` arrays, one after another): how many,
    and a function drawing ``batch`` of them at random with what each should be answered. A file named twice is drawn
    from twice as often."""
    try:
        loaded = [np.load(p) for p in paths]
        patches = np.concatenate([d["patches"] for d in loaded])
        answers = np.concatenate([d[wanted] for d in loaded])
    except (OSError, ValueError, KeyError) as e:
        raise TrainingError(f"{', '.join(map(str, paths))}: not patch files with {wanted!r}: {e}") from e
    if not len(patches):
        raise TrainingError(f"{', '.join(map(str, paths))}: no patches to learn from")

    def draw(rng: np.random.Generator) -> Batch:
        idx = rng.integers(0, len(patches), batch)
        return patches[idx], answers[idx]

    return len(patches), draw


def train(paths: Sequence[Path], budget: Budget, out: Path, *, rate: float = 3e-3, init: Path | None = None) -> Trained:
    """Trains the checker for ``budget`` on the lessons of ``paths``, from scratch or on from ``init``."""
    torch = load_torch()
    count, draw = patch_sampler(paths, "answers")

    def loss_of(y: Any, wanted: Any) -> Any:
        card = wanted[:, 8]
        moved = (
            torch.nn.functional.smooth_l1_loss(y[:, :8], wanted[:, :8], beta=0.1, reduction="none").mean(1) * card
        ).sum() / card.sum().clamp(min=1)
        return moved + torch.nn.functional.binary_cross_entropy_with_logits(y[:, 8], card)

    return train_patch_net(
        torch, refine_net(torch, 9), draw, loss_of, budget, out, seed=2, rate=rate, init=init, examples=count
    )


def add_train_command(sub: Any, minutes: float) -> None:
    """A patch network's "train" command on the subcommands ``sub``."""
    t = sub.add_parser("train", help="train on mined lessons")
    t.add_argument("--patches", type=Path, nargs="+", required=True, help="lesson files (a file twice: twice as often)")
    t.add_argument("--minutes", type=float, default=minutes, help="how long it trains, by the clock")
    t.add_argument("--steps", type=int, help="at most this many steps")
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--rate", type=float, default=3e-3, help="the cosine rate's start")
    t.add_argument("--init", type=Path, help="go on from this saved network")


def add_patches_command(sub: Any, scenes: int, first_seed: int) -> argparse.ArgumentParser:
    """A patch network's "patches" command (lessons mined through a trained first stage) on ``sub``."""
    p: argparse.ArgumentParser = sub.add_parser("patches", help="mine lessons from training scenes")
    p.add_argument("--model", type=Path, required=True, help="a trained first stage (outline_first)")
    p.add_argument("--scenes", type=int, default=scenes)
    p.add_argument("--first-seed", type=int, default=first_seed, help="draw from these seeds on (25 scenes a seed)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--source", choices=SOURCES, default="synth", help="synthetic scenes or the simulated table's")
    p.add_argument("--workers", type=int, default=2, help="processes mining")
    return p


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m models.training.outline_checker", description="Mine lessons for the checker and train it."
    )
    sub = p.add_subparsers(dest="command", required=True)
    mining = add_patches_command(sub, scenes=3000, first_seed=400)
    mining.add_argument("--threshold", type=float, default=MINING_THRESHOLD, help="the least peak of a rough outline")
    add_train_command(sub, minutes=10.0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "patches":
        found = mine(
            args.model,
            args.scenes,
            args.out,
            args.first_seed,
            threshold=args.threshold,
            source=args.source,
            workers=args.workers,
        )
        print(found, flush=True)
    else:
        print(train(args.patches, Budget(args.minutes, args.steps), args.out, rate=args.rate, init=args.init))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
