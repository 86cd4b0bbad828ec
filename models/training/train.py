"""Train the card classifier (cardnet) on index-corner crops and export it to ONNX.

One command reruns everything (renders designs, builds crops, trains, exports, evaluates on held-out
designs and writes models/cardnet.onnx + models/cardnet.json):

    .venv/bin/pip install -e '.[train]'   # torch (CPU) and onnx
    .venv/bin/python -m models.training.train

Torch is only needed here; the runtime uses onnxruntime.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from models.training import dataset, designs
from models.training.render_designs import CACHE
from models.training.synth import LABELS
from vision.classify import preprocess
from vision.model_meta import ModelMeta
from vision.rectify import CORNER_FRACTION_H, CORNER_FRACTION_W, CORNER_H, CORNER_W

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "cardnet.onnx"
META = ROOT / "models" / "cardnet.json"

NORMALISATION = {"method": "white-point", "percentile": 98.0, "offset": 0.5}
THRESHOLDS = {"min_confidence": 0.45, "min_margin": 0.15, "not_a_card": 0.5, "unknown_not_a_card": 0.15}


def base_meta(training: list[str], held_out: list[str]) -> dict[str, object]:
    return {
        "name": "cardnet",
        "labels": [*LABELS, "none"],
        "input_size": {"height": CORNER_H, "width": CORNER_W, "channels": 3},
        "corner_crop": {"card_width_fraction": CORNER_FRACTION_W, "card_height_fraction": CORNER_FRACTION_H},
        "input_layout": "NCHW, BGR, two crops per card (top-left index; bottom-right index turned 180 deg)",
        "normalisation": NORMALISATION,
        "thresholds": THRESHOLDS,
        "training_designs": training,
        "held_out_designs": held_out,
        "accuracy": {},
    }


def training_design_names(decks: Mapping[str, object]) -> list[str]:
    """Design names for the metadata: each unbroken run of font-drawn styles as one range entry
    ("fonts:0-239"), not 240 lines; a style on its own keeps its own name."""
    fonts = sorted(int(k.removeprefix(designs.FONT_PREFIX)) for k in decks if designs.is_font_deck(k))
    names = sorted(k for k in decks if not designs.is_font_deck(k))
    runs: list[list[int]] = []
    for style in fonts:
        if runs and style == runs[-1][-1] + 1:
            runs[-1].append(style)
        else:
            runs.append([style])
    return names + [f"{designs.FONT_PREFIX}{r[0]}" + (f"-{r[-1]}" if len(r) > 1 else "") for r in runs]


def batch_record(batch: Any) -> tuple[list[str] | None, str | None]:
    """The deck names and the command ``build_crops`` stored with a crop batch (an ``np.load`` result);
    None for what a batch made before they were stored lacks."""
    decks = [str(k) for k in batch["decks"]] if "decks" in batch else None
    return decks, str(batch["command"]) if "command" in batch else None


def crop_batch_designs(batches: list[Any], default: Iterable[str]) -> tuple[list[str], list[str]]:
    """Training design names and build commands of the crop batches a model is trained on. A batch made
    before ``build_crops`` stored its decks was dealt from ``default`` (the training designs)."""
    names: set[str] = set()
    commands = []
    for decks, command in map(batch_record, batches):
        names |= set(default if decks is None else decks)
        if command is not None:
            commands.append(command)
    return training_design_names(dict.fromkeys(names)), commands


def _widths(text: str) -> tuple[int, int, int, int]:
    """``--widths 24,40,72,96``: four positive channel counts."""
    try:
        a, b, c, d = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected four channel counts like 24,40,72,96, got {text!r}") from None
    if min(a, b, c, d) < 1:
        raise argparse.ArgumentTypeError(f"channel counts must be positive, got {text!r}")
    return a, b, c, d


def meta_object(data: dict[str, object]) -> ModelMeta:
    from vision.model_meta import parse_meta

    return parse_meta(data, Path("<training>"))


WIDTHS = (24, 40, 72, 96)
"""Channels of the four convolution blocks of the shipped network (models v8 and v9; v1-v7 had 16/24/48/64).
``finetune`` reads them from the model it starts from."""


def build_net(widths: tuple[int, int, int, int] = WIDTHS):  # type: ignore[no-untyped-def]
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    a, b, c, d = widths
    return nn.Sequential(
        *block(3, a),
        nn.MaxPool2d(2),  # 48x32 -> 24x16
        *block(a, b),
        nn.MaxPool2d(2),  # -> 12x8
        *block(b, c),
        nn.MaxPool2d(2),  # -> 6x4
        *block(c, d),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(d * (CORNER_H // 8) * (CORNER_W // 8), len(LABELS) + 1),
    )


def augment(x: Any, gen: Any) -> Any:  # torch tensors; torch is imported only to train
    """Per-crop contrast/brightness/colour gain and a small shift/scale, on normalised tensors."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    gain = 1 + 0.25 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    chan = 1 + 0.12 * (torch.rand(n, 3, 1, 1, generator=gen) - 0.5)
    bias = 0.15 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    x = (x + 0.5) * gain * chan - 0.5 + bias
    theta = torch.zeros(n, 2, 3)
    s = 1 + 0.12 * (torch.rand(n, generator=gen) - 0.5)
    theta[:, 0, 0] = s
    theta[:, 1, 1] = s * (1 + 0.08 * (torch.rand(n, generator=gen) - 0.5))
    theta[:, :, 2] = 0.12 * (torch.rand(n, 2, generator=gen) - 0.5)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, padding_mode="border", align_corners=False)


