"""``[camera] deck`` in table.toml and ``--deck`` on play and watch: a deck name is checked when read, an unknown
deck refused before the table starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from table.cli import main
from table.config import parse_config
from table.errors import ConfigError


def test_the_camera_section_names_the_deck() -> None:
    assert parse_config({"camera": {"deck": "home"}}, game="frog").camera.deck == "home"
    assert parse_config({}, game="frog").camera.deck is None
    with pytest.raises(ConfigError, match="camera.deck"):
        parse_config({"camera": {"deck": "../x"}}, game="frog")


def test_play_and_watch_refuse_a_deck_that_is_not_enrolled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decks = tmp_path / "decks"
    journal = tmp_path / "j.db"
    code = main(["play", "frog", "--deck", "home", "--decks-dir", str(decks), "--journal", str(journal)])
    assert code == 2 and "no deck named 'home'" in capsys.readouterr().err
    assert not journal.exists()
    code = main(["watch", "sim:frog,3?frames=1", "--deck", "home", "--decks-dir", str(decks), "--frames", "1"])
    assert code == 2 and "no deck named 'home'" in capsys.readouterr().err
