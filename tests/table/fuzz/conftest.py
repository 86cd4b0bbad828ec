"""The fuzz tests drive the same damage as the long fuzz run (``benchmarks/fuzz_inputs.py``): the
repository root is put on ``sys.path`` so they import it from there."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
