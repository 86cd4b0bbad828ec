"""The learned outline finder's three networks (``vision.learned_outlines``): how they are made and shipped.

    # the commands of sessions 40-41 and 44 (docs/performance.md), about 160 minutes on two cores; training is timed
    # by the clock, so a slower machine (or a busy one) trains fewer steps
    P=".venv/bin/python benchmarks"
    $P/keypoint_spike.py scenes --scenes 4000 --out /tmp/kp_scenes.npz
    $P/keypoint_spike.py train --data /tmp/kp_scenes.npz --minutes 35 --out /tmp/kp.pt
    $P/keypoint_spike.py train --data /tmp/kp_scenes.npz --init /tmp/kp.pt --rate 1e-3 --minutes 20 --out /tmp/kp2.pt
    $P/keypoint_spike.py scenes --scenes 4000 --first-seed 160 --out /tmp/kp_scenes2.npz
    $P/keypoint_spike.py train --data /tmp/kp_scenes.npz /tmp/kp_scenes2.npz --init /tmp/kp2.pt --rate 1e-3 \
        --minutes 18 --out /tmp/kp3.pt
    $P/keypoint_cascade.py patches --model /tmp/kp3.pt --scenes 3000 --first-seed 400 --out /tmp/kc_patches.npz
    $P/keypoint_cascade.py train --patches /tmp/kc_patches.npz --minutes 12 --out /tmp/kc.pt
    $P/keypoint_verifier.py patches --model /tmp/kp3.pt --checker /tmp/kc.pt --scenes 2000 --first-seed 600 \
        --out /tmp/kv_patches.npz
    $P/keypoint_verifier.py train --patches /tmp/kv_patches.npz --minutes 8 --out /tmp/kv.pt
    # session 44: the simulated table's frames too (benchmarks/sim_scenes.py), about 50 minutes more
    $P/keypoint_spike.py scenes --source sim --scenes 2000 --first-seed 5000 --out /tmp/sim_scenes.npz
    $P/keypoint_spike.py train --data /tmp/kp_scenes.npz /tmp/kp_scenes2.npz /tmp/sim_scenes.npz /tmp/sim_scenes.npz \
        --init /tmp/kp3.pt --rate 1e-3 --minutes 15 --out /tmp/kp4.pt   # mines the table's patches below
    $P/keypoint_cascade.py patches --model /tmp/kp4.pt --scenes 1000 --first-seed 6000 --source sim --out
    /tmp/kc_sim.npz
    $P/keypoint_cascade.py train --patches /tmp/kc_patches.npz /tmp/kc_sim.npz /tmp/kc_sim.npz --init /tmp/kc.pt \
        --rate 1e-3 --minutes 6 --out /tmp/kc2.pt
    $P/keypoint_verifier.py patches --model /tmp/kp4.pt --checker /tmp/kc2.pt --scenes 1000 --first-seed 7000 \
        --source sim --out /tmp/kv_sim.npz
    $P/keypoint_verifier.py train --patches /tmp/kv_patches.npz /tmp/kv_sim.npz /tmp/kv_sim.npz --init /tmp/kv.pt \
        --rate 1e-3 --minutes 5 --out /tmp/kv2.pt
    $P/keypoint_spike.py train --data /tmp/kp_scenes.npz /tmp/kp_scenes2.npz /tmp/sim_scenes.npz --init /tmp/kp3.pt \
        --rate 3e-4 --minutes 15 --out /tmp/kp5.pt
    # shipped: the three as ONNX files beside their metadata
    .venv/bin/python -m models.training.outline_nets --first /tmp/kp5.pt --checker /tmp/kc2.pt --verifier /tmp/kv2.pt

The training code lives with the spikes that found it (``benchmarks/keypoint_*.py``, their docstrings say what each
step learns); this step exports the trained networks and writes ``models/outline_nets.json``, which
``vision.learned_outlines`` checks at load (each file's SHA-256, the sizes it was made for). Needs torch (the
training extra, models/README.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FILES = {"first_stage": "outline_first.onnx", "checker": "outline_checker.onnx", "verifier": "outline_verifier.onnx"}
"""Each network's ONNX file in ``models/``."""


def export(first: Path, checker: Path, verifier: Path, out: Path) -> dict[str, Any]:
    """The three trained networks (``torch.save`` files of the spikes) as ONNX in ``out``, and their metadata."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.keypoint_spike import _nets, export_first_stage
    from benchmarks.segmentation_spike import _export, _torch
    from vision.learned_outlines import INPUT, PATCH, sha256

    torch = _torch()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        (out / FILES["first_stage"]).write_bytes(export_first_stage(torch, first, Path(tmp)).read_bytes())
    for name, path, outputs in (("checker", checker, 9), ("verifier", verifier, 1)):
        model = _nets(torch)["RefineNet"](outputs=outputs)
        model.load_state_dict(torch.load(path)["state"])
        _export(torch, model, PATCH, PATCH, out / FILES[name], any_batch=True)
    meta = {
        "name": "outline_nets",
        "what": "the learned outline finder (vision/learned_outlines.py): first stage, checker, verifier",
        "frame_size": {"width": 1280, "height": 720},
        "first_stage_input": {"width": INPUT[0], "height": INPUT[1]},
        "patch": PATCH,
        "normalisation": "uint8 BGR / 255 - 0.5, channels first",
        "files": {name: {"file": file, "sha256": sha256(out / file)} for name, file in FILES.items()},
        "trained_from": {"first_stage": first.name, "checker": checker.name, "verifier": verifier.name},
        "training": "models/training/outline_nets.py (its docstring: the commands, about 160 minutes on two cores)",
    }
    (out / "outline_nets.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--first", type=Path, required=True, help="the first stage (keypoint_spike.py train)")
    parser.add_argument("--checker", type=Path, required=True, help="the checker (keypoint_cascade.py train)")
    parser.add_argument("--verifier", type=Path, required=True, help="the verifier (keypoint_verifier.py train)")
    parser.add_argument("--out", type=Path, default=ROOT / "models")
    args = parser.parse_args()
    print(json.dumps(export(args.first, args.checker, args.verifier, args.out), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
