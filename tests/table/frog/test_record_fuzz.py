"""Damaged records never crash the replayer: only RecordError (exit 2) or IllegalMoveError (exit 1)."""

from __future__ import annotations

import copy
import random
from typing import Any

from table.errors import IllegalMoveError, RecordError
from table.frog.record import random_record, replay

JUNK: list[Any] = [None, True, -1, 0, 7, 3.5, "", "AS", "5C", "grand", "pass", "H", [], {}, ["AS"], {"seat": 1}]


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def _damage(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    rec = copy.deepcopy(record)
    path = rng.choice(_paths(rec)[1:])
    parent: Any = rec
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if rng.random() < 0.3 and isinstance(parent, dict):
        del parent[last]
    elif rng.random() < 0.2 and isinstance(parent, list):
        parent.pop(last)
    else:
        parent[last] = rng.choice(JUNK)
    return rec


def test_damaged_records_fail_cleanly() -> None:
    rng = random.Random(2024)
    bases = [
        random_record(players=p, seed=s, rules=r)
        for p, s, r in [(3, 1, "foster-1909"), (4, 2, "modern"), (6, 3, "solo-slough"), (3, 4, "straight-solo")]
    ]
    outcomes = {"ok": 0, "record": 0, "illegal": 0}
    for i in range(600):
        rec = _damage(bases[i % len(bases)], rng)
        try:
            result = replay(rec)
        except RecordError as exc:
            assert exc.reason
            outcomes["record"] += 1
        except IllegalMoveError as exc:
            assert exc.index is not None and exc.reason
            outcomes["illegal"] += 1
        else:
            assert sum(s["chips"] for s in result["seats"]) == 0
            outcomes["ok"] += 1
    assert all(outcomes.values()), outcomes
