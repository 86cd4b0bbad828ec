"""The learned outline finder's three networks in torch (``vision.learned_outlines`` runs their ONNX exports), and
the training loop the two patch networks share.

* ``CentreNet`` (the **first stage**): a separable encoder to 1/16 of its 320x180 input, decoded back to 1/4 (the
  grid, one cell per ``STRIDE`` input pixels), with a heatmap head (one channel, logits: how likely a card's centre
  lies in the cell) and a corner head (eight channels: the card's four corners as offsets from the cell's centre, in
  ``CORNER_SCALE`` units). Cards a few pixels apart have centres a card's width apart, so no mask has to keep them
  apart; dilated layers at 1/16 let a card's centre cell see the whole card.
* ``RefineNet``: from a ``PATCH``-square patch rectified from an outline, ``outputs`` numbers. The **checker** has
  nine (the card's four corners as offsets from where the outline put them, in ``REFINE_SCALE`` units, and a logit:
  card or not), the **verifier** one (a logit: the outline lies on its card).

Needs torch: the ``train`` extra (``pip install -e '.[train]'``); ``load_torch`` says so where it is missing.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.learned_outlines import PATCH

Batch = tuple[np.ndarray, np.ndarray]
"""A batch of uint8 patches (B, PATCH, PATCH, 3) and what a patch network should answer for them."""

FIRST_WIDTHS = (16, 32, 48, 96)
"""The shipped first stage's channels at 1/2, 1/4, 1/8 and 1/16 of its input."""
PATCH_WIDTHS = (16, 32, 64)
"""The patch networks' channels at 1/2, 1/4 and 1/8 of the patch."""


class TrainingError(RuntimeError):
    """Training cannot start: torch is missing, or an input file is not what a step expects."""


def load_torch() -> Any:
    """The torch module, or a ``TrainingError`` that says how to install it."""
    try:
        import torch
    except ImportError:
        raise TrainingError("training needs torch: pip install -e '.[train]' (models/README.md)") from None
    return torch


