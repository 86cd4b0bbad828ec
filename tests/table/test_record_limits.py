"""Hostile and careless records (docs/records.md, "The same rules in every game make a record
malformed"): one line, the file named once, exit 2 for a malformed record in every game; and every
replay output conserves the coins."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table import cli, records
from table.errors import RecordError

ROOT = Path(__file__).resolve().parents[2]


def _random(game: str, **kw: Any) -> dict[str, Any]:
    return records.game_module(game).random_record(
        players=kw.get("players"), seed=kw.get("seed", 3), rules=kw.get("rules")
    )


def _replay_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes) -> tuple[int, str]:
    path = tmp_path / "r.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code = cli.main(["replay", str(path)])
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.count(str(path)) == 1, "the path is printed once"
    return code, err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"game": "frog", "players": ' + "9" * 5000 + "}", "5000 digits"),
        ("[" * 100_000, "nested deeper than 32"),
        ('{"game": "frog", "deals": ' + "[" * 40 + "]" * 40 + "}", "nested deeper than 32"),
        ('{"game": "frog", "players": NaN}', "NaN is not a number"),
        ('{"game": "frog", "players": 1e999}', "out of range"),
        ("[1, 2]", "a record is a JSON object"),
        (b"\xff\xfe{}", "not UTF-8"),
        ('{"game": "frog",', "invalid JSON"),
    ],
)
def test_hostile_json_is_malformed_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, said: str
) -> None:
    code, err = _replay_file(tmp_path, capsys, content)
    assert code == 2 and "malformed record" in err and said in err, err


def test_an_endless_file_is_refused_after_the_size_cap() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "table", "replay", "/dev/zero"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2 and "larger than 16 MiB" in run.stderr and "Traceback" not in run.stderr


def test_a_missing_file_or_a_folder_is_named_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for target, said in ((tmp_path / "none.json", "cannot read"), (tmp_path, "a folder")):
        assert cli.main(["replay", str(target)]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count(str(target)) == 1, err


def _first_move(record: dict[str, Any]) -> dict[str, Any]:
    if record["game"] == "frog":
        return record["deals"][0]["moves"][0]  # type: ignore[no-any-return]
    return record["moves"][0]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("game", "rules"), [("chinese-ten", None), ("frog", None), ("garbage", "stud")])
def test_a_seat_out_of_range_is_malformed_in_every_game(game: str, rules: str | None) -> None:
    for seat in (99, -1):
        record = _random(game, rules=rules)
        _first_move(record)["seat"] = seat
        with pytest.raises(RecordError, match=rf"moves\[0\]\.seat: no seat {seat} at a table of"):
            records.replay(record)


@pytest.mark.parametrize(("game", "rules"), [("chinese-ten", None), ("frog", None), ("garbage", "stud")])
def test_unknown_keys_are_malformed_in_every_game(game: str, rules: str | None) -> None:
    record = _random(game, rules=rules)
    records.replay(record)  # as written, it replays
    top = copy.deepcopy(record) | {"junk": {"hands": ["AH"] * 11}}
    with pytest.raises(RecordError, match="^junk: unknown key"):
        records.replay(top)
    in_move = copy.deepcopy(record)
    _first_move(in_move)["plya"] = "AS"
    with pytest.raises(RecordError, match=r"moves\[0\]\.plya: unknown key"):
        records.replay(in_move)
    noted = copy.deepcopy(record) | {"note": "free text is allowed"}
    _first_move(noted)["note"] = "so is a move's note"
    assert records.replay(noted) == records.replay(record)


def test_frog_deal_with_junk_is_not_replayed_as_hidden_hands() -> None:
    record = _random("frog")
    deal = record["deals"][0]
    del deal["deck"]
    deal["deal"] = {"junk": [1, 2, 3]}
    with pytest.raises(RecordError, match=r"deals\[0\]\.deal: unknown key"):
        records.replay(record)


def test_frog_deal_with_both_deck_and_hands_is_malformed() -> None:
    record = _random("frog")
    record["deals"][0]["hands"] = {"0": ["AH"] * 11}
    with pytest.raises(RecordError, match=r"deals\[0\]\.hands: a deal gives its cards once"):
        records.replay(record)
    record = _random("frog")
    record["deals"][0]["widow"] = ["AH", "KH", "QH"]
    with pytest.raises(RecordError, match=r"deals\[0\]\.widow: a deal gives its cards once"):
        records.replay(record)


def test_garbage_deal_keys_and_reshuffle_seed_only_with_a_deck() -> None:
    record = _random("garbage", players=3)
    record["deals"][0]["reshuffle_seed"] = 4
    with pytest.raises(RecordError, match=r"deals\[0\]\.reshuffle_seed: goes with \"deck\" only"):
        records.replay(record)
    record = _random("garbage", players=3)
    record["deals"][0]["cards"] = ["AH"]
    with pytest.raises(RecordError, match="exactly one of"):
        records.replay(record)


def _conserved(result: dict[str, Any]) -> None:
    if result["game"] == "garbage":
        on_table = sum(result["pots"].values())
        assert sum(s["coins"] for s in result["seats"]) + result["kitty"] + on_table == result["coins_total"], result
    elif result["game"] == "frog":
        assert sum(s["chips"] for s in result["seats"]) == 0, result


def test_an_unfinished_garbage_match_adds_up() -> None:
    """The reproduction: 3 players, one deal given of three; the next hand's antes are on the table."""
    record = _random("garbage", players=3, seed=1)
    record["deals"] = record["deals"][:1]
    result = records.replay(record)
    assert not result["over"] and result["pots"]["poker"] == 15 and result["kitty"] == 0
    assert sum(s["coins"] for s in result["seats"]) == 285 and result["coins_total"] == 300
    assert result["hands"][-1]["in_progress"] is True and "in_progress" not in result["hands"][0]
    _conserved(result)


@pytest.mark.parametrize("rules", ["standard", "stud", "bingo-kitty", "high-stakes", "everything"])
def test_every_garbage_replay_conserves_wherever_the_record_stops(rules: str) -> None:
    record = _random("garbage", players=4, seed=11, rules=rules)
    deals, moves = record["deals"], record["moves"]
    for n in range(1, len(deals) + 1):
        for m in sorted({0, len(moves) // 3, len(moves)}):
            cut = dict(record, deals=deals[:n], moves=moves[:m])
            try:
                result = records.replay(cut)
            except RecordError as exc:
                assert "move(s) left" in str(exc)  # more decisions than the hands given reach
                continue
            _conserved(result)


def test_every_frog_replay_conserves_wherever_the_record_stops() -> None:
    record = _random("frog", players=4, seed=5)
    for d in range(len(record["deals"])):
        moves = record["deals"][d]["moves"]
        for m in range(0, len(moves) + 1, 5):
            cut = copy.deepcopy(record)
            cut["deals"] = cut["deals"][: d + 1]
            cut["deals"][d]["moves"] = moves[:m]
            _conserved(records.replay(cut))


def test_exported_records_keep_their_note(tmp_path: Path) -> None:
    record = _random("chinese-ten") | {"note": "unfinished: hands and stock hold only the cards seen so far"}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    assert records.replay(records.load_record(path))["over"] is True
