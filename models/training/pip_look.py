"""The pip model: a card's suit and rank read from its whole face (the pips), for cards the index model is unsure of.

    .venv/bin/python -m models.training.pip_look [--threads 2] [--out models/pipnet.onnx]   # crops, train, export
    .venv/bin/python -m models.training.pip_look --accuracy 20   # measure it on the held-out designs

Why: in hard scenes most cards named wrong have the right rank and the other suit of their colour (clubs read
as spades and spades as clubs), and most of them are motion-blurred: the index's suit is a few pixels high,
while the pips in the middle of a number card are several times larger and read where the index does not.
This network sees the whole card, rectified (``vision.pip_look.card_image``: grey, 48 x 68, normalised to its
paper white), and outputs four suit logits (``SUITS``) and eleven rank logits (``RANKS``: A-10 and "court").
The recogniser weighs an unsure card's faces by them (``vision.recognizer``, ``PIP_LOOK_BELOW``).

Crops come from the project's own detector and warp step on synthetic scenes of the training designs (a card
the detector misses is cut from its true outline, jittered), as ``models.training.dataset`` makes the index
crops; the held-out designs and the validation font styles (960 on) never train it. The four crop batches
(``PARTS``) are built in parallel and cached in ``.cache``, so a second run trains at once."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from models.training import designs
from models.training.dataset import card_outline, detected_scenes
from models.training.synth import LABELS, Deck
from vision.pip_look import PIP_H, PIP_W, RANKS, SUITS, card_image, rank_of_face

ROOT = Path(__file__).resolve().parents[2]
CHANNELS = (24, 48, 64, 96)  # the five convolutions: a, b, c, d, d


def build(
    decks: dict[str, Deck],
    n_scenes: int,
    seed: int,
    *,
    hard_share: float = 0.6,
    font_share: float = 0.5,
    log_every: int = 200,
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Whole-card images (M, PIP_H, PIP_W) uint8 of every face-up card of ``n_scenes`` scenes and their faces
    (M,) int64 (index in ``LABELS``, suit-major): through the detected outline where the detector found the
    card, else through its true outline jittered."""
    rng = np.random.default_rng(seed)
    images: list[np.ndarray] = []
    faces: list[int] = []
    stats = {"cards": 0, "detected": 0}
    for i, scene, found in detected_scenes(
        rng, decks, n_scenes, hard_share=hard_share, font_share=font_share, empty=False
    ):
        for label, quad in scene.cards:
            if label == "back":
                continue
            stats["cards"] += 1
            q, detected = card_outline(rng, quad, found, 0.015)
            stats["detected"] += detected
            images.append(card_image(scene.image, q))
            faces.append(LABELS.index(label))
        if log_every and (i + 1) % log_every == 0:
            print(f"  scenes {i + 1}/{n_scenes}: {len(faces)} cards, detected {stats['detected']}", flush=True)
    return np.stack(images), np.array(faces, np.int64), stats


