"""benchmarks/learned_at_the_table.py: each full-frame recognition of a match is detected both ways, counted and
named from the learned outlines; the recogniser is restored after. The match here is a stand-in that recognises
two frames of the simulated Garbage table (a whole match takes minutes)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from benchmarks import learned_at_the_table as bench
from vision.recognizer import Recognizer
from vision.simtable import SimCamera, SimTable
from vision.zones import layout_for


def test_a_match_is_watched_both_ways_and_the_recogniser_restored(monkeypatch) -> None:
    import table.demo.runner as demo

    layout = layout_for("garbage", 3)
    sim = SimTable(layout, seed=4, camera=SimCamera(tilt_deg=15))
    for k, card in enumerate(("7D", "9S", "QH")):
        sim.place(card, "seat:1", slot=k, animate=False)
    frame = sim.render()
    seen: list[Any] = []

    def fake_run(cfg: Any) -> Any:
        assert cfg.senses == "vision" and cfg.rules == "standard" and cfg.seed == 1
        rec = Recognizer(threads=1)
        seen.extend(rec.recognize(frame) for _ in range(2))
        return SimpleNamespace(error=None, agree=True)

    original = Recognizer.recognize
    monkeypatch.setattr(demo, "run_demo", fake_run)
    out = bench.watch_match("garbage")
    assert Recognizer.recognize is original
    assert out["full_frames"] == 2 and sum(out["handed_on"].values()) == 2
    assert out["agrees_with_truth"] is True and out["frames_named_differently"] == []
    assert [sorted(r.card for r in s) for s in seen] == [["7D", "9S", "QH"]] * 2
    assert set(out["median_ms"]) == {"shipped", "learned"} and all(np.isfinite(list(out["median_ms"].values())))
