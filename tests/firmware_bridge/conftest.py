from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

GOLDEN = Path(__file__).resolve().parents[2] / "firmware_bridge" / "vectors" / "golden.json"


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())
