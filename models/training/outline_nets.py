"""The outline finder's three trained networks as the files ``vision.learned_outlines`` loads: each as ONNX in the
models folder, and ``outline_nets.json`` beside them (each file's SHA-256 and the sizes the pipeline cuts), which it
checks at load.

    python -m models.training.outline_nets --first kp5.pt --checker kc2.pt --verifier kv2.pt [--out models]

``python -m models.training.build outline`` trains the three (``outline_first``, ``outline_checker``,
``outline_verifier``) and runs this last.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from models.training.outline_networks import export_onnx, load_first_stage, load_patch_net, load_torch
from vision.learned_outlines import FRAME, INPUT, PATCH, sha256

MODELS = Path(__file__).resolve().parents[1]
FILES = {"first_stage": "outline_first.onnx", "checker": "outline_checker.onnx", "verifier": "outline_verifier.onnx"}
"""Each network's ONNX file in the models folder."""


def export(first: Path, checker: Path, verifier: Path, out: Path) -> dict[str, Any]:
    """The three trained networks (saved by ``outline_first`` and the patch networks' ``train``) as ONNX in ``out``,
    and their metadata (written to ``out/outline_nets.json`` and returned)."""
    torch = load_torch()
    out.mkdir(parents=True, exist_ok=True)
    export_onnx(torch, load_first_stage(torch, first), *INPUT, out / FILES["first_stage"])
    for name, path, outputs in (("checker", checker, 9), ("verifier", verifier, 1)):
        export_onnx(torch, load_patch_net(torch, path, outputs), PATCH, PATCH, out / FILES[name], any_batch=True)
    meta = {
        "name": "outline_nets",
        "what": "the learned outline finder (vision/learned_outlines.py): first stage, checker, verifier",
        "frame_size": {"width": FRAME[0], "height": FRAME[1]},
        "first_stage_input": {"width": INPUT[0], "height": INPUT[1]},
        "patch": PATCH,
        "normalisation": "uint8 BGR / 255 - 0.5, channels first",
        "files": {name: {"file": file, "sha256": sha256(out / file)} for name, file in FILES.items()},
        "trained_from": {"first_stage": first.name, "checker": checker.name, "verifier": verifier.name},
        "training": "python -m models.training.build outline (models/training/build.py: the recipe)",
    }
    (out / "outline_nets.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m models.training.outline_nets", description="Export the three trained outline networks."
    )
    p.add_argument("--first", type=Path, required=True, help="the first stage (outline_first)")
    p.add_argument("--checker", type=Path, required=True, help="the checker (outline_checker train)")
    p.add_argument("--verifier", type=Path, required=True, help="the verifier (outline_verifier train)")
    p.add_argument("--out", type=Path, default=MODELS, help="the folder to write the networks and metadata to")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    print(json.dumps(export(args.first, args.checker, args.verifier, args.out), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