def layers(torch: Any) -> tuple[Callable[..., Any], Callable[..., Any], Callable[[Any, Any], Any]]:
    """The networks' building blocks: ``cbr(i, o, s=1, k=3, g=1, d=1)`` (a convolution, batch norm and ReLU; ``d``:
    dilation), ``dw(i, o, s=1, d=1)`` (a depthwise 3x3, then a pointwise ``cbr``) and ``up(x, ref)`` (``x`` resized
    bilinearly to ``ref``'s size)."""
    nn = torch.nn

    def cbr(i: int, o: int, s: int = 1, k: int = 3, g: int = 1, d: int = 1) -> Any:
        return nn.Sequential(
            nn.Conv2d(i, o, k, s, d * (k // 2), dilation=d, groups=g, bias=False), nn.BatchNorm2d(o), nn.ReLU(True)
        )

    def dw(i: int, o: int, s: int = 1, d: int = 1) -> Any:
        return nn.Sequential(cbr(i, i, s, 3, i, d), cbr(i, o, 1, 1))

    def up(x: Any, ref: Any) -> Any:
        return nn.functional.interpolate(x, size=ref.shape[2:], mode="bilinear", align_corners=False)

    return cbr, dw, up


def centre_net(torch: Any, widths: tuple[int, ...] = FIRST_WIDTHS) -> Any:
    """A new first stage (``CentreNet``) with these channels, its heatmap biased to "no centre" (CenterNet's start).
    A card's centre cell must see the whole card (up to ~110 input pixels long): dilated layers (2, 4) at 1/16."""
    return heatmap_net(torch, widths, 8, head="corners", dilations=(2, 4))


def heatmap_net(torch: Any, widths: tuple[int, ...], answers: int, *, head: str, dilations: tuple[int, ...]) -> Any:
    """A separable encoder to 1/16 of its input (``widths``: channels at 1/2, 1/4, 1/8, 1/16; then a layer at 1/16
    for each of ``dilations``) decoded back to 1/4, with a heatmap head (one channel, logits, biased to "nothing
    here") and a head of ``answers`` channels named ``head`` (its name is part of a saved network's state)."""
    nn = torch.nn
    cbr, dw, up = layers(torch)

    module: Any = nn.Module

    class HeatmapNet(module):  # type: ignore[misc]  # (torch is untyped here)
        def __init__(self, c: tuple[int, ...]) -> None:
            super().__init__()
            self.widths = tuple(c)  # saved beside the state: a saved network is rebuilt with its own widths
            self.e1, self.e2, self.e3 = cbr(3, c[0], 2), dw(c[0], c[1], 2), dw(c[1], c[2], 2)
            self.e4 = nn.Sequential(dw(c[2], c[3], 2), *(dw(c[3], c[3], d=d) for d in dilations))
            self.d3, self.d2 = dw(c[3] + c[2], c[2]), dw(c[2] + c[1], c[2])
            self.heat = nn.Sequential(cbr(c[2], 24, 1, 1), nn.Conv2d(24, 1, 1))
            setattr(self, head, nn.Sequential(cbr(c[2], 32, 1, 1), nn.Conv2d(32, answers, 1)))
            self.heat[-1].bias.data.fill_(-4.0)  # almost no cell holds what the heatmap looks for

        def forward(self, x: Any) -> Any:
            x1 = self.e1(x)
            x2 = self.e2(x1)
            x3 = self.e3(x2)
            y = self.d3(torch.cat([up(self.e4(x3), x3), x3], 1))
            y = self.d2(torch.cat([up(y, x2), x2], 1))
            return torch.cat([self.heat(y), getattr(self, head)(y)], 1)

    return HeatmapNet(widths)


def refine_net(torch: Any, outputs: int) -> Any:
    """A new patch network (``RefineNet``) with ``outputs`` answers: 9 for the checker, 1 for the verifier."""
    nn = torch.nn
    cbr, dw, _ = layers(torch)
    c = PATCH_WIDTHS

    module: Any = nn.Module

    class RefineNet(module):  # type: ignore[misc]  # (torch is untyped here)
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(
                cbr(3, c[0], 2), dw(c[0], c[1], 2), dw(c[1], c[2], 2), dw(c[2], c[2]), nn.Conv2d(c[2], 16, 1)
            )
            self.fc = nn.Linear(16 * (PATCH // 8) ** 2, outputs)

        def forward(self, x: Any) -> Any:
            return self.fc(self.body(x).flatten(1))

    return RefineNet()


def load_first_stage(torch: Any, path: Path) -> Any:
    """The first stage saved at ``path`` (``save_first_stage``)."""
    saved = _load(torch, path, "widths")
    model = centre_net(torch, tuple(saved["widths"]))
    model.load_state_dict(saved["state"])
    return model


def save_first_stage(torch: Any, model: Any, path: Path) -> None:
    """``model`` (``centre_net``) at ``path``: its widths and its state."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"widths": model.widths, "state": model.state_dict()}, path)


def load_patch_net(torch: Any, path: Path, outputs: int) -> Any:
    """The patch network with ``outputs`` answers saved at ``path`` (``train_patch_net``)."""
    model = refine_net(torch, outputs)
    model.load_state_dict(_load(torch, path)["state"])
    return model


def _load(torch: Any, path: Path, *keys: str) -> dict[str, Any]:
    try:
        saved = torch.load(path)
    except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as e:
        raise TrainingError(f"{path}: cannot read a saved network: {e}") from e
    if not isinstance(saved, dict) or any(key not in saved for key in ("state", *keys)):
        raise TrainingError(f"{path}: not a saved outline network (wants {', '.join(('state', *keys))})")
    return saved


def export_onnx(torch: Any, model: Any, width: int, height: int, path: Path, *, any_batch: bool = False) -> None:
    """``model`` as ONNX (opset 17, input "x") at ``path`` for one ``width`` x ``height`` image, or (``any_batch``)
    any number of them."""
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(1, 3, height, width),
        str(path),
        opset_version=17,
        dynamo=False,
        input_names=["x"],
        dynamic_axes={"x": {0: "n"}} if any_batch else None,
    )


def cosine_rate(start: float, elapsed: float, budget: float) -> float:
    """The learning rate ``elapsed`` seconds into a run of ``budget`` seconds: from ``start`` down a cosine."""
    return start * 0.5 * (1 + float(np.cos(np.pi * min(1.0, elapsed / budget)))) + 1e-5


def colour_gain(rng: np.random.Generator, batch: int) -> np.ndarray:
    """(batch, 1, 1, 3) gains that brighten or darken each image (0.7-1.3) and tint it (0.9-1.1 a channel)."""
    gain: np.ndarray = rng.uniform(0.7, 1.3, (batch, 1, 1, 1)) * rng.uniform(0.9, 1.1, (batch, 1, 1, 3))
    return gain


@dataclass(frozen=True)
class Budget:
    """How long a training run lasts: ``minutes`` of the clock (the recipes' measure: a slower or busier machine
    trains fewer steps), and at most ``steps`` steps where given (tests)."""

    minutes: float
    steps: int | None = None

    def goes_on(self, started: float, steps: int) -> bool:
        return time.time() - started < self.minutes * 60 and (self.steps is None or steps < self.steps)


@dataclass(frozen=True)
class Trained:
    """What a training run did."""

    model: Path
    steps: int
    seconds: float
    loss_last_100: float
    examples: int


def train_patch_net(
    torch: Any,
    model: Any,
    draw: Callable[[np.random.Generator], Batch],
    loss_of: Callable[[Any, Any], Any],
    budget: Budget,
    out: Path,
    *,
    seed: int,
    rate: float = 3e-3,
    init: Path | None = None,
    examples: int = 0,
) -> Trained:
    """Trains a patch network (``refine_net``) for ``budget``: two threads, AdamW, a cosine rate from ``rate``,
    colour gain. ``draw(rng)`` gives a batch, ``loss_of(answer, wanted)`` its loss; the state is saved at ``out``.
    ``init``: a saved state to go on from."""
    if init is not None:
        model.load_state_dict(_load(torch, init)["state"])
    torch.set_num_threads(2)
    opt = torch.optim.AdamW(model.parameters(), rate, weight_decay=1e-4)
    rng = np.random.default_rng(seed)
    t0, steps, losses = time.time(), 0, list[float]()
    while budget.goes_on(t0, steps):
        xb, yb = draw(rng)
        xb = np.clip(xb.astype(np.float32) / 255.0 * colour_gain(rng, len(xb)), 0, 1).astype(np.float32)
        xt = torch.from_numpy(np.ascontiguousarray(xb.transpose(0, 3, 1, 2)) - 0.5)
        for group in opt.param_groups:
            group["lr"] = cosine_rate(rate, time.time() - t0, budget.minutes * 60)
        loss = loss_of(model(xt), torch.from_numpy(yb))
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
        losses.append(float(loss.item()))
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state": model.state_dict()}, out)
    return Trained(out, steps, round(time.time() - t0, 1), _last_loss(losses), examples)


def _last_loss(losses: list[float]) -> float:
    return round(float(np.mean(losses[-100:])), 4) if losses else float("nan")
