"""Fuzzing of the inputs a user hands the table: game records (``cardtable replay``) and ``table.toml``.

Each case is a valid input damaged at random: a value replaced (by a number of any size, a float,
NaN, text, a card-like code, null, a list, an object), a key deleted, added or misspelt, a list cut,
doubled or shuffled, or the file's text itself cut, flipped or spliced. What must hold for every
case: the input is accepted, or refused with the package's own error (a record: ``RecordError``,
exit 2, or ``IllegalMoveError``, exit 1; a configuration: ``ConfigError``, exit 2). Anything else is
a traceback; a case taking longer than ``--hang`` seconds is a hang. An accepted record's result
must conserve the coins (Garbage) or chips (Frog), and be JSON.

The test suite runs a bounded number of these cases through hypothesis
(``tests/table/fuzz/test_fuzz_inputs.py``); the long run is this script::

    .venv/bin/python benchmarks/fuzz_inputs.py --records 30000 --configs 30000 --seed 1

It prints the counts as JSON and exits 1 when there was any traceback or hang.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from table import records  # noqa: E402
from table.config import check_rules, parse_config  # noqa: E402
from table.errors import ConfigError, IllegalMoveError, RecordError  # noqa: E402

EXAMPLE = ROOT / "docs" / "table.toml.example"

Json = Any
Path_ = tuple[str | int, ...]


# -- the valid inputs the cases start from ------------------------------------------------------------


def base_records() -> list[dict[str, Any]]:
    """A few valid records of every game, kind and size (one deal, a match, a session, stud betting)."""
    from table.chinese_ten.record import random_match_record

    out = [
        records.game_module("chinese-ten").random_record(players=3, seed=1, rules=None),
        records.game_module("chinese-ten").random_record(players=2, seed=2, rules="red-frog-black-frog"),
        random_match_record(players=3, seed=3, rules="pagat", deals=2),
        records.game_module("frog").random_record(players=3, seed=4, rules=None),
        records.game_module("frog").random_record(players=4, seed=5, rules="modern"),
        records.game_module("garbage").random_record(players=3, seed=6, rules="stud"),
        records.game_module("garbage").random_record(players=4, seed=7, rules="everything"),
    ]
    out.append(records.game_module("garbage").random_record(players=3, seed=8, rules="buy"))
    return out


def base_configs() -> list[dict[str, Any]]:
    """The shipped example (parsed) and a few small valid tables of every game."""
    import tomllib

    return [
        tomllib.loads(EXAMPLE.read_text()),
        {"table": {"game": "frog", "players": 4, "rules": "modern"}, "rules": {"options": {"penalty_frog": True}}},
        {
            "table": {"game": "garbage", "players": 5},
            "rules": {"options": {"ante": 2}},
            "gpio": {"pin_factory": "mock"},
        },
        {"table": {"game": "chinese-ten", "rules": "g4a"}, "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]},
    ]


# -- damage -----------------------------------------------------------------------------------------

KEYS = (
    "game", "rules", "options", "players", "dealer", "deal", "deck", "hands", "layout", "stock", "moves", "deals",
    "seat", "play", "flip", "take", "bid", "trump", "widow", "discard", "seed", "cards", "move", "card", "note",
    "first_dealer", "reshuffle_seed", "table", "seats", "camera", "dealer", "gpio", "leds", "button", "led", "name",
    "spec", "layout", "fps", "port", "pin_factory", "hold_ms", "status_led", "buzzer", "capture_compulsory", "ante",
    "penalty_frog", "match_target", "junk", "", "0", "-1", "seats[0]",
)  # fmt: skip


def random_value(rng: random.Random, depth: int = 0) -> Json:
    """Any JSON (or TOML) value, biased to what parsers find hard."""
    pick = rng.randrange(14 if depth < 3 else 10)
    if pick == 0:
        return rng.choice([0, 1, -1, 2, 3, 7, 12, 13, 52, 255, 256, 100000, 2**31, 2**63, -(2**63)])
    if pick == 1:
        return rng.randint(-(10 ** rng.randint(1, 29)), 10 ** rng.randint(1, 29))
    if pick == 2:
        return rng.choice([0.5, -0.0, 1e308, -1e-308, 3.0, float("nan"), float("inf")])
    if pick == 3:
        return rng.choice([True, False, None])
    if pick == 4:
        return rng.choice(["AS", "TD", "10h", "A♠", "XX", "", "pass", "grand", "buy", "#ff0000", "sim:", "7H"])
    if pick == 5:
        return "".join(chr(rng.randrange(0x20, 0x2FF)) for _ in range(rng.randrange(0, 12)))
    if pick == 6:
        return rng.choice(["chinese-ten", "frog", "garbage", "pagat", "g4a", "stud", "modern", "mock", "default"])
    if pick == 7:
        return [rng.choice(["AS", "KH", "2C", "TD"]) for _ in range(rng.choice([0, 1, 3, 11, 12, 36, 52, 53]))]
    if pick == 8:
        return {"seat": rng.randrange(-1, 9), rng.choice(["play", "flip", "bid", "move"]): rng.choice(["AS", "pass"])}
    if pick == 9:
        return rng.choice(["x" * 1000, "[" * 50, "\x00", "\ud7ff"])
    if pick in (10, 11):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(KEYS): random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def _paths(value: Json, here: Path_ = ()) -> Iterator[Path_]:
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*here, i))


def _parent(root: Json, path: Path_) -> tuple[Json, str | int]:
    node = root
    for step in path[:-1]:
        node = node[step]
    return node, path[-1]


def damage(value: Json, rng: random.Random, *, mutations: int | None = None) -> Json:
    """``value`` (a copy) with 1 to 3 random mutations."""
    out = copy.deepcopy(value)
    for _ in range(mutations or rng.randint(1, 3)):
        paths = [p for p in _paths(out) if p]
        if not paths:
            return random_value(rng)
        path = rng.choice(paths)
        parent, key = _parent(out, path)
        how = rng.randrange(7)
        if how in (0, 1):
            parent[key] = random_value(rng)
        elif how == 2 and isinstance(parent, dict):
            del parent[key]
        elif how == 2:
            parent.pop(key)
        elif how == 3 and isinstance(parent, dict):
            parent[rng.choice(KEYS)] = random_value(rng)
        elif how == 3:
            parent.insert(int(key), random_value(rng))
        elif how == 4 and isinstance(parent[key], list):
            items = parent[key]
            parent[key] = rng.choice(
                [items[: rng.randrange(len(items) + 1)], items + items, rng.sample(items, len(items))]
            )
        elif how == 5 and isinstance(parent, dict):
            parent[str(key) + rng.choice(["s", "_", "X"])] = parent.pop(key)  # a misspelt key
        else:
            parent[key] = copy.deepcopy(
                rng.choice([parent[k] for k in (parent if isinstance(parent, dict) else range(len(parent)))])
            )
    return out


def damage_text(text: str, rng: random.Random) -> str:
    """The file's text cut, with bytes flipped, or spliced with itself."""
    data = bytearray(text.encode())
    how = rng.randrange(4)
    if how == 0 and data:
        del data[rng.randrange(len(data)) :]
    elif how == 1:
        for _ in range(rng.randint(1, 8)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == 2 and data:
        a, b = sorted(rng.randrange(len(data)) for _ in range(2))
        data[a:a] = data[a:b] * rng.randint(1, 3)
    else:
        data[rng.randrange(len(data) + 1) : 0] = rng.choice(
            [b"[", b"{", b'"', b"=", b"\n[table]\n", b"\xff", b"1" * 40]
        )
    return data.decode("utf-8", "replace")


# -- the checks ----------------------------------------------------------------------------------


def check_record(record: Json) -> str:
    """A record as ``cardtable replay`` gets it (written to JSON text, read back within the limits):
    ``replayed``, ``malformed`` or ``illegal``; any other exception propagates (a traceback)."""
    return check_record_text(json.dumps(record))


def check_record_text(text: str) -> str:
    try:
        result = records.replay(records.parse_record(text))
    except RecordError:
        return "malformed"
    except IllegalMoveError:
        return "illegal"
    json.dumps(result, allow_nan=False)
    conserved(result)
    return "replayed"


def conserved(result: dict[str, Any]) -> None:
    if result.get("game") == "garbage":
        total = sum(s["coins"] for s in result["seats"]) + result["kitty"] + sum(result["pots"].values())
        if total != result["coins_total"]:
            raise AssertionError(f"coins not conserved: {total} != {result['coins_total']}")
    elif result.get("game") == "frog" and sum(s["chips"] for s in result["seats"]) != 0:
        raise AssertionError("chips not conserved")


def check_config(data: Json) -> str:
    """``accepted`` or ``refused``; any other exception propagates."""
    try:
        cfg = parse_config(data)
        check_rules(cfg)
    except ConfigError:
        return "refused"
    return "accepted"


def check_config_text(text: str) -> str:
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "refused"
    except RecursionError:  # load_config turns this into a ConfigError
        return "refused"
    return check_config(data)


# -- the long run -----------------------------------------------------------------------------------


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Hang


def run(kind: str, n: int, rng: random.Random, hang_s: float) -> dict[str, Any]:
    bases: list[Json] = base_records() if kind == "records" else base_configs()
    counts: Counter[str] = Counter()
    failures: list[str] = []
    slowest = 0.0
    signal.signal(signal.SIGALRM, _alarm)
    t0 = time.perf_counter()
    for i in range(n):
        base = rng.choice(bases)
        as_text = rng.random() < 0.25
        if kind == "records":
            case: Json = damage_text(json.dumps(base), rng) if as_text else damage(base, rng)
            check: Callable[[Json], str] = check_record_text if as_text else check_record
        else:
            case = damage_text(EXAMPLE.read_text(), rng) if as_text else damage(base, rng)
            check = check_config_text if as_text else check_config
        start = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, hang_s)
        try:
            counts[check(case)] += 1
        except _Hang:
            counts["hang"] += 1
            failures.append(f"case {i}: hang")
        except Exception as exc:
            counts["traceback"] += 1
            if len(failures) < 20:
                failures.append(f"case {i}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        slowest = max(slowest, time.perf_counter() - start)
    seconds = time.perf_counter() - t0
    return {
        "kind": kind,
        "cases": n,
        **{k: counts[k] for k in sorted(counts)},
        "traceback": counts["traceback"],
        "hang": counts["hang"],
        "seconds": round(seconds, 1),
        "slowest_case_s": round(slowest, 3),
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=30_000)
    parser.add_argument("--configs", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hang", type=float, default=10.0, help="a case taking longer than this is a hang (s)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    out = [run("records", args.records, rng, args.hang), run("configs", args.configs, rng, args.hang)]
    for part in out:
        print(json.dumps(part))
    return 1 if any(p["traceback"] or p["hang"] for p in out) else 0


if __name__ == "__main__":
    sys.exit(main())
