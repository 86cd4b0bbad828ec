"""The index-corner network's training (models/training/index_corners.py): a perfect answer to the targets decodes
back to every corner, a window moves the corners with the image, half-shown corners are left be, and the chain at a
tiny scale gives files the finder loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.training.index_corners import EITHER, SHOWN, WINDOW, make_scenes, targets, window
from vision.index_corners import INPUT_SCALE, IndexCornerFinder, decode


def perfect_answer(rows: np.ndarray) -> np.ndarray:
    """The answer a perfect network gives for these corners (input pixels): heatmap logits and answers."""
    heat, answers, _, _ = targets(rows)
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / np.clip(1 - heat, 1e-6, 1))
    return np.concatenate([logits[None], answers]).astype(np.float32)


def corner(x: float, y: float, degrees: float, width: float, kind: float = SHOWN) -> list[float]:
    t = np.radians(degrees)
    across, down = (np.cos(t), np.sin(t)), (-np.sin(t), np.cos(t))
    return [x, y, *across, *down, width, kind]


ROWS = np.array(
    [
        corner(40.3, 50.7, 0.0, 60.0),  # upright
        corner(120.9, 60.2, 37.0, 45.0),  # turned
        corner(131.0, 66.0, 200.0, 45.0),  # another card's corner 12 px away, turned half round
        corner(200.0, 200.0, -80.0, 90.0),  # a wide card turned a quarter back
    ],
    np.float32,
)


def test_a_perfect_answer_to_the_targets_gives_back_each_corner_its_turn_and_width() -> None:
    found = decode(perfect_answer(ROWS), 0.5)
    assert len(found) == len(ROWS) and found.found_by_network().all()
    for x, y, ax, ay, dx, dy, width, _ in ROWS.tolist():
        i = int(np.argmin(np.linalg.norm(found.corners - [x / INPUT_SCALE, y / INPUT_SCALE], axis=1)))
        assert np.allclose(found.corners[i], [x / INPUT_SCALE, y / INPUT_SCALE], atol=1e-3)
        assert np.allclose(found.across[i], [ax, ay], atol=1e-4) and np.allclose(found.down[i], [dx, dy], atol=1e-4)
        assert found.widths[i] == pytest.approx(width / INPUT_SCALE, rel=1e-4)


def test_a_half_shown_corner_is_neither_a_target_nor_background() -> None:
    rows = np.array([corner(40, 40, 0, 60), corner(180, 180, 0, 60, EITHER)], np.float32)
    heat, _, weight, either = targets(rows)
    assert heat[10, 10] == 1.0 and heat[45, 45] == 0.0  # only the shown corner is a peak
    assert either[45, 45] == 1.0 and either[10, 10] == 0.0
    assert weight[45, 45] == 0.0 and weight[10, 10] > 0.0


def test_a_window_moves_scales_and_turns_the_corners_with_the_image() -> None:
    image = np.zeros((360, 640, 3), np.uint8)
    rows = np.zeros((4, 8), np.float32)
    rows[0] = corner(300, 180, 20.0, 60.0)
    x, y = 300, 180
    image[y - 1 : y + 2, x - 1 : x + 2] = 255  # a bright dot at the corner
    for seed in range(8):
        out, moved = window(np.random.default_rng(seed), image, rows)
        assert out.shape == (WINDOW, WINDOW, 3) and len(moved) == 1
        mx, my = moved[0, :2]
        if 2 <= mx < WINDOW - 2 and 2 <= my < WINDOW - 2:
            assert out[round(my) - 2 : round(my) + 3, round(mx) - 2 : round(mx) + 3].max() > 100
        assert np.linalg.norm(moved[0, 2:4]) == pytest.approx(1.0, abs=1e-4)
        assert float(np.dot(moved[0, 2:4], moved[0, 4:6])) == pytest.approx(0.0, abs=1e-4)
        assert 0.7 * 60 - 1e-3 <= moved[0, 6] <= 1.4 * 60 + 1e-3


def test_the_chain_at_a_tiny_scale_gives_a_network_the_finder_loads(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="training needs torch (the train extra)")
    pytest.importorskip("onnx", reason="exporting needs onnx (the train extra)")
    from models.training.index_corners import main
    from models.training.synth import faces_deck

    decks = {"own:3": faces_deck(3)}
    images, corners = make_scenes(decks, 2, 5, hard_share=0.5, realism=0.0)
    assert images.shape == (2, 360, 640, 3) and (corners[:, :, 7] == SHOWN).sum() > 0
    np.savez(tmp_path / "s.npz", images=images, corners=corners)
    data, net = str(tmp_path / "s.npz"), str(tmp_path / "n.pt")
    assert main(["train", "--data", data, "--minutes", "1", "--steps", "2", "--out", net]) == 0
    assert main(["export", "--net", str(tmp_path / "n.pt"), "--out", str(tmp_path / "m")]) == 0
    finder = IndexCornerFinder.load(tmp_path / "m" / "index_corners.json")
    heat = finder.heat_and_answers(np.zeros((300, 500, 3), np.uint8))
    assert heat.shape == (7, 40, 64)  # the input (150 x 250) padded to 160 x 256, a cell per 4
