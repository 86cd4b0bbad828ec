"""benchmarks/blur_look.py: the names the blur look changes on shared detections, and the blur estimates."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from benchmarks.blur_look import compare, main
from models.training.synth import HARD, faces_deck, make_scene
from vision.recognizer import Recognizer


def _frames(count: int) -> list[tuple[int, int, str, object]]:
    """Hard own-drawn scenes, every one given a camera blur (half of them a motion blur)."""
    rng = np.random.default_rng(8)
    return [(8, n, "own", make_scene(rng, faces_deck(n), replace(HARD, blur=1.0))) for n in range(count)]


def test_the_counts_and_the_listed_changes_agree() -> None:
    """Each side's outcomes cover the same cards; the named difference between the sides is what the listed
    changes add up to; every frame is counted in its blur class, motion blurs with their estimate's errors."""
    frames = _frames(4)
    result = compare(frames, Recognizer(threads=1, blur_look=False), Recognizer(threads=1))
    a, b = result.counts["A"], result.counts["B"]
    assert sum(a.values()) == sum(b.values()) > 0
    gained = sum((c.with_look == c.card) - (c.without == c.card) for c in result.changes)
    assert b["named"] - a["named"] == gained
    assert all(c.without != c.with_look for c in result.changes)
    assert sum(len(stats.depths) for stats in result.blurs.values()) == len(frames)
    motion = [s.blur for *_, s in frames if s.blur.kind == "motion"]  # type: ignore[attr-defined]
    errors = [e for stats in result.blurs.values() for e in stats.length_errors]
    assert len(errors) == len(motion) > 0
    assert set(result.ms_a_frame) == {"A", "B"} and min(result.ms_a_frame.values()) > 0


def test_a_recogniser_against_itself_changes_nothing() -> None:
    rec = Recognizer(threads=1)
    result = compare(_frames(2), rec, rec)
    assert result.changes == [] and result.counts["A"] == result.counts["B"]


def test_a_bad_threshold_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--blur-look-below", "0", "--seeds", "2024"])
    assert exc.value.code == 2
    assert "over 0 and at most 1" in capsys.readouterr().err
