"""What the photographic look (``synth.SceneSpec.realism``) costs a training scene: CPU milliseconds per 1280x720
scene of 12 cards of ``faces_deck(0)``, without it and with it on every scene, OpenCV on one thread.

    OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/bench_photo_look.py [--scenes 20]
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from models.training import synth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=20)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    deck = synth.faces_deck(0)
    for realism in (0.0, 1.0):
        rng = np.random.default_rng(5)
        synth.make_scene(rng, deck, synth.SceneSpec(realism=realism))  # the deck's faces drawn once
        start = time.process_time()
        for _ in range(args.scenes):
            synth.make_scene(rng, deck, synth.SceneSpec(realism=realism))
        print(f"realism {realism}: {(time.process_time() - start) / args.scenes * 1000:.1f} ms per scene")


if __name__ == "__main__":
    main()
