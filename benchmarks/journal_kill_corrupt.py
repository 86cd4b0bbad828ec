"""Kill-and-corrupt benchmark of the journal: a controller killed with SIGKILL at a random moment,
then its files damaged in one of many ways; every damage must be recovered exactly or refused with
a message, none silently shortened.

Each round: a child process claims a fresh journal and writes as a controller does (a game, then
input and verdict entries of varied size, the game finished after a while and another begun),
printing each entry's place once ``append`` has returned (committed). The parent kills it with
SIGKILL after a random number of acknowledged entries, damages the files (see ``DAMAGE``), then
opens the journal as the next controller would (``table.journal.claim``: the lock, the header,
schema, ``quick_check``, the seal, the open games' entry chains) and reads every entry of every game
(as ``export`` does). Outcomes:

* ``exact``: the controller opened it and every acknowledged entry is there, as written (one more,
  unacknowledged, may follow: a write committed just before the kill, before its acknowledgement);
* ``refused``: the controller refused it with a JournalError message (damaged, shortened, not a
  journal);
* ``refused_on_read``: it opened, and the damage was reported with a message when the damaged
  game's entries were read;
* ``silent``: it opened and read without a word, but an acknowledged entry is missing or changed;
* ``traceback``: anything else raised.

``silent`` and ``traceback`` must be 0. Run::

    .venv/bin/python benchmarks/journal_kill_corrupt.py --rounds 650 --seed 1

The writer runs with ``synchronous=NORMAL`` by default: after ``kill -9`` its files are the same as
under ``FULL`` (which only adds fsyncs against a power cut) and a round takes a second, not ten.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from table.journal import Journal, JournalError, claim  # noqa: E402
from table.journal_seal import seal_path  # noqa: E402

WRITER = textwrap.dedent("""
    import random, sys
    from table.journal import Journal, claim
    path, seed, synchronous = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    with claim(path), Journal(path, synchronous=synchronous) as j:
        while True:
            gid = j.new_game(key="play:chinese-ten:pagat:3", game="chinese-ten", rules="pagat", players=3)
            print("game", gid, flush=True)
            for _ in range(rng.randint(20, 160)):
                seq = j.append(gid, "input", {"game": gid, "pad": "x" * ((gid * 131) % 300)})
                print("ack", gid, seq, flush=True)
            j.finish_game(gid, {"seats": []})