def build_net(channels: tuple[int, int, int, int] = CHANNELS):  # type: ignore[no-untyped-def]
    import torch.nn as nn

    a, b, c, d = channels

    def conv(cin: int, cout: int, stride: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    return nn.Sequential(
        *conv(1, a, 2),
        *conv(a, b, 2),
        *conv(b, c, 1),
        *conv(c, d, 2),
        *conv(d, d, 1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(d, len(SUITS) + len(RANKS)),
    )


def augment(x: Any, gen: Any) -> Any:
    """Half the cards turned 180 degrees (the outline's order can start at either short side), contrast and
    brightness, a small shift and scale, and on a third a further line blur (the scenes give some already)."""
    import torch
    import torch.nn.functional as F

    from models.training.train import motion_blur

    n = x.shape[0]
    turn = torch.rand(n, generator=gen) < 0.5
    x = torch.where(turn.view(n, 1, 1, 1), torch.flip(x, dims=(2, 3)), x)
    gain = 1 + 0.3 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    bias = 0.15 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    x = (x + 0.5) * gain - 0.5 + bias
    theta = torch.zeros(n, 2, 3)
    s = 1 + 0.08 * (torch.rand(n, generator=gen) - 0.5)
    theta[:, 0, 0] = s
    theta[:, 1, 1] = s * (1 + 0.05 * (torch.rand(n, generator=gen) - 0.5))
    theta[:, :, 2] = 0.06 * (torch.rand(n, 2, generator=gen) - 0.5)
    x = F.grid_sample(
        x, F.affine_grid(theta, list(x.shape), align_corners=False), padding_mode="border", align_corners=False
    )
    x = motion_blur(x, gen, 0.3, longest=7)
    return x + 0.04 * torch.rand(n, 1, 1, 1, generator=gen) * torch.randn(x.shape, generator=gen)


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, threads: int):  # type: ignore[no-untyped-def]
    import torch
    import torch.nn as nn

    from vision.pip_look import normalise

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(seed)
    net = build_net()
    xt = torch.from_numpy(normalise(x)).unsqueeze(1)
    suit_t = torch.from_numpy(y // 13)  # LABELS are suit-major, 13 ranks a suit
    rank_t = torch.from_numpy(rank_of_face(y))
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = epochs * ((len(xt) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(xt), generator=gen)
        total, right, t0 = 0.0, 0, time.time()
        for k in range(0, len(xt), 128):
            idx = order[k : k + 128]
            xb = augment(xt[idx], gen)
            logits = net(xb)
            loss = loss_fn(logits[:, : len(SUITS)], suit_t[idx]) + loss_fn(logits[:, len(SUITS) :], rank_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            right += int(
                (
                    (logits[:, : len(SUITS)].argmax(1) == suit_t[idx])
                    & (logits[:, len(SUITS) :].argmax(1) == rank_t[idx])
                ).sum()
            )
        print(
            f"  epoch {epoch + 1}/{epochs}: loss {total / len(xt):.4f}, train accuracy {right / len(xt):.4f} "
            f"({time.time() - t0:.0f} s)",
            flush=True,
        )
    net.eval()
    return net


def export(net: Any, path: Path) -> None:
    import torch

    dummy = torch.zeros(1, 1, PIP_H, PIP_W)
    torch.onnx.export(
        net,
        (dummy,),
        str(path),
        input_names=["cards"],
        output_names=["suit_logits"],
        dynamic_axes={"cards": {0: "n"}, "suit_logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def accuracy(model: Path, scenes: int = 5) -> dict[str, object]:
    """The pip model alone on the held-out designs, through every face-up card's true outline in the model
    card's realistic and hard scenes (``evaluate.held_out_scenes``, seeds 2024 and 2025): the share of number
    cards (A-10) whose suit and whose rank it reads right, and of court cards whose suit it does."""
    from models.training.evaluate import NORMAL, held_out_scenes
    from models.training.synth import HARD
    from vision.pip_look import PipLook

    pip = PipLook(model)
    out: dict[str, object] = {
        "command": f"python -m models.training.pip_look --accuracy {scenes}",
        "held_out_designs": sorted(designs.HELD_OUT),
    }
    for kind, spec, seed in (("realistic", NORMAL, 2024), ("hard", HARD, 2025)):
        faces: list[int] = []
        suit_right: list[bool] = []
        rank_right: list[bool] = []
        for _, scene in held_out_scenes(designs.held_out_decks(), spec, scenes, seed):
            cards = [(LABELS.index(label), q) for label, q in scene.cards if label != "back"]
            suits, ranks = pip.read(scene.image, [q for _, q in cards])
            truth = np.array([f for f, _ in cards], np.int64)
            faces += truth.tolist()
            suit_right += (suits.argmax(axis=1) == truth // 13).tolist()  # LABELS are suit-major, as SUITS
            rank_right += (ranks.argmax(axis=1) == rank_of_face(truth)).tolist()
        court = rank_of_face(np.array(faces, np.int64)) == RANKS.index("court")
        number = ~court
        suit_ok, rank_ok = np.array(suit_right, bool), np.array(rank_right, bool)
        out[kind] = {
            "number_cards": int(number.sum()),
            "court_cards": int(court.sum()),
            "number_suit": round(float(suit_ok[number].mean()), 4) if number.any() else 0.0,
            "number_rank": round(float(rank_ok[number].mean()), 4) if number.any() else 0.0,
            "court_suit": round(float(suit_ok[court].mean()), 4) if court.any() else 0.0,
        }
    return out


PARTS = ((77, "0-239"), (78, "0-239"), (79, "240-479"), (80, "240-479"))
"""The crop batches the shipped model was trained on: (seed, font styles), each ``--scenes`` scenes; from style
240 on the pip field varies (``font_faces.VARIED_LAYOUT_FROM``)."""
CACHE = ROOT / ".cache"


def build_part(seed: int, styles: str, scenes: int, out: Path) -> Path:
    """One crop batch, written to ``out`` (.npz with ``x`` and ``y``)."""
    lo, hi = (int(v) for v in styles.split("-"))
    decks = designs.training_decks() | designs.font_decks(tuple(range(lo, hi + 1)))
    t0 = time.time()
    x, y, stats = build(decks, scenes, seed)
    print(
        f"crops seed {seed} (font styles {styles}): {len(y)} cards, {stats['detected']} through detected "
        f"outlines, {time.time() - t0:.0f} s",
        flush=True,
    )
    np.savez_compressed(out, x=x, y=y)
    return out


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m models.training.pip_look", description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=1500, help="scenes per crop batch (PARTS)")
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--seed", type=int, default=77, help="training seed")
    ap.add_argument("--threads", type=int, default=2, help="processes building crops, then torch threads")
    ap.add_argument("--crops", type=Path, nargs="+", help="train on these crop batches instead (.npz)")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "pipnet.onnx")
    ap.add_argument("--work", type=Path, default=CACHE, help="where the crop batches are built and kept")
    ap.add_argument(
        "--accuracy",
        type=int,
        metavar="SCENES",
        help="only measure --out on the held-out designs (SCENES per design and kind, seeds 2024 and "
        "2025) and store the result in its metadata",
    )
    return ap


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.accuracy is not None:
        meta_path = args.out.with_suffix(".json")
        meta = json.loads(meta_path.read_text())
        meta["accuracy"] = accuracy(args.out, args.accuracy)
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        print(json.dumps(meta["accuracy"], indent=2))
        return
    t0 = time.time()
    files = args.crops
    if files is None:  # the crop batches, built in parallel (kept in --work: a rerun trains at once)
        from concurrent.futures import ProcessPoolExecutor

        args.work.mkdir(parents=True, exist_ok=True)
        todo = [
            (seed, styles, args.scenes, args.work / f"pip_crops_{seed}_{args.scenes}.npz") for seed, styles in PARTS
        ]
        missing = [t for t in todo if not t[3].exists()]
        if missing:
            with ProcessPoolExecutor(args.threads) as pool:
                list(pool.map(build_part, *zip(*missing, strict=True)))
        files = [t[3] for t in todo]
    parts = [np.load(p) for p in files]
    x, y = np.concatenate([d["x"] for d in parts]), np.concatenate([d["y"] for d in parts])
    print(f"training on {len(y)} cards ({time.time() - t0:.0f} s so far)", flush=True)
    net = train(x, y, args.epochs, args.seed, args.threads)
    export(net, args.out)
    meta = {
        "name": "pipnet",
        "labels": [*SUITS, *RANKS],
        "input_size": {"height": PIP_H, "width": PIP_W},
        "normalisation": "paper-white-grey (vision/pip_look.py: normalise)",
        "training_designs": [*sorted(n for n in designs.training_decks() if not designs.is_font_deck(n)), "fonts:0-479"]
        if args.crops is None
        else "the designs of --crops",
        "held_out_designs": sorted(designs.HELD_OUT),
        "training": {
            "command": "python -m models.training.pip_look " + " ".join(argv if argv is not None else sys.argv[1:]),
            "crop_batches": [str(f) for f in files],
            "cards": int(len(y)),
            "epochs": args.epochs,
            "seed": args.seed,
            "channels": list(CHANNELS),
            "seconds": round(time.time() - t0),
        },
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {args.out} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
