"""models.training.render_designs: the design cache is written whole or not at all, so parallel test workers
(pytest -n 2 on a fresh clone) never read a design another worker is still writing."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training import render_designs
from models.training.render_designs import load_design, render_design


def _fake_cards(width: int) -> dict[str, np.ndarray | None]:
    card = np.full((round(width * 1.45), width, 4), 255, np.uint8)
    return {label: card.copy() for label in render_designs.LABELS}


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The paths ``render_design`` writes PNGs to."""
    paths: list[Path] = []
    imwrite = cv2.imwrite

    def record(path: str, img: np.ndarray) -> bool:
        paths.append(Path(path))
        return bool(imwrite(path, img))

    monkeypatch.setattr(cv2, "imwrite", record)
    return paths


@pytest.fixture
def fake_render(monkeypatch: pytest.MonkeyPatch) -> None:
    """``render_gnome`` drawing plain white cards (no Debian packages needed)."""
    monkeypatch.setattr(render_designs, "render_gnome", lambda path, width: _fake_cards(width))


def test_a_rendered_design_appears_whole_and_leaves_no_staging_folder(
    tmp_path: Path, fake_render: None, written: list[Path]
) -> None:
    cache = tmp_path / "cache"
    folder = render_design("gnome:test", tmp_path / "test.svg", 100, cache=cache)
    assert folder == cache / "gnome_test" and (folder / "ok").is_file()
    assert len(written) == 53 and not any(p.parent == folder for p in written)  # no card written in place
    assert sorted(p.name for p in cache.iterdir()) == ["gnome_test"]  # the staging folder was renamed into place
    assert len(load_design(folder)) == len(render_designs.LABELS) == 53


def test_a_design_put_in_place_by_another_process_meanwhile_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: list[Path]
) -> None:
    cache = tmp_path / "cache"
    other = cache / "gnome_test"

    def render(path: Path, width: int) -> dict[str, np.ndarray | None]:
        # another worker finishes the same design while this one draws
        other.mkdir(parents=True)
        (other / "ok").write_text("ok\n")
        (other / "marker").write_text("the other worker's\n")
        return _fake_cards(width)

    monkeypatch.setattr(render_designs, "render_gnome", render)
    assert render_design("gnome:test", tmp_path / "test.svg", 100, cache=cache) == other
    assert (other / "marker").is_file()  # not replaced while the other worker's tests read it
    assert written and not any(p.parent == other for p in written)  # nor any of its cards rewritten
    assert sorted(p.name for p in cache.iterdir()) == ["gnome_test"]  # this worker's staging folder removed


def test_an_unfinished_folder_from_before_is_rendered_again(tmp_path: Path, fake_render: None) -> None:
    cache = tmp_path / "cache"
    (cache / "gnome_test").mkdir(parents=True)
    (cache / "gnome_test" / "AC.png").write_bytes(b"half a png")  # a render killed before its "ok"
    folder = render_design("gnome:test", tmp_path / "test.svg", 100, cache=cache)
    assert folder is not None and (folder / "ok").is_file()
    assert len(load_design(folder)) == 53
