"""Frog records through ``cardtable replay``: results, exit codes 0/1/2 and error quality."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table.cli import main
from table.frog.record import random_record, replay

HANDS = {
    "1": "AH TH KH QH JH 9H AS TS AC AD TD".split(),
    "2": "8H 7H KS QS JS KC QC JC KD QD JD".split(),
    "0": "6H 9S 8S 7S 6S TC 9C 8C 9D 8D 7D".split(),
}


def write(tmp_path: Path, record: dict[str, Any], name: str = "r.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_random_frog_record_replays_to_the_seats_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--random", "frog", "--seed", "4", "--players", "4", "--out", str(tmp_path / "g.json"))
    assert code == 0 and out == ""
    code, out, err = run(capsys, str(tmp_path / "g.json"))
    assert code == 0, err
    result = json.loads(out)
    assert result["game"] == "frog" and result["over"] is True
    assert [s["seat"] for s in result["seats"]] == [0, 1, 2, 3]
    assert set(result["seats"][0]) == {"seat", "points", "chips"}
    assert sum(s["chips"] for s in result["seats"]) == 0
    assert sum(s["points"] for s in result["seats"]) == 120


def test_worked_record_grand_in_hidden_and_known_modes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rec = random_record(players=3, seed=11, rules="modern")
    known = replay(rec)
    hidden = json.loads(json.dumps(rec))
    for deal in hidden["deals"]:
        del deal["deck"]
        for move in deal["moves"]:
            if "discard" in move:
                move["discard"] = None
    assert replay(hidden)["seats"] == known["seats"]


def test_partial_record_is_not_over(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = {
        "game": "frog",
        "rules": "modern",
        "players": 3,
        "dealer": 0,
        "hands": HANDS,
        "moves": [{"seat": 1, "bid": "grand"}, {"seat": 1, "play": "AS"}],
    }
    code, out, _ = run(capsys, write(tmp_path, rec))
    result = json.loads(out)
    assert code == 0 and result["over"] is False and result["deals"][0]["phase"] == "play"


@pytest.mark.parametrize(
    "moves, index, message",
    [
        ([{"seat": 2, "bid": "frog"}], 0, "seat 2 cannot bid now: it is seat 1's turn"),
        (
            [{"seat": 1, "bid": "grand"}, {"seat": 1, "play": "AS"}, {"seat": 2, "play": "8H"}],
            2,
            "seat 2 cannot play 8H: must follow suit (spades) and holds KS",
        ),
        ([{"seat": 1, "bid": "grand"}, {"seat": 1, "play": "KS"}], 1, "seat 1 cannot use KS: KS belongs to seat 2"),
        (
            [
                {"seat": 1, "bid": "chico"},
                {"seat": 2, "bid": "pass"},
                {"seat": 0, "bid": "pass"},
                {"seat": 1, "trump": "H"},
            ],
            3,
            "hearts would be a Grand",
        ),
    ],
)
def test_illegal_moves_exit_1_with_index_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], moves: list[dict[str, Any]], index: int, message: str
) -> None:
    rec = {"game": "frog", "players": 3, "hands": HANDS, "moves": moves}
    code, out, err = run(capsys, write(tmp_path, rec))
    assert code == 1 and out == ""
    assert f"illegal move {index}: " in err and message in err


@pytest.mark.parametrize(
    "patch, where",
    [
        ({"moves": [{"seat": 1, "play": "XX"}]}, "moves[0].play"),
        ({"moves": [{"seat": 1, "bid": "misere"}]}, "moves[0].bid"),
        ({"moves": [{"seat": 9, "bid": "pass"}]}, "moves[0].seat"),
        ({"moves": [{"seat": 1, "bid": "pass", "play": "AS"}]}, "moves[0]"),
        ({"moves": "none"}, "moves"),
        ({"players": 8}, "players"),
        ({"rules": "skat"}, "rules"),
        ({"options": {"penalty_frog": "yes"}}, "options.penalty_frog"),
        ({"hands": {**HANDS, "0": ["6H"]}}, "hands[0]"),
        ({"hands": {**HANDS, "0": ["AS", *HANDS["0"][1:]]}}, "AS"),
    ],
)
def test_malformed_records_exit_2_naming_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], patch: dict[str, Any], where: str
) -> None:
    rec: dict[str, Any] = {"game": "frog", "players": 3, "hands": HANDS, "moves": []}
    rec.update(patch)
    code, out, err = run(capsys, write(tmp_path, rec))
    assert code == 2 and out == "" and "malformed record" in err and where in err, err


def test_revoke_is_reported_in_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = [{"seat": 1, "bid": "grand"}] + [
        {"seat": s, "play": p} for s, p in [(1, "AS"), (2, "AD"), (0, "6S"), (1, "TS"), (2, "JH")]
    ]
    code, out, _ = run(capsys, write(tmp_path, {"game": "frog", "moves": moves}))
    result = json.loads(out)
    assert code == 0
    assert result["deals"][0]["revokes"][0] == {
        "trick": 1,
        "seat": 2,
        "card": "AD",
        "rule": "trump",
        "suit": "H",
        "proof": "JH",
        "proof_trick": 2,
        "move": 2,
    }


def test_random_record_options_and_solo_slough_balances() -> None:
    result = replay(random_record(players=6, seed=2, rules="solo-slough"))
    assert result["rules"] == "solo-slough" and sum(result["balances"]) == 720
    with pytest.raises(ValueError):
        random_record(players=8, seed=0, rules="foster-1909")
