"""The demo table's targets, measured (results in docs/performance.md, "Demo").

1. ``--games`` seeded 3-player Chinese Ten demo games with ``--cheat`` through the real pipeline
   (SimTable frames -> ONNX recogniser -> tracker -> referee; dealer simulator on a pty; mock GPIO),
   each in its own journal: seconds per game, injected cheats flagged, flags without a cheat, and
   whether the refereed score equals the simulation's truth.
2. ``--kill-games`` games run as ``cardtable demo ... --json`` subprocesses, killed with SIGKILL at
   random moments (one to three times each, at random journal sizes) and restarted with the same
   command until they finish: each must end with the true score.

    .venv/bin/python benchmarks/bench_demo.py                       # 20 games + 10 killed games
    .venv/bin/python benchmarks/bench_demo.py --games 3 --kill-games 1
    .venv/bin/python benchmarks/bench_demo.py --seed 1508 --lost-layout-answer 4   # kill during the deal
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kill_loop import run_with_kills  # noqa: E402

from table.demo.config import DemoConfig  # noqa: E402
from table.demo.runner import run_demo  # noqa: E402


def _entries(journal: Path) -> int:
    try:
        with sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
    except sqlite3.Error:
        return 0


def cheating_games(n: int, first_seed: int, players: int, cheat: float, senses: str, tmp: Path) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for seed in range(first_seed, first_seed + n):
        r = run_demo(
            DemoConfig(
                players=players,
                seed=seed,
                cheat=cheat,
                fast=True,
                senses=senses,
                journal=tmp / f"game-{seed}.db",
                timeout=600,
            )
        )
        row: dict[str, Any] = {
            "seed": seed,
            "seconds": round(r.seconds, 2),
            "frames": r.frames,
            "agree": r.agree,
            "cheats": len(r.cheats),
            "missed": len(r.missed),
            "flags": len(r.flags),
            "invented": len(r.invented),
            "recognizer": r.stats.get("recognizer"),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    secs = [r["seconds"] for r in rows]
    return {
        "games": n,
        "players": players,
        "cheat": cheat,
        "senses": senses,
        "agree": sum(r["agree"] for r in rows),
        "cheats": sum(r["cheats"] for r in rows),
        "missed": sum(r["missed"] for r in rows),
        "flags": sum(r["flags"] for r in rows),
        "invented": sum(r["invented"] for r in rows),
        "seconds_median": round(statistics.median(secs), 1),
        "seconds_max": round(max(secs), 1),
        "frames_median": statistics.median(r["frames"] for r in rows),
    }


def killed_games(n: int, first_seed: int, cheat: float, tmp: Path, timeout: float) -> dict[str, Any]:
    rng = random.Random(first_seed)
    rows = []
    for seed in range(first_seed, first_seed + n):
        journal = tmp / f"kill-{seed}.db"
        cmd = [
            sys.executable,
            "-m",
            "table",
            "demo",
            "--seed",
            str(seed),
            "--fast",
            "--cheat",
            str(cheat),
            "--json",
            "--journal",
            str(journal),
            "--timeout",
            str(timeout),
        ]
        planned = rng.randint(1, 3)
        # a random moment, measured in journal entries
        done = run_with_kills(
            cmd,
            cmd,
            cwd=ROOT,
            progress=functools.partial(_entries, journal),
            rng=rng,
            planned=planned,
            step=(10, 160),
            timeout=timeout + 120,
            poll_s=0.01,
        )
        kills, out = done.kills, done.out
        row = {
            "seed": seed,
            "kills": kills,
            "agree": bool(out and out.get("agree")),
            "error": out.get("error") if out else None,
            "resumed": bool(out and out.get("resumed")),
            "flags_matched": bool(out) and all(f["matched"] for f in out.get("flags", [])),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {
        "games": n,
        "kills": sum(r["kills"] for r in rows),
        "agree": sum(r["agree"] for r in rows),
        "flags_all_matched": sum(r["flags_matched"] for r in rows),
    }


def _layout_deals(journal: Path) -> int:
    """Face-up layout deals the dealer machine made, from the world's log (written before it answers)."""
    n = 0
    for log in journal.parent.glob(journal.name + ".world-*.jsonl"):
        n += log.read_text(encoding="utf-8").count('"dealt": ["layout"')
    return n


def lost_layout_answer(seed: int, nth: int, cheat: float, tmp: Path, timeout: float) -> dict[str, Any]:
    """Kill the demo the moment the machine has dealt its ``nth`` face-up layout card (its answer
    to the host most likely lost), restart with the same command: the game must end with the true
    score, and any layout card the re-read could not name is asked about (prompts counted)."""
    journal = tmp / f"layout-{seed}-{nth}.db"
    cmd = [
        sys.executable,
        "-m",
        "table",
        "demo",
        "--seed",
        str(seed),
        "--fast",
        "--cheat",
        str(cheat),
        "--json",
        "--journal",
        str(journal),
        "--timeout",
        str(timeout),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None and _layout_deals(journal) < nth:
        time.sleep(0.002)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(journal) as db:
        inputs = [json.loads(body) for (body,) in db.execute("SELECT body FROM entries WHERE kind = 'input'")]
    answered = sum(1 for i in inputs if i.get("kind") == "dealt" and i.get("data", {}).get("target") == "layout")
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 120)
    lines = done.stdout.strip().splitlines()
    out = json.loads(lines[-1]) if lines else {"agree": False, "error": done.stderr[-500:]}
    with sqlite3.connect(journal) as db:
        prompts = [
            a["card"]
            for (body,) in db.execute("SELECT body FROM entries WHERE kind = 'verdict'")
            for a in json.loads(body)["actions"]
            if a["do"] == "prompt"
        ]
    row = {
        "seed": seed,
        "killed_after_layout_deal": nth if killed else None,
        "layout_answers_journalled": answered,
        "prompts": prompts,
        "agree": bool(out.get("agree")),
        "error": out.get("error"),
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--kill-games", type=int, default=10)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--cheat", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--senses", choices=["vision", "direct"], default="vision")
    ap.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="a killed game's last run ends with an error after this many seconds",
    )
    ap.add_argument(
        "--lost-layout-answer",
        type=int,
        metavar="N",
        default=0,
        help="instead: kill game --seed right after the machine deals its Nth layout card (1-4), then restart it",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as d:
        tmp = Path(d)
        summary: dict[str, Any] = {"cpus": os.cpu_count()}
        if args.lost_layout_answer:
            summary["lost_layout_answer"] = lost_layout_answer(
                args.seed, args.lost_layout_answer, args.cheat, tmp, args.timeout
            )
            print(json.dumps(summary, indent=1))
            return 0
        if args.games:
            summary["cheating"] = cheating_games(args.games, args.seed, args.players, args.cheat, args.senses, tmp)
        if args.kill_games:
            summary["killed"] = killed_games(args.kill_games, args.seed + 500, args.cheat, tmp, args.timeout)
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
