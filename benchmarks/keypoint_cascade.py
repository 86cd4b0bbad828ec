"""The keypoint spike's second stage taught on its first stage's own outlines, rectified from the half-size frame, and
asked whether each holds a card: a spike for issue 5's speed target; nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/keypoint_cascade.py patches --model /tmp/kp.pt --scenes 3000 --first-seed 400 \
        --out /tmp/kc_patches.npz
    .venv/bin/python benchmarks/keypoint_cascade.py train --patches /tmp/kc_patches.npz --minutes 10 --out /tmp/kc.pt
    .venv/bin/python benchmarks/keypoint_cascade.py evaluate --model /tmp/kp.pt --checker /tmp/kc.pt \
        --kind realistic|hard|clutter --scenes 10 [--threshold 0.3] [--keep 0.5] [--passes 1]

``keypoint_spike.py``'s refiner learned from true outlines moved at random, on the 320x180 input, and kept every
outline. Three things differ here:

* **What it learns from** (``patches``): scenes of the training designs (other seeds than the first stage's), run
  through a trained first stage (``keypoint_spike.py train``); each outline it gives near a card is a lesson in
  moving it there, each one far from every card a lesson in saying "no card"; one outline a card moved at random
  (``keypoint_spike.rough``) is added, so that a second pass has something to learn from too.
* **Where it looks** (``level_patch``): at the frame at half size (640x360, cards 40-150 px wide) where the card
  is at most twice the patch's square wide, else at the quarter-size input. The spike's patch of a card 80 px wide
  in the frame was drawn from 20 input pixels.
* **What it answers**: the four corners' offsets as before, and a ninth number, whether the patch holds a card
  (a logit). ``evaluate`` keeps outlines over ``--keep`` and, of two on one card, the surer.

Both sizes come from ``pyramid``: halving twice with ``INTER_AREA`` gives the quarter-size input within one level of
a direct ``INTER_AREA`` to a quarter, at a quarter of its cost (OpenCV has a fast path for halving).

Needs torch (the training extra, models/README.md) and the Debian designs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.keypoint_spike import (  # noqa: E402
    _nets,
    clockwise,
    corner_error,
    corner_errors,
    evaluation_scenes,
    export_first_stage,
    final_error,
    patch_net_session,
    rough,
    train_patch_net,
    true_offsets,
)
from benchmarks.segmentation_spike import (  # noqa: E402
    _session,
    _torch,
    as_input,
    medians,
    new_counts,
    tally,
)
from benchmarks.sim_scenes import SOURCES, scenes_from  # noqa: E402
from vision.learned_outlines import (  # noqa: E402,F401  (the shipped detector's; the spikes import them here)
    HALF,
    NEAR,
    WIDEST_AT_HALF,
    centres_and_short_sides,
    check,
    level_patch,
    off_every,
    pyramid,
    rough_outlines,
    short_side,
    surest,
)

FAR = 0.5
"""An outline whose centre lies within ``NEAR`` (``vision.learned_outlines``) of a card's width from the card's centre
learns to move onto it; one
``FAR`` or more from every card's, to say "no card"; those between teach nothing (``label``)."""


def first_answer(session: Any, quarter: np.ndarray) -> np.ndarray:
    """The first stage's answer (9, H, W: heatmap logits, corner offsets) for the input ``quarter``."""
    out: np.ndarray = session.run(None, {session.get_inputs()[0].name: as_input(quarter)})[0][0]
    return out


def off_all(quad: np.ndarray, kept: list[np.ndarray]) -> bool:
    """Does ``quad``'s centre lie ``NEAR`` of a kept outline's width or more from every kept outline's centre?"""
    return bool(off_every([quad], kept)[0])


def label(quad: np.ndarray, truths: list[np.ndarray]) -> int | None:
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


