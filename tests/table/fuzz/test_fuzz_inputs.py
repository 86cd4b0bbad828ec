"""Fuzzing, bounded in time: damaged game records and table.toml files are accepted or refused with
the package's own error, never a traceback; accepted records conserve coins and chips. The long
run with its counts is ``benchmarks/fuzz_inputs.py`` (docs/performance.md)."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import fuzz_inputs
from table.config import load_config
from table.errors import ConfigError

RECORDS = fuzz_inputs.base_records()
CONFIGS = fuzz_inputs.base_configs()
BOUNDED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# TOML-like values of every type the checker may meet, nested a little
toml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["chinese-ten", "frog", "garbage", "pagat", "g4a", "modern", "stud", "mock", "#00ff00", "sim:"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(fuzz_inputs.KEYS), inner, max_size=4),
    max_leaves=12,
)


@BOUNDED
@given(base=st.sampled_from(range(len(RECORDS))), rng=st.randoms(use_true_random=False))
def test_a_damaged_record_replays_or_is_refused(base: int, rng: random.Random) -> None:
    assert fuzz_inputs.check_record(fuzz_inputs.damage(RECORDS[base], rng)) in ("replayed", "malformed", "illegal")


@BOUNDED
@given(base=st.sampled_from(range(len(RECORDS))), rng=st.randoms(use_true_random=False))
def test_a_damaged_record_file_replays_or_is_refused(base: int, rng: random.Random) -> None:
    text = fuzz_inputs.damage_text(json.dumps(RECORDS[base]), rng)
    assert fuzz_inputs.check_record_text(text) in ("replayed", "malformed", "illegal")


@BOUNDED
@given(base=st.sampled_from(range(len(CONFIGS))), rng=st.randoms(use_true_random=False))
def test_a_damaged_config_is_accepted_or_refused(base: int, rng: random.Random) -> None:
    assert fuzz_inputs.check_config(fuzz_inputs.damage(CONFIGS[base], rng)) in ("accepted", "refused")


@BOUNDED
@given(
    data=st.dictionaries(
        st.sampled_from(["table", "seats", "camera", "dealer", "gpio", "leds", "rules", "junk"]),
        toml_values,
        max_size=5,
    )
)
def test_any_toml_shaped_data_is_accepted_or_refused(data: dict[str, Any]) -> None:
    assert fuzz_inputs.check_config(data) in ("accepted", "refused")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(rng=st.randoms(use_true_random=False))
def test_a_damaged_table_toml_file_is_one_config_error(tmp_path: Path, rng: random.Random) -> None:
    path = tmp_path / "table.toml"
    path.write_text(fuzz_inputs.damage_text(fuzz_inputs.EXAMPLE.read_text(), rng), encoding="utf-8")
    try:
        load_config(path)
    except ConfigError:
        pass


def test_the_fuzzers_start_from_valid_inputs() -> None:
    """The cases are damage to inputs that are themselves accepted (so a refusal is the damage's)."""
    assert all(fuzz_inputs.check_record(r) == "replayed" for r in RECORDS)
    assert all(fuzz_inputs.check_config(c) == "accepted" for c in CONFIGS)
    assert tomllib.loads(fuzz_inputs.EXAMPLE.read_text()) == CONFIGS[0]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_long_run_counts_what_it_sees(seed: int) -> None:
    out = fuzz_inputs.run("records", 40, random.Random(seed), hang_s=10.0)
    assert out["cases"] == 40 and out["traceback"] == out["hang"] == 0
    assert sum(out.get(k, 0) for k in ("replayed", "malformed", "illegal")) == 40
