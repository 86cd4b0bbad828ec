"""models/training/outline_nets.py: the trained outline networks exported as the files vision.learned_outlines
loads, with metadata it accepts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.errors import ModelError
from vision.learned_outlines import OutlineNets


def test_exported_networks_load_and_answer(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")  # the training extra
    from benchmarks.keypoint_spike import _nets
    from models.training.outline_nets import export

    nets = _nets(torch)
    torch.save({"widths": (8, 16, 24, 32), "state": nets["CentreNet"]((8, 16, 24, 32)).state_dict()}, tmp_path / "f.pt")
    torch.save({"state": nets["RefineNet"](outputs=9).state_dict()}, tmp_path / "c.pt")
    torch.save({"state": nets["RefineNet"](outputs=1).state_dict()}, tmp_path / "v.pt")
    meta = export(tmp_path / "f.pt", tmp_path / "c.pt", tmp_path / "v.pt", tmp_path / "out")
    assert meta["trained_from"] == {"first_stage": "f.pt", "checker": "c.pt", "verifier": "v.pt"}
    loaded = OutlineNets(tmp_path / "out" / "outline_nets.json")
    frame = np.full((720, 1280, 3), 60, np.uint8)
    assert loaded.find(frame).snapped == []  # untrained: its heatmap starts near 0 everywhere
    assert loaded.trust(frame, [np.float32([[100, 100], [200, 100], [200, 240], [100, 240]])]).shape == (1,)
    (tmp_path / "out" / "outline_first.onnx").write_bytes(b"not a network")
    with pytest.raises(ModelError, match="SHA-256 differs"):
        OutlineNets(tmp_path / "out" / "outline_nets.json")
