from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parents[1] / "firmware_bridge" / "vectors" / "golden.json"
if str(HERE) not in sys.path:  # the tests here share fake_device.py (scripted devices over a pty or TCP)
    sys.path.insert(0, str(HERE))


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    golden: dict[str, Any] = json.loads(GOLDEN.read_text())
    return golden
