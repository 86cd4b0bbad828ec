"""A third small network for the keypoint cascade: is a final (snapped) outline on its card, or off it? A spike for
issue 5's speed target; nothing in ``vision/`` uses it.

    .venv/bin/python benchmarks/keypoint_verifier.py patches --model /tmp/kp.pt --checker /tmp/kc.pt --scenes 2000 \
        --first-seed 600 --out /tmp/kv_patches.npz
    .venv/bin/python benchmarks/keypoint_verifier.py train --patches /tmp/kv_patches.npz --minutes 8 --out /tmp/kv.pt

``keypoint_hybrid.py`` hands a frame's doubtful parts to the shipped detector where a side of an outline lies off
the edge map; on hard frames most outlines that are off their card (12-28% of its width) have every side on
edges all the same: one side on a chip's or a neighbour's edge, or all four on a court figure's frame. This network
(``keypoint_spike``'s ``RefineNet`` with one output) looks at the patch an outline rectifies (``level_patch``) and
answers how likely the outline is on its card.

* **Lessons** (``patches``): scenes of the training designs (seeds the first stage and the checker did not learn
  from) through the cascade (``keypoint_cascade.Cascade``); each snapped outline within ``GOOD`` of its card's width
  (``corner_error``) is "on", each ``BAD`` or more off (or on no card) is "off", those between teach nothing. Too
  few are off, so each card adds one outline moved a little (on) and one spoiled as the cascade spoils them
  (``spoil``: a corner or a side moved out or in, or the whole outline scaled; off).
* **Training** (``train``): cross-entropy, AdamW, cosine rate, colour gain, two threads.

Needs torch (the training extra, models/README.md) and the Debian designs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.keypoint_cascade import (  # noqa: E402
    HALF,
    Cascade,
    add_patch_commands,
    level_patch,
    patch_sampler,
    pyramid,
    short_side,
)
from benchmarks.keypoint_spike import (  # noqa: E402
    _nets,
    answer_patches,
    clockwise,
    corner_error,
    patch_net_session,
    train_patch_net,
)
from benchmarks.segmentation_spike import _torch  # noqa: E402
from benchmarks.sim_scenes import scenes_from  # noqa: E402

GOOD, BAD = 0.06, 0.12
"""An outline whose farthest corner is within ``GOOD`` of its card's width is on the card; ``BAD`` or more, off (the
recognition benchmark's match is 12%)."""


def spoil(truth: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``truth`` (clockwise) spoiled as the cascade spoils outlines: one corner moved 15-35% of the card's width, one
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


def on_card(quad: np.ndarray, truths: list[np.ndarray], good: float = GOOD) -> float | None:
    """1.0 where ``quad`` is within ``good`` of a card of ``truths``, 0.0 where it is ``BAD`` or more off every card
    (or near none), None between."""
    if not truths:
        return 0.0
    card = min(truths, key=lambda t: float(np.linalg.norm(t.mean(axis=0) - quad.mean(axis=0))))
    error = corner_error(card, [quad])  # (over the card's width; None: the outline's centre is not on the card)
    if error is None or error >= BAD:
        return 0.0
    return 1.0 if error < good else None


def _mine(job: tuple[int, int, str, str, float, str]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, model, checker, good, source = job
    cascade = Cascade(Path(model), Path(checker))
    rng = np.random.default_rng([seed, 782])
    patches, labels = [], []
    for scene in scenes_from(source, seed, count, salt=781):
        half, quarter = pyramid(scene.image)
        to_half = HALF[0] / scene.image.shape[1]
        truths = [clockwise(np.asarray(q, np.float32).reshape(4, 2) * to_half) for _, q in scene.cards]
        outlines = [clockwise(q * to_half) for q in cascade.detect(scene.image).snapped]
        outlines += [t + rng.normal(0, 0.01 * short_side(t), (4, 2)).astype(np.float32) for t in truths]
        outlines += [spoil(t, rng) for t in truths]
        for quad in outlines:
            if (verdict := on_card(quad, truths, good)) is not None:
                patches.append(level_patch(half, quarter, quad)[0])
                labels.append(verdict)
    return np.stack(patches), np.array(labels, np.float32)


def mine_patches(
    model: Path, checker: Path, scenes: int, out: Path, first: int, good: float = GOOD, source: str = "synth"
) -> dict[str, Any]:
    t0 = time.time()
    with Pool(2) as pool:
        parts = pool.map(
            _mine,
            [(seed, 25, str(model), str(checker), good, source) for seed in range(first, first + max(1, scenes // 25))],
        )
    patches = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    np.savez(out, patches=patches, labels=labels)
    return {
        "patches": len(patches),
        "on": int(labels.sum()),
        "off": int((labels == 0).sum()),
        "seconds": round(time.time() - t0, 1),
        "file": str(out),
    }


def train_verifier(
    paths: list[Path], minutes: float, out: Path, rate: float = 3e-3, init: Path | None = None
) -> dict[str, Any]:
    """``minutes`` of training (``keypoint_spike.train_patch_net``, batch 128, cross-entropy on on or off)."""
    torch = _torch()
    count, draw = patch_sampler(paths, "labels")
    trained = train_patch_net(
        torch,
        _nets(torch)["RefineNet"](outputs=1),
        draw,
        lambda y, wanted: torch.nn.functional.binary_cross_entropy_with_logits(y[:, 0], wanted),
        minutes,
        out,
        seed=3,
        rate=rate,
        init=init,
    )
    return {"patches": count, **trained}


class Verifier:
    """The trained verifier as an onnxruntime session (one thread)."""

    def __init__(self, path: Path) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            self.session = patch_net_session(_torch(), path, 1, Path(tmp))

    def trust(
        self, frame: np.ndarray, quads: list[np.ndarray], levels: tuple[np.ndarray, np.ndarray] | None = None
    ) -> np.ndarray:
        """(Q,) how likely each full-resolution outline of ``frame`` is on its card (0-1); ``levels``: the frame's
        ``pyramid`` where it was made already."""
        if not quads:
            return np.zeros(0)
        half, quarter = pyramid(frame) if levels is None else levels
        to_half = HALF[0] / frame.shape[1]
        logits = answer_patches(self.session, [level_patch(half, quarter, clockwise(q * to_half))[0] for q in quads])
        out: np.ndarray = 1 / (1 + np.exp(-logits[:, 0]))
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    p = add_patch_commands(sub, scenes=2000, first_seed=600, minutes=8.0)
    p.add_argument("--checker", type=Path, required=True, help="a trained checker (keypoint_cascade.py train)")
    p.add_argument("--good", type=float, default=GOOD, help="an outline this near its card (of its width) is on it")
    args = parser.parse_args()
    if args.command == "patches":
        print(mine_patches(args.model, args.checker, args.scenes, args.out, args.first_seed, args.good, args.source))
    else:
        print(train_verifier(args.patches, args.minutes, args.out, args.rate, args.init))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