""")


def body(game: int) -> dict[str, object]:
    """What the writer writes in every entry of ``game`` (the parent checks it)."""
    return {"game": game, "pad": "x" * ((game * 131) % 300)}


def _wal(path: Path) -> Path:
    return Path(f"{path}-wal")


def _overwrite(f: Path, rng: random.Random, size: int) -> str:
    n = f.stat().st_size
    if n == 0:
        return "empty"
    at = rng.randrange(n)
    with open(f, "r+b") as fh:
        fh.seek(at)
        fh.write(bytes(rng.randrange(256) for _ in range(size)))
    return f"at {at} of {n}"


def _flip(f: Path, rng: random.Random) -> str:
    n = f.stat().st_size
    if n == 0:
        return "empty"
    with open(f, "r+b") as fh:
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(n)
            fh.seek(at)
            b = fh.read(1)
            fh.seek(at)
            fh.write(bytes([b[0] ^ (1 << rng.randrange(8))]))
    return "flipped"


def _truncate(f: Path, rng: random.Random) -> str:
    n = f.stat().st_size
    keep = rng.randrange(n + 1)
    os.truncate(f, keep)
    return f"{keep} of {n}"


Damage = Callable[[Path, random.Random, dict[str, Path]], str]


def _if_wal(act: Callable[[Path, random.Random], str]) -> Damage:
    def damage(path: Path, rng: random.Random, saved: dict[str, Path]) -> str:
        wal = _wal(path)
        return act(wal, rng) if wal.exists() and wal.stat().st_size else "no wal"

    return damage


def _older_copy(path: Path, rng: random.Random, saved: dict[str, Path]) -> str:
    old = saved.get("copy")
    if old is None:
        return "no copy"
    for suffix in ("", "-wal", "-shm"):
        target = Path(f"{path}{suffix}")
        source = Path(f"{old}{suffix}")
        target.unlink(missing_ok=True)
        if source.exists():
            shutil.copy(source, target)
    return "restored"


def _older_seal(path: Path, rng: random.Random, saved: dict[str, Path]) -> str:
    old = saved.get("seal")
    if old is None:
        return "no old seal"
    shutil.copy(old, seal_path(path))
    return "restored"


def _deleted(path: Path, missing_ok: bool = False) -> str:
    path.unlink(missing_ok=missing_ok)
    return "deleted"


DAMAGE: dict[str, Damage] = {
    "none (kill -9 only)": lambda p, r, s: "-",
    "WAL: 4 KB overwritten": _if_wal(lambda f, r: _overwrite(f, r, 4096)),
    "WAL: a few bits flipped": _if_wal(_flip),
    "WAL: truncated": _if_wal(_truncate),
    "WAL: deleted": _if_wal(lambda f, r: _deleted(f)),
    "WAL index (-shm) deleted": lambda p, r, s: _deleted(Path(f"{p}-shm"), missing_ok=True),
    "database: 4 KB overwritten": lambda p, r, s: _overwrite(p, r, 4096),
    "database: a few bits flipped": lambda p, r, s: _flip(p, r),
    "database: truncated": lambda p, r, s: _truncate(p, r),
    "an older copy of the files": _older_copy,
    "seal: deleted": lambda p, r, s: _deleted(seal_path(p)),
    "seal: an older one": _older_seal,
    "seal: garbled": lambda p, r, s: _flip(seal_path(p), r),
}


def one_round(folder: Path, kind: str, rng: random.Random, synchronous: str) -> tuple[str, str]:
    path = folder / "journal.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(rng.randrange(1 << 30)), synchronous],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    kill_after = rng.randint(1, 500)
    copy_at = rng.randint(0, kill_after)
    saved: dict[str, Path] = {}
    acked: dict[int, int] = defaultdict(int)  # game -> last acknowledged seq
    count = 0
    for line in proc.stdout:
        word, *rest = line.split()
        if word == "ack":
            gid, seq = int(rest[0]), int(rest[1])
            acked[gid] = seq
            count += 1
            if count == copy_at:  # a copy taken while the controller writes (as a careless backup is)
                saved["copy"] = folder / "copy.db"
                for suffix in ("", "-wal", "-shm"):
                    src = Path(f"{path}{suffix}")
                    if src.exists():
                        shutil.copy(src, Path(f"{saved['copy']}{suffix}"))
                saved["seal"] = folder / "copy.seal"
                shutil.copy(seal_path(path), saved["seal"])
            if count >= kill_after:
                break
    os.kill(proc.pid, signal.SIGKILL)
    for line in proc.stdout:  # acknowledgements printed before the kill landed (some already buffered)
        words = line.split()
        if line.endswith("\n") and len(words) == 3 and words[0] == "ack":  # not a line the kill cut short
            acked[int(words[1])] = int(words[2])
    proc.wait(timeout=30)
    assert proc.stderr is not None
    proc.stderr.close()
    detail = DAMAGE[kind](path, rng, saved)
    return _judge(path, dict(acked)), detail


def _judge(path: Path, acked: dict[int, int]) -> str:
    try:
        lock = claim(path)
    except JournalError:
        return "refused"
    try:
        with Journal(path) as journal:
            try:
                for gid, last in acked.items():
                    entries = list(journal.entries(gid))
                    want = body(gid)
                    if len(entries) < last or len(entries) > last + 1:
                        return "silent"
                    if any(e.body != want or e.seq != i + 1 for i, e in enumerate(entries)):
                        return "silent"
            except JournalError:
                return "refused_on_read"
    finally:
        lock.release()
    return "exact"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--synchronous",
        default="NORMAL",
        choices=["NORMAL", "FULL"],
        help="the writer's setting: a kill -9 finds the same files either way (FULL adds fsyncs, for power cuts)",
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    table: dict[str, Counter[str]] = {k: Counter() for k in DAMAGE}
    failures: list[str] = []
    t0 = time.perf_counter()
    for i in range(args.rounds):
        kind = list(DAMAGE)[i % len(DAMAGE)]
        with tempfile.TemporaryDirectory(prefix="kill-corrupt-") as tmp:
            try:
                outcome, detail = one_round(Path(tmp), kind, rng, args.synchronous)
            except Exception as exc:  # a traceback is an outcome to count, not the end of the run
                outcome, detail = "traceback", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
        table[kind][outcome] += 1
        if outcome in ("silent", "traceback") and len(failures) < 20:
            failures.append(f"round {i} ({kind}, {detail}): {outcome}")
    total: Counter[str] = sum(table.values(), Counter())
    print(
        json.dumps(
            {
                "rounds": args.rounds,
                "seconds": round(time.perf_counter() - t0, 1),
                "synchronous": args.synchronous,
                "total": dict(total),
                "by_damage": {k: dict(v) for k, v in table.items()},
                "failures": failures,
            },
            indent=1,
        )
    )
    return 1 if total["silent"] or total["traceback"] else 0


if __name__ == "__main__":
    sys.exit(main())
