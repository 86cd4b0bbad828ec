"""``benchmarks/learned_steps.py``: each step of the default (learned) path timed on the speed frames
(docs/performance.md quotes it)."""

from __future__ import annotations

import json

import pytest

from benchmarks.learned_steps import STEPS, main, report, step_times
from vision.recognizer import Recognizer


def test_every_step_is_timed_and_the_frame_is_its_detection_and_classification(
    capsys: pytest.CaptureFixture[str],
) -> None:
    best, handed_on = step_times(Recognizer(threads=1), 2, 1)
    assert len(best) == len(handed_on) == 2
    for ms in best:
        assert set(ms) == set(STEPS) and all(v > 0 for v in ms.values())
        assert ms["frame"] >= ms["detect"] and ms["frame"] >= ms["classify"]
        assert ms["detect"] >= ms["first"]  # the networks run inside the detection
    out = report(best, handed_on)
    assert out["frames"] == 2 and set(out["median_ms"]) == set(STEPS)
    main(["--frames", "1", "--repeats", "1", "--json"])
    line = json.loads(capsys.readouterr().out)
    assert line["command"] == "benchmarks/learned_steps.py --frames 1 --repeats 1 --json" and line["frames"] == 1


def test_a_recogniser_without_the_outline_networks_is_refused() -> None:
    with pytest.raises(ValueError, match="no outline networks"):
        step_times(Recognizer(threads=1, learned=False), 1, 1)
