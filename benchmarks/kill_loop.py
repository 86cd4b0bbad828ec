"""Run a ``--json`` demo command, SIGKILL it at random moments, run it again until it finishes.

Shared by ``bench_demo.py`` (Chinese Ten) and ``bench_demo_frog_garbage.py`` (Frog, Garbage): the
moment of each kill is measured in what the game has durably written (journal entries, world-log
lines), so a kill lands between two recorded steps or inside one, never only at start-up.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class KilledRun:
    out: dict[str, Any]  # the finishing run's last JSON line, or {"agree": False, "error": ...}
    kills: int
    runs: int


def run_with_kills(
    first: Sequence[str],
    again: Sequence[str],
    *,
    cwd: Path,
    progress: Callable[[], int],
    rng: random.Random,
    planned: int,
    step: tuple[int, int],
    timeout: float,
    poll_s: float,
) -> KilledRun:
    """Start ``first``; until ``planned`` kills are done, kill each run once ``progress()`` has grown
    by ``rng.randint(*step)``; then let a run of ``again`` finish (at most ``planned + 3`` runs)."""
    kills, runs = 0, 0
    out: dict[str, Any] | None = None
    while runs < planned + 3:
        proc = subprocess.Popen(
            list(first if runs == 0 else again), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        runs += 1
        if kills < planned:
            at = progress() + rng.randint(*step)
            while proc.poll() is None and progress() < at:
                time.sleep(poll_s)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                kills += 1
                continue
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # the demo's own --timeout should have ended it
            proc.kill()
            stdout, stderr = proc.communicate()
            stderr += f"\nkilled: no answer {timeout:g} s after the start"
        lines = stdout.strip().splitlines()
        out = json.loads(lines[-1]) if lines else {"agree": False, "error": stderr[-500:]}
        break
    return KilledRun(out or {"agree": False, "error": "never finished"}, kills, runs)
