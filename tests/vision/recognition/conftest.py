"""Shared fixtures for the card-recognition tests: the shipped model and scene synthesis.

The scene synthesiser lives with the training pipeline (``models/training/synth.py``); the repository
root is put on ``sys.path`` so the tests use exactly the code that makes the training data.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision.recognizer import Recognizer  # noqa: E402

if TYPE_CHECKING:
    from models.training.synth import Deck

HAVE_DEBIAN_DESIGNS = Path("/usr/share/aisleriot/cards").is_dir() and shutil.which("rsvg-convert") is not None


@pytest.fixture(scope="session")
def recognizer() -> Recognizer:
    return Recognizer(threads=1)


@pytest.fixture(scope="session")
def held_out_decks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Deck]:
    """The held-out Debian designs, rendered at test time (never committed)."""
    if not HAVE_DEBIAN_DESIGNS:
        pytest.skip("Debian card designs not installed")
    from models.training import designs
    from models.training.render_designs import CACHE

    decks = designs.held_out_decks(CACHE)
    assert len(decks) >= 6, f"expected the six held-out designs, rendered {sorted(decks)}"
    return decks
