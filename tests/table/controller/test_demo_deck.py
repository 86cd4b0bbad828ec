"""The demo with an enrolled deck: ``cardtable demo --enrol`` enrols the deck its simulated camera draws and plays
with it, ``--deck NAME`` plays with a deck ``cardtable deck learn`` enrolled; the camera reads the cards through
the deck (``vision.deck_match.DeckReader``) and the refereed result must equal the simulation's truth. An unknown
deck, or a deck with ``--direct``, is refused before anything starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models.training.synth import LABELS, faces_deck, laid_out_photo
from table.cli import main
from table.demo.senses import FACE_STYLE
from vision.deck_match import DeckReader

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "models" / "cardnet.onnx"
needs_model = pytest.mark.skipif(not MODEL.exists(), reason="the recognition model is not shipped")
GAME = ["demo", "chinese-ten", "--players", "2", "--seed", "5", "--fast", "--new", "--json", "--timeout", "120"]


def _deck_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the camera's readings that went through a deck profile (one entry per read, its cards)."""
    reads: list[int] = []
    original = DeckReader._read

    def counted(self: DeckReader, frame: np.ndarray, recognitions: Any) -> Any:
        out = original(self, frame, recognitions)
        reads.append(len(out))
        return out

    monkeypatch.setattr(DeckReader, "_read", counted)
    return reads


def _agrees(stdout: str) -> None:
    result = json.loads(stdout)
    assert result["refereed"] is not None, result["error"]
    assert result["agree"] and result["refereed"] == result["truth"]


@needs_model
def test_demo_enrols_its_own_deck_then_plays_to_the_truth_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _deck_reads(monkeypatch)
    decks = tmp_path / "decks"
    argv = [*GAME, "--journal", str(tmp_path / "j.db"), "--enrol", "--deck", "own", "--decks-dir", str(decks)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    _agrees(out)
    assert "deck own enrolled: 52 of 52 cards named from 4 photos" in err
    assert (decks / "own.deck").exists()
    assert sum(reads) > 0, "the camera did not read the cards through the enrolled deck"
    # the same enrolment again would replace the saved deck: refused, nothing played
    assert main(argv) == 2
    assert "a deck named 'own' exists already" in capsys.readouterr().err


@needs_model
def test_demo_plays_with_a_deck_enrolled_by_deck_learn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(3)
    faces = [str(f) for f in rng.permutation(np.array(LABELS[:52]))]
    deck = faces_deck(FACE_STYLE)
    photos = []
    for i in range(0, 52, 13):
        path = tmp_path / f"row{i // 13 + 1}.png"
        cv2.imwrite(str(path), laid_out_photo(rng, deck, faces[i : i + 13]).image)
        photos.append(str(path))
    decks = tmp_path / "decks"
    assert main(["deck", "--decks-dir", str(decks), "learn", "home", *photos, "--yes"]) == 0
    capsys.readouterr()
    reads = _deck_reads(monkeypatch)
    assert main([*GAME, "--journal", str(tmp_path / "j.db"), "--deck", "home", "--decks-dir", str(decks)]) == 0
    _agrees(capsys.readouterr().out)
    assert sum(reads) > 0, "the camera did not read the cards through the enrolled deck"


def test_an_unknown_deck_is_refused_before_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.db"
    assert main([*GAME, "--journal", str(journal), "--deck", "missing", "--decks-dir", str(tmp_path)]) == 2
    assert "no deck named 'missing'" in capsys.readouterr().err
    assert not journal.exists()


@pytest.mark.parametrize("option", [["--deck", "home"], ["--enrol"]])
def test_direct_senses_refuse_a_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]) -> None:
    journal = tmp_path / "j.db"
    assert main([*GAME, "--journal", str(journal), "--direct", *option]) == 2
    assert "--direct has no camera" in capsys.readouterr().err
    assert not journal.exists()