def motion_blur(xs: Any, gen: Any, share: float, longest: int = 13) -> Any:
    """A line blur of 3 to ``longest`` px at any angle on a fraction ``share`` of the crops.

    The camera's motion blur of 6-8 px on a card 75-110 px wide is 8-14 px once the warp has scaled its
    index corner up to 32 px wide; the 3x3 blur of :func:`degrade` is far from that, and it was the hard
    scenes' largest loss (model only 84% on them, docs/performance.md). Each crop gets its own
    kernel: one grouped convolution over every channel of every blurred crop."""
    import math

    import torch
    import torch.nn.functional as F

    m, ch, h, w = xs.shape
    use = torch.rand(m, generator=gen) < share
    k = int(use.sum())
    if k == 0:
        return xs
    half = longest // 2
    offs = torch.arange(-half, half + 1, dtype=torch.float32)
    yy, xx = offs.view(1, -1, 1), offs.view(1, 1, -1)
    length = (3 + (longest - 3) * torch.rand(k, generator=gen)).view(k, 1, 1)
    angle = (math.pi * torch.rand(k, generator=gen)).view(k, 1, 1)
    along = xx * torch.cos(angle) + yy * torch.sin(angle)
    across = -xx * torch.sin(angle) + yy * torch.cos(angle)
    kern = (1 - across.abs()).clamp(min=0) * (length / 2 + 0.5 - along.abs()).clamp(0, 1)
    kern = kern / kern.sum(dim=(1, 2), keepdim=True)
    sel = xs[use].reshape(1, k * ch, h, w)
    padded = F.pad(sel, (half, half, half, half), mode="replicate")
    blurred = F.conv2d(padded, kern.repeat_interleave(ch, 0).unsqueeze(1), groups=k * ch)
    out = xs.clone()
    out[use] = blurred.reshape(k, ch, h, w)
    return out


