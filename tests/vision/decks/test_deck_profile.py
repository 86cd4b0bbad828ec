"""Deck profiles: the file round trip, damaged and foreign files refused with the reason, the store's names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.deck_profile import MAX_BYTES, DeckError, DeckProfile, DeckStore, read_profile, write_profile
from vision.recognizer import LABELS


def _profile(name: str = "home", seed: int = 0) -> DeckProfile:
    rng = np.random.default_rng(seed)
    templates = rng.integers(0, 256, (len(LABELS), 6, 48, 32, 3), dtype=np.uint8)
    templates[-1] = 0  # no back enrolled
    return DeckProfile(name, templates, 1.4, 150.0, "2026-12-07T03:00:00+00:00", ("a.jpg", "b.jpg"))


def test_a_profile_round_trips_through_its_file(tmp_path: Path) -> None:
    p = _profile()
    path = tmp_path / "home.deck"
    write_profile(p, path)
    q = read_profile(path)
    assert (q.name, q.aspect, q.card_width_px, q.created, q.sources) == (
        p.name,
        p.aspect,
        p.card_width_px,
        p.created,
        p.sources,
    )
    assert np.array_equal(q.templates, p.templates)
    assert q.has("QH") and not q.has_back
    assert path.stat().st_size <= MAX_BYTES


def test_damaged_or_foreign_files_are_refused_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "home.deck"
    write_profile(_profile(), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DeckError, match="not a readable deck profile"):
        read_profile(path)
    path.write_text("hello")
    with pytest.raises(DeckError, match="not a readable deck profile"):
        read_profile(path)
    with pytest.raises(DeckError, match="no such deck profile"):
        read_profile(tmp_path / "missing.deck")
    with (tmp_path / "other.deck").open("wb") as f:
        np.savez(f, meta=np.array('{"format": 9}'), templates=np.zeros((53, 1, 48, 32, 3), np.uint8))
    with pytest.raises(DeckError, match="format 9, this cardtable reads format 1"):
        read_profile(tmp_path / "other.deck")
    with (tmp_path / "shape.deck").open("wb") as f:
        meta = _profile().meta()
        np.savez(f, meta=np.array(json.dumps(meta)), templates=np.zeros((53, 1, 40, 32, 3), np.uint8))
    with pytest.raises(DeckError, match="deck templates must be"):
        read_profile(tmp_path / "shape.deck")


def test_the_store_lists_loads_and_removes_by_name(tmp_path: Path) -> None:
    store = DeckStore(tmp_path / "decks")
    assert store.names() == []
    store.save(_profile("home"))
    store.save(_profile("club-night", seed=1))
    assert store.names() == ["club-night", "home"]
    assert store.load("home").name == "home"
    store.remove("home")
    assert store.names() == ["club-night"]
    with pytest.raises(DeckError, match="no deck named 'home'.*known: club-night"):
        store.load("home")
    with pytest.raises(DeckError, match="a deck name"):
        store.path("../etc/passwd")


def test_the_decks_folder_defaults_beside_the_journal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CARDTABLE_DECKS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert DeckStore().folder == tmp_path / "cardtable" / "decks"
    monkeypatch.setenv("CARDTABLE_DECKS", str(tmp_path / "mine"))
    assert DeckStore().folder == tmp_path / "mine"


def _reading(top: str, p: float, rest: dict[str, float]) -> np.ndarray:
    probs = np.full(len(LABELS), 1e-6)
    probs[LABELS.index(top)] = p
    for label, q in rest.items():
        probs[LABELS.index(label)] = q
    out: np.ndarray = probs / probs.sum()
    return out


def test_a_sure_reading_is_overturned_only_by_corners_clearly_another_face() -> None:
    """9S read at 0.997, its template matching 0.09 worse than TS's: a sure reading stands; read at 0.6 (unsure)
    the deck's corners decide; a sure reading whose corners match another face far better (a wrong ink colour:
    0.3 worse, odds e^30 at the temperature) is overturned, the deck's say capped at ``SURE_WEIGHT``."""
    from vision.deck_match import SURE_WEIGHT, Weighing, weigh_faces

    present = np.ones(len(LABELS), bool)
    sim = np.full(len(LABELS), 0.4)
    sim[LABELS.index("TS")] = 0.70
    sim[LABELS.index("9S")] = 0.61
    nine, ten = LABELS.index("9S"), LABELS.index("TS")
    sure = weigh_faces(_reading("9S", 0.997, {"TS": 0.001}), sim, present)
    assert sure.argmax() == nine and sure[nine] > 0.8
    unsure = weigh_faces(_reading("9S", 0.6, {"TS": 0.3}), sim, present)
    assert unsure.argmax() == ten
    one_cap = weigh_faces(_reading("9S", 0.997, {"TS": 0.001}), sim, present, Weighing(sure=2.0))
    assert one_cap.argmax() == ten  # without the sure rule the template a little off decides
    # a sure reading at 0.95 against corners that clearly match another face: the deck's e^SURE_WEIGHT is enough
    sim[LABELS.index("9S")] = 0.40
    clear = weigh_faces(_reading("9S", 0.95, {"TS": 0.04}), sim, present)
    assert clear.argmax() == ten
    assert clear[nine] / clear[ten] == pytest.approx(0.95 / 0.04 * np.exp(-SURE_WEIGHT), rel=1e-3)