def _lesson(
    half: np.ndarray, quarter: np.ndarray, quad: np.ndarray, truth: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    patch, to_patch = level_patch(half, quarter, quad)
    if truth is None:
        return patch, np.zeros(9, np.float32)
    return patch, np.append(true_offsets(truth, to_patch), np.float32(1.0))


def _mine(job: tuple[int, int, str, float, str]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, model, threshold, source = job
    cv2.setNumThreads(1)
    session = _session(Path(model))
    rng = np.random.default_rng([seed, 780])
    patches, answers = [], []
    for scene in scenes_from(source, seed, count, salt=779):
        half, quarter = pyramid(scene.image)
        truths = [
            clockwise(np.asarray(q, np.float32).reshape(4, 2) * (HALF[0] / scene.image.shape[1]))
            for _, q in scene.cards
        ]
        # (the order of the random draws is the documented files': each card's rough outline, then the strays)
        lessons = [(q, label(q, truths)) for q in rough_outlines(first_answer(session, quarter), threshold)[0]]
        lessons += [(rough(truth, rng), i) for i, truth in enumerate(truths)]
        lessons += [(q, label(q, truths)) for q in _strays(truths, rng)]
        for quad, i in lessons:
            if i is not None:
                patch, answer = _lesson(half, quarter, quad, truths[i] if i >= 0 else None)
                patches.append(patch)
                answers.append(answer)
    return np.stack(patches), np.stack(answers)


def _strays(truths: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """Outlines of a card's shape where the first stage might put one by mistake: each card's moved 0.6-1.5 of its
    width (half on a neighbour, half on the table), and two of a random card's shape anywhere in the frame (on a
    cluttered table with no card, a card-sized outline of the frame's size)."""
    out = []
    for truth in truths:
        turn = rng.uniform(0, 2 * np.pi)
        out.append(truth + rng.uniform(0.6, 1.5) * short_side(truth) * np.float32([np.cos(turn), np.sin(turn)]))
    shapes = truths or [np.float32([[0, 0], [40, 0], [40, 56], [0, 56]]) * rng.uniform(1, 2.5)]
    for _ in range(2):
        shape = shapes[int(rng.integers(len(shapes)))]
        shape = shape - shape.mean(axis=0)
        out.append(shape + np.float32([rng.uniform(0, HALF[0]), rng.uniform(0, HALF[1])]))
    return [clockwise(q) for q in out]


def mine_patches(
    model: Path, scenes: int, out: Path, first: int, threshold: float, source: str = "synth"
) -> dict[str, Any]:
    """Lessons for the checker (``_mine``) from ``scenes`` training scenes of ``source``
    (``benchmarks.sim_scenes.SOURCES``), 25 a seed from ``first`` on, into ``out`` (.npz: patches, answers: eight
    offsets and card or not)."""
    t0 = time.time()
    torch = _torch()
    with tempfile.TemporaryDirectory() as tmp:
        onnx = export_first_stage(torch, model, Path(tmp))
        with Pool(2) as pool:
            parts = pool.map(
                _mine, [(seed, 25, str(onnx), threshold, source) for seed in range(first, first + max(1, scenes // 25))]
            )
    patches = np.concatenate([p[0] for p in parts])
    answers = np.concatenate([p[1] for p in parts])
    np.savez(out, patches=patches, answers=answers)
    return {
        "patches": len(patches),
        "cards": int(answers[:, 8].sum()),
        "no_card": int((answers[:, 8] == 0).sum()),
        "seconds": round(time.time() - t0, 1),
        "file": str(out),
    }


def patch_sampler(
    paths: list[Path], wanted: str, batch: int = 128
) -> tuple[int, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]]]:
    """The patches of every .npz file of ``paths`` (their "patches" and ``wanted`` arrays, one after another): how many,
    and a function drawing ``batch`` of them at random with what each should be answered."""
    loaded = [np.load(p) for p in paths]
    patches = np.concatenate([d["patches"] for d in loaded])
    answers = np.concatenate([d[wanted] for d in loaded])

    def draw(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        idx = rng.integers(0, len(patches), batch)
        return patches[idx], answers[idx]

    return len(patches), draw


def train_checker(
    paths: list[Path], minutes: float, out: Path, rate: float = 3e-3, init: Path | None = None
) -> dict[str, Any]:
    """``minutes`` of training (``keypoint_spike.train_patch_net``, batch 128): smooth L1 on the offsets of patches
    that hold a card, and cross-entropy on card or not."""
    torch = _torch()
    count, draw = patch_sampler(paths, "answers")

    def loss_of(y: Any, wanted: Any) -> Any:
        card = wanted[:, 8]
        moved = (
            torch.nn.functional.smooth_l1_loss(y[:, :8], wanted[:, :8], beta=0.1, reduction="none").mean(1) * card
        ).sum() / card.sum().clamp(min=1)
        return moved + torch.nn.functional.binary_cross_entropy_with_logits(y[:, 8], card)

    trained = train_patch_net(
        torch, _nets(torch)["RefineNet"](outputs=9), draw, loss_of, minutes, out, seed=2, rate=rate, init=init
    )
    return {"patches": count, **trained}


class Detection(NamedTuple):
    """What ``Cascade.detect`` gives for one frame (full-resolution pixels, in the detector's corner order)."""

    rough: list[np.ndarray]
    """The first stage's outlines over the cascade's threshold."""
    kept: list[np.ndarray]
    """Those the checker moved and kept."""
    snapped: list[np.ndarray]
    """The kept ones with their sides snapped to the frame's edges: the detection."""
    doubtful: list[np.ndarray]
    """The first stage's outlines over ``doubt`` (and under the threshold, or not kept) whose centre lies on no kept
    outline: where a card may lie that the cascade did not give. With ``check_doubts`` over 0, only those the checker
    gives at least that card probability."""
    ms: list[float]
    """Each step's ms: resize, network, check, snap."""
    half: np.ndarray | None = None
    """The frame at half size (``pyramid``), for what comes after the cascade to share."""
    quarter: np.ndarray | None = None
    """The frame at the first stage's input size."""


class Cascade:
    """The first stage and the checker as onnxruntime sessions (one thread each), and the spike's whole detection."""

    def __init__(
        self,
        model: Path,
        checker: Path,
        threshold: float = 0.3,
        keep: float = 0.5,
        passes: int = 1,
        doubt: float = 0.1,
        check_doubts: float = 0.0,
    ) -> None:
        torch = _torch()
        cv2.setNumThreads(1)
        with tempfile.TemporaryDirectory() as tmp:
            self.first = _session(export_first_stage(torch, model, Path(tmp)))
            self.checking = patch_net_session(torch, checker, 9, Path(tmp))
        self.threshold, self.keep, self.passes, self.doubt = threshold, keep, passes, doubt
        self.check_doubts = check_doubts

    def detect(self, frame: np.ndarray) -> Detection:
        from vision.rectify import order_corners
        from vision.snapping import snap_to_edges

        to_full = frame.shape[1] / HALF[0]
        t0 = time.perf_counter()
        half, quarter = pyramid(frame)
        t1 = time.perf_counter()
        answer = first_answer(self.first, quarter)
        every, peaks = rough_outlines(answer, min(self.doubt, self.threshold))  # one decoding for both least peaks
        quads = [q for q, peak in zip(every, peaks, strict=True) if peak >= self.threshold]
        rough = quads
        t2 = time.perf_counter()
        probs = np.zeros(0)
        for _ in range(self.passes):
            quads, probs = check(half, quarter, quads, self.checking)
        kept = surest(quads, probs, self.keep)
        full = [order_corners(q * to_full) for q in kept]
        low = [q for q, off in zip(every, off_every(every, kept), strict=True) if off]
        if self.check_doubts > 0 and low:  # the checker's word on them too: kept (where they are) if may be a card
            chance = check(half, quarter, low, self.checking)[1]
            low = [q for q, c in zip(low, chance, strict=True) if c >= self.check_doubts]
        doubtful = [order_corners(q * to_full) for q in low]
        t3 = time.perf_counter()
        snapped = snap_to_edges(frame, full) if full else []
        t4 = time.perf_counter()
        return Detection(
            [order_corners(q * to_full) for q in rough],
            full,
            snapped,
            doubtful,
            [1000 * (b - a) for a, b in ((t0, t1), (t1, t2), (t2, t3), (t3, t4))],
            half,
            quarter,
        )


def evaluate(cascade: Cascade, kind: str, scenes: int, seed: int) -> dict[str, Any]:
    counts = new_counts()
    times: dict[str, list[float]] = {"resize": [], "network": [], "check": [], "snap": []}
    errors: list[tuple[float, float]] = []
    for scene in evaluation_scenes(kind, scenes, seed):
        found = cascade.detect(scene.image)
        for key, dt in zip(times, found.ms, strict=True):
            times[key].append(dt)
        tally(counts, scene.cards, found.kept, found.snapped)
        for _, truth in scene.cards:
            if (rough_error := corner_error(truth, found.rough)) is not None:
                errors.append((rough_error, final_error(truth, found.kept)))
    return {
        "kind": kind,
        "seed": seed,
        "threshold": cascade.threshold,
        "keep": cascade.keep,
        "passes": cascade.passes,
        **counts,
        **medians(times),
        **corner_errors(errors),
    }


def add_patch_commands(sub: Any, scenes: int, first_seed: int, minutes: float) -> argparse.ArgumentParser:
    """A patch network's "patches" command (lessons drawn from training scenes through a trained first stage) and
    "train" command (on those lessons) on the subcommands ``sub``, with these defaults; the "patches" parser, for the
    network's own options."""
    p: argparse.ArgumentParser = sub.add_parser("patches")
    p.add_argument("--model", type=Path, required=True, help="a trained first stage (keypoint_spike.py train)")
    p.add_argument("--scenes", type=int, default=scenes)
    p.add_argument("--first-seed", type=int, default=first_seed, help="draw from these seeds on (25 scenes a seed)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--source", choices=SOURCES, default="synth", help="synthetic scenes or the simulated table's")
    t = sub.add_parser("train")
    t.add_argument("--patches", type=Path, nargs="+", required=True)
    t.add_argument("--minutes", type=float, default=minutes)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--rate", type=float, default=3e-3, help="the cosine rate's start")
    t.add_argument("--init", type=Path, help="go on from this saved network")
    return p


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    p = add_patch_commands(sub, scenes=3000, first_seed=400, minutes=10.0)
    p.add_argument("--threshold", type=float, default=0.1, help="the first stage's least peak for an outline")
    e = sub.add_parser("evaluate")
    e.add_argument("--model", type=Path, required=True)
    e.add_argument("--checker", type=Path, required=True)
    e.add_argument("--kind", choices=("realistic", "hard", "clutter"), default="realistic")
    e.add_argument("--scenes", type=int, default=10, help="scenes a held-out design (clutter: as many frames)")
    e.add_argument("--seed", type=int, default=2024)
    e.add_argument("--threshold", type=float, default=0.3, help="the heatmap's least peak for an outline")
    e.add_argument("--keep", type=float, default=0.5, help="the checker's least card probability for a card")
    e.add_argument("--passes", type=int, default=1, help="times the checker moves each outline")
    args = parser.parse_args()
    if args.command == "patches":
        print(mine_patches(args.model, args.scenes, args.out, args.first_seed, args.threshold, args.source))
    elif args.command == "train":
        print(train_checker(args.patches, args.minutes, args.out, args.rate, args.init))
    else:
        cascade = Cascade(args.model, args.checker, args.threshold, args.keep, args.passes)
        print(evaluate(cascade, args.kind, args.scenes, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