def degrade(x: Any, gen: Any, p: float = 0.6, motion: float = 0.0) -> Any:
    """Held-out failure modes on normalised crops: blur, low resolution, glare, noise, slight misalignment.

    Applied to a fraction ``p`` of each batch on top of :func:`augment`; each effect is drawn per crop;
    ``motion`` of the degraded crops also get :func:`motion_blur`.
    Small cards give index corners of under 25 px that the warp upscales to 32 px (downscale-upscale
    imitates that); glare is a soft bright blob that saturates at the paper white.
    """
    import torch
    import torch.nn.functional as F

    n, _, h, w = x.shape
    pick = torch.rand(n, generator=gen) < p
    if not bool(pick.any()):
        return x
    xs = x[pick].clone()
    m = xs.shape[0]
    # low resolution: shrink to 40-85% and warp back up (bilinear, like rectify)
    if m:
        s = float(0.4 + 0.45 * torch.rand(1, generator=gen))
        low = F.interpolate(xs, size=(max(8, round(h * s)), max(6, round(w * s))), mode="area")
        up = F.interpolate(low, size=(h, w), mode="bilinear", align_corners=False)
        use = (torch.rand(m, 1, 1, 1, generator=gen) < 0.5).float()
        xs = use * up + (1 - use) * xs
    # blur: 3x3 box/gaussian mix of random strength
    k = torch.tensor([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16
    blurred = F.conv2d(F.pad(xs, (1, 1, 1, 1), mode="replicate"), k.expand(3, 1, 3, 3).contiguous(), groups=3)
    a = (torch.rand(m, 1, 1, 1, generator=gen) < 0.5).float() * torch.rand(m, 1, 1, 1, generator=gen)
    xs = a * blurred + (1 - a) * xs
    # glare: a soft bright blob pushing pixels toward (and past) paper white
    yy = torch.linspace(0, 1, h).view(1, 1, h, 1)
    xx = torch.linspace(0, 1, w).view(1, 1, 1, w)
    cy = torch.rand(m, 1, 1, 1, generator=gen)
    cx = torch.rand(m, 1, 1, 1, generator=gen)
    r = 0.15 + 0.35 * torch.rand(m, 1, 1, 1, generator=gen)
    blob = torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
    strength = (torch.rand(m, 1, 1, 1, generator=gen) < 0.35).float() * 0.9 * torch.rand(m, 1, 1, 1, generator=gen)
    xs = torch.minimum(xs + strength * blob * (0.75 - xs), torch.tensor(0.75))
    if motion > 0:  # no random draw when off, so train's own recipe draws as before
        xs = motion_blur(xs, gen, motion)
    # contrast loss (haze / low light) and sensor noise
    c = 1 - 0.4 * (torch.rand(m, 1, 1, 1, generator=gen) < 0.3).float() * torch.rand(m, 1, 1, 1, generator=gen)
    xs = (xs - 0.75) * c + 0.75
    xs = xs + 0.06 * torch.rand(m, 1, 1, 1, generator=gen) * torch.randn(xs.shape, generator=gen)
    out = x.clone()
    out[pick] = xs
    return out


def train(  # type: ignore[no-untyped-def]
    x: np.ndarray,
    y: np.ndarray,
    epochs: int,
    seed: int,
    threads: int,
    widths: tuple[int, int, int, int] = WIDTHS,
):
    import torch
    import torch.nn as nn

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(seed)
    net = build_net(widths)
    xt = torch.from_numpy(x)
    yt = torch.from_numpy(y)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 256
    steps = epochs * ((len(xt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        net.train()
        perm = torch.randperm(len(xt), generator=gen)
        total, correct, t0 = 0.0, 0, time.time()
        for k in range(0, len(xt), batch):
            idx = perm[k : k + batch]
            xb = degrade(augment(xt[idx], gen), gen)
            out = net(xb)
            loss = loss_fn(out, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
            correct += int((out.argmax(1) == yt[idx]).sum())
        print(
            f"  epoch {epoch + 1}/{epochs}: loss {total / len(xt):.3f}, train acc {correct / len(xt):.4f}, "
            f"{time.time() - t0:.0f}s",
            flush=True,
        )
    net.eval()
    return net


def export(net, path: Path) -> None:  # type: ignore[no-untyped-def]
    import torch

    dummy = torch.zeros(2, 3, CORNER_H, CORNER_W)
    torch.onnx.export(
        net,
        (dummy,),
        str(path),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m models.training.train", description="Train cardnet and export it.")
    ap.add_argument("--scenes", type=int, default=2400, help="training scenes to synthesise")
    ap.add_argument("--hard-share", type=float, default=0.3, help="share of hard scenes among scenes with cards")
    ap.add_argument(
        "--font-share",
        type=float,
        default=0.0,
        help="share of scenes dealt from font-drawn decks (font_faces.py; needs Pillow and fonts)",
    )
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--reuse-crops", action="store_true", help="reuse .cache/crops.npz if present")
    ap.add_argument(
        "--crops",
        type=Path,
        nargs="*",
        default=[],
        help="train on these crop files (from build_crops) instead of building crops",
    )
    ap.add_argument("--eval-scenes", type=int, default=40, help="held-out scenes per design for the model card")
    ap.add_argument("--out", type=Path, default=MODEL, help="where to write the ONNX model (metadata beside it)")
    ap.add_argument(
        "--no-quantize",
        action="store_true",
        help="write the float32 model to --out instead of its int8 form (quantize.py)",
    )
    ap.add_argument(
        "--widths",
        type=_widths,
        default=WIDTHS,
        metavar="A,B,C,D",
        help="channels of the four convolution blocks (default 24,40,72,96, the shipped network)",
    )
    return ap


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    t_start = time.time()

    decks = designs.training_decks() | (designs.font_decks() if args.font_share > 0 else {})
    held = designs.held_out_decks()
    print(f"{len(decks)} training designs, {len(held)} held out: {', '.join(held)}", flush=True)
    crops_file = CACHE.parent / "crops.npz"
    names, commands = training_design_names(decks), list[str]()
    if args.crops:
        parts = [np.load(f) for f in args.crops]
        crops = np.concatenate([p["crops"] for p in parts])
        labels = np.concatenate([p["labels"] for p in parts])
        names, commands = crop_batch_designs(parts, decks)  # the decks the crops came from
        print(f"crops: {len(labels)} examples from {len(parts)} files", flush=True)
    elif args.reuse_crops and crops_file.exists():
        data = np.load(crops_file)
        crops, labels = data["crops"], data["labels"]
    else:
        crops, labels, stats = dataset.build(
            decks, args.scenes, args.seed, hard_share=args.hard_share, font_share=args.font_share
        )
        print(
            f"crops: {len(labels)} examples, detector found {stats['detected']}/{stats['cards']} cards, "
            f"{stats['negatives']} negatives",
            flush=True,
        )
        np.savez(crops_file, crops=crops, labels=labels)
    meta = base_meta(names, sorted(held))
    m = meta_object(meta)
    x = preprocess(crops, m)  # (2M, 3, H, W)
    y = np.repeat(labels, 2)
    print(f"training on {len(y)} corner crops ({time.time() - t_start:.0f}s so far)", flush=True)
    net = train(x, y, args.epochs, args.seed, args.threads, args.widths)
    # The int8 form ships (quantize.py); the float model is kept beside the crops to fine-tune from.
    float_out = args.out if args.no_quantize else CACHE.parent / f"{args.out.stem}_float.onnx"
    float_out.parent.mkdir(parents=True, exist_ok=True)
    export(net, float_out)
    meta["training"] = {
        "scenes": args.scenes if not args.crops else None,
        "examples": int(len(labels)),
        "crop_files": [str(f) for f in args.crops],
        **({"crop_commands": commands} if commands else {}),
        "epochs": args.epochs,
        "seed": args.seed,
        "widths": list(args.widths),
        "seconds": round(time.time() - t_start),
    }
    float_out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    if not args.no_quantize:
        from models.training import quantize

        pick = np.sort(np.random.default_rng(args.seed).permutation(len(x))[:1000])
        quantize.quantize_model(float_out, args.out, quantize.batches(x[pick]))
        quantize.write_meta(
            float_out,
            args.out,
            {"calibration_crops": f"{len(pick)} corner crops of the training crops", "seed": args.seed},
        )
    print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KiB) in {time.time() - t_start:.0f}s", flush=True)

    from models.training import evaluate

    evaluate.main(["--model", str(args.out), "--scenes", str(args.eval_scenes), "--write"])


if __name__ == "__main__":
    main()
