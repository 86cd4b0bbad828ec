"""How good is the table plane estimated from the cards (``vision.plane_from_cards``)? On held-out frames.

    .venv/bin/python benchmarks/bench_plane_from_cards.py [--kind realistic|hard] [--scenes 20] [--seed 2024]

The frames are ``models.training.evaluate``'s (realistic scenes at ``--seed``, hard ones at ``--seed + 1``).
For each frame the detector runs without a plane and without the estimate (``estimate_plane=False``), the
plane is estimated from its outlines, and the frame's true card outlines are measured on three planes: the
estimated one, the scene's true one, and the image itself. Per frame: the largest deviation of a card's
short side (and long side) from the frame's median, as a share of it. On the true plane that deviation is
the generator's own spread of card sizes and outline rounding; an estimate as good as the true plane gives
the same figures. Also: the frames with no estimate (fewer than four outlines, or outlines that are no
one deck on one flat table) and the time of an estimate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.evaluate import held_out_scenes, kind_spec  # noqa: E402
from vision.detect import DEFAULT_CONFIG, detect_cards  # noqa: E402
from vision.plane_from_cards import mean_side_vectors, plane_from_cards  # noqa: E402
from vision.quads import plane_points  # noqa: E402


def deviation(plane: np.ndarray, quads: list[np.ndarray]) -> tuple[float, float]:
    """The largest |side / median - 1| of the short and of the long sides of ``quads`` on ``plane``."""
    p = plane_points(np.stack(quads).astype(np.float32), tuple(np.asarray(plane, np.float64).ravel()))
    a, b = (np.linalg.norm(v, axis=1) for v in mean_side_vectors(p))
    short, long_ = np.minimum(a, b), np.maximum(a, b)
    return float(np.abs(short / np.median(short) - 1).max()), float(np.abs(long_ / np.median(long_) - 1).max())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=("realistic", "hard"), default="realistic")
    ap.add_argument("--scenes", type=int, default=20, help="scenes per held-out design")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    spec, seed = kind_spec(args.kind, args.seed)
    config = replace(DEFAULT_CONFIG, estimate_plane=False)
    rows: dict[str, list[tuple[float, float]]] = {"estimated": [], "true": [], "image": []}
    missing = frames = 0
    times: list[float] = []
    for _, scene in held_out_scenes(designs.held_out_decks(), spec, args.scenes, seed):
        frames += 1
        quads = detect_cards(scene.image, config)
        t0 = time.perf_counter()
        plane = plane_from_cards(quads, scene.image.shape)
        times.append(time.perf_counter() - t0)
        if plane is None:
            missing += 1
            continue
        truths = [q for _, q in scene.cards]
        rows["estimated"].append(deviation(plane, truths))
        assert scene.plane is not None  # every generated scene has its plane
        rows["true"].append(deviation(scene.plane, truths))
        rows["image"].append(deviation(np.eye(3), truths))

    def percentiles(values: list[float]) -> dict[str, float]:
        return {f"p{p}": round(float(np.percentile(values, p)), 3) for p in (50, 90, 100)}

    out = {
        "command": " ".join(["benchmarks/bench_plane_from_cards.py", *sys.argv[1:]]),
        "frames": frames,
        "no_estimate": missing,
        "estimate_ms_median": round(1000 * statistics.median(times), 2),
        **{f"{name}_plane_short_side": percentiles([r[0] for r in v]) for name, v in rows.items()},
        **{f"{name}_plane_long_side": percentiles([r[1] for r in v]) for name, v in rows.items()},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
