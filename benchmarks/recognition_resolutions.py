"""Card recognition at other resolutions: held-out scenes drawn at each frame size, the recogniser with and without its
working scale (``vision.working_scale``).

    .venv/bin/python benchmarks/recognition_resolutions.py [--scenes 1] [--clutter 2] [--seed 2024]
                                                           [--sizes 640x480,1280x720,...] [--speed-frames 0]
                                                           [--json]

* Every held-out design (never trained on), in realistic and hard scenes (``evaluate.NORMAL``, ``HARD``) drawn at each
  size (not resized: light, blur, noise and JPEG in that frame's pixels), the cards' widths, gaps and clutter scaled
  with the frame's shorter side (720 at 1280x720): 1280x720's scenes are the evaluation's. Portrait sizes are drawn
  upright, as a camera turned on its side sees the table.
* ``before``: ``Recognizer(working_scale=False)``, the frame as it comes (the learned networks on 16:9 frames only,
  the shipped detector on every other, both at the frame's own pixels); ``after``: the working scale.
* Found: a detected outline matches the card's true outline (``evaluate.counted``: corners within 12% of the card's
  width, in frame pixels). Named: found and labelled right. Wrong: found and labelled another card. False cards: per
  frame, outlines where there is no card, in the card scenes and in ``--clutter`` clutter-only frames a size.
* Time: median wall milliseconds a frame over the card scenes (recognition only, not drawing), one thread, and the
  process CPU milliseconds beside it (the machine is shared: CPU time is the steadier).
* ``--speed-frames N``: the same frames at each size, for the time alone: ``bench_recognition``'s speed frames (12 of
  the project's own drawn cards, 1280x720) and each resized to 3840x2160 and turned to 2160x3840; median CPU
  milliseconds a frame and the ratio to 1280x720's.

Needs the Debian designs (gnome-cards-data, kdegames-card-data-kf5, librsvg2-bin).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.training import designs  # noqa: E402
from models.training.evaluate import NORMAL, Tally, counted, held_out_scenes  # noqa: E402
from models.training.render_designs import CACHE  # noqa: E402
from models.training.synth import HARD, SceneSpec, make_scene  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402

SIZES = ((640, 480), (1280, 720), (1920, 1080), (3840, 2160), (720, 1280), (2160, 3840))
"""The frame sizes measured: 4:3 VGA, the training frames' 720p, 1080p, 4K, and 720p and 4K in portrait."""


def spec_at(spec: SceneSpec, size: tuple[int, int]) -> SceneSpec:
    """``spec`` drawn at ``size`` (width, height): card widths and gaps scaled with the frame's shorter side."""
    f = min(size) / 720
    lo, hi = spec.card_width
    return replace(spec, width=size[0], height=size[1], card_width=(lo * f, hi * f), gap=spec.gap * f)


@dataclass
class Run:
    """One recogniser's figures at one size and kind of scene."""

    tally: Tally = field(default_factory=Tally)
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)

    def row(self) -> dict[str, float | int]:
        t = self.tally
        return {
            "cards": t.cards,
            "found": t.found,
            "named": t.named,
            "wrong": t.wrong,
            "false_per_frame": round(t.false_cards / max(1, t.frames), 2),
            "median_ms": round(statistics.median(self.wall_ms), 1) if self.wall_ms else 0.0,
            "median_cpu_ms": round(statistics.median(self.cpu_ms), 1) if self.cpu_ms else 0.0,
        }


def recognised(
    rec: Recognizer, image: np.ndarray, truth: list[tuple[str, np.ndarray]], run: Run, *, timed: bool
) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    seen = rec.recognize(image)
    if timed:
        run.wall_ms.append(1000 * (time.perf_counter() - wall))
        run.cpu_ms.append(1000 * (time.process_time() - cpu))
    run.tally.add(counted(truth, seen)[0])


