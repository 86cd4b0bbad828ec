"""Frog through the real camera pipeline (issue 9): simulated camera frames of the table go through
the ONNX recogniser, the watcher and the tracker, and the table events they produce are refereed by
the real controller. One short deal, three players, foster-1909, cheating bots: every cheat flagged,
none invented, the chips equal to the simulation's truth."""

from __future__ import annotations

from pathlib import Path

from table.demo.config import DemoConfig
from table.demo.runner import run_demo


def test_frog_deal_through_the_camera_pipeline_equals_truth(tmp_path: Path) -> None:
    """foster-1909, 3 players, one deal (seed 3: a Chico contract played out, with cheats) seen only
    through the camera: refereed result equals truth, cheats all flagged, no flag invented."""
    cfg = DemoConfig(
        "frog",
        rules="foster-1909",
        players=3,
        seed=3,
        cheat=0.15,
        deals=1,
        journal=tmp_path / "vision.db",
        senses="vision",
        timeout=240,
        fast=True,
    )
    out = run_demo(cfg)
    assert out.error is None
    assert out.truth is not None and out.truth["deals"] and out.truth["deals"][0].get("contract")
    assert out.agree, (out.refereed, out.truth)
    assert out.cheats, "the seed was chosen for a deal with cheats"
    assert not out.missed and not out.invented, out.flags