def measure(sizes: list[tuple[int, int]], scenes: int, clutter: int, seed: int) -> dict[str, object]:
    decks = designs.held_out_decks(CACHE)
    if not decks:
        sys.exit("the held-out card designs are not rendered: the Debian designs are needed (see the docstring)")
    recs = {"before": Recognizer(threads=1, working_scale=False), "after": Recognizer(threads=1)}
    out: dict[str, object] = {}
    for size in sizes:
        name = f"{size[0]}x{size[1]}"
        runs = {(kind, which): Run() for kind in ("realistic", "hard", "clutter") for which in recs}
        for kind, spec, kind_seed in (("realistic", NORMAL, seed), ("hard", HARD, seed + 1)):
            for _, scene in held_out_scenes(decks, spec_at(spec, size), scenes, kind_seed):
                for which, rec in recs.items():
                    recognised(rec, scene.image, scene.cards, runs[(kind, which)], timed=True)
        rng = np.random.default_rng([seed, 7])
        for _ in range(clutter):
            n = int(rng.integers(2, 7))
            scene = make_scene(rng, None, spec_at(replace(NORMAL, n_cards=0, clutter=n), size))
            for which, rec in recs.items():
                recognised(rec, scene.image, [], runs[("clutter", which)], timed=False)
        out[name] = {f"{kind} {which}": run.row() for (kind, which), run in runs.items()}
        print(f"{name} done", file=sys.stderr, flush=True)
    return out


def table(result: dict[str, object]) -> str:
    """The figures as a Markdown table: a row per size and recogniser."""
    lines = [
        "| frame | recogniser | realistic found / named / wrong | hard found / named / wrong | false cards a frame "
        "(cards / clutter) | median ms (CPU) |",
        "|---|---|---|---|---|---|",
    ]
    for name, rows in result.items():
        assert isinstance(rows, dict)
        for which in ("before", "after"):
            r, h, c = rows[f"realistic {which}"], rows[f"hard {which}"], rows[f"clutter {which}"]
            false = (r["false_per_frame"] + h["false_per_frame"]) / 2
            ms = statistics.median([r["median_ms"], h["median_ms"]])
            cpu = statistics.median([r["median_cpu_ms"], h["median_cpu_ms"]])
            lines.append(
                f"| {name} | {which} | {r['found']} / {r['named']} / {r['wrong']} of {r['cards']} "
                f"| {h['found']} / {h['named']} / {h['wrong']} of {h['cards']} "
                f"| {false:.2f} / {c['false_per_frame']:.2f} | {ms:.0f} ({cpu:.0f}) |"
            )
    return "\n".join(lines)


def speed(frames: int) -> dict[str, float]:
    """Median CPU ms a frame of ``bench_recognition``'s speed frames at 1280x720, resized to 4K, and turned to portrait
    4K (the working scale's recogniser)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_recognition import speed_scenes  # type: ignore[import-not-found]

    rec = Recognizer(threads=1)
    images = [scene.image for scene in speed_scenes(frames)]
    sized = {
        "1280x720": images,
        "3840x2160": [cv2.resize(im, (3840, 2160), interpolation=cv2.INTER_CUBIC) for im in images],
    }
    sized["2160x3840"] = [cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE) for im in sized["3840x2160"]]
    out: dict[str, float] = {}
    for name, batch in sized.items():
        rec.recognize(batch[0])  # warm
        cpu = []
        for im in batch:
            start = time.process_time()
            rec.recognize(im)
            cpu.append(1000 * (time.process_time() - start))
        out[f"{name} median_cpu_ms"] = round(statistics.median(cpu), 1)
    for name in ("3840x2160", "2160x3840"):
        out[f"{name} / 1280x720"] = round(out[f"{name} median_cpu_ms"] / out["1280x720 median_cpu_ms"], 2)
    return out


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=1, help="scenes per held-out design, kind and size")
    ap.add_argument("--clutter", type=int, default=2, help="clutter-only frames a size")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES), help="WxH,WxH,...")
    ap.add_argument("--speed-frames", type=int, default=0, help="also time this many frames at 1280x720 and 4K")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = measure([_size(s) for s in args.sizes.split(",")], args.scenes, args.clutter, args.seed)
    timed = speed(args.speed_frames) if args.speed_frames else {}
    if args.json:
        print(json.dumps({**result, "speed": timed} if timed else result, indent=2))
        return
    print(table(result))
    for key, value in timed.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
