"""Garbage records through ``cardtable replay`` (docs/records.md): exit 0 with the result, 1 for an
illegal move (its index), 2 for a malformed record (where and what)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table.cards import multi_pack, shuffled
from table.cli import main
from table.garbage.record import random_record, replay


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, record: dict[str, Any]) -> str:
    path = tmp_path / "garbage.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("players, rules", [(3, "standard"), (5, "stud"), (6, "everything"), (8, "seven-card")])
def test_random_record_replays_to_the_same_coins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], players: int, rules: str
) -> None:
    out_file = tmp_path / "r.json"
    code, _, _ = run_cli(
        [
            "replay",
            "--random",
            "garbage",
            "--players",
            str(players),
            "--seed",
            "7",
            "--rules",
            rules,
            "--out",
            str(out_file),
        ],
        capsys,
    )
    assert code == 0
    code, out, err = run_cli(["replay", str(out_file)], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["game"] == "garbage" and result["over"] is True
    assert [s["seat"] for s in result["seats"]] == list(range(players))
    assert sum(s["coins"] for s in result["seats"]) + result["kitty"] == 100 * players
    assert sum(s["net"] for s in result["seats"]) + result["kitty"] == 0
    assert len(result["hands"]) == players


def test_explicit_cards_and_deck_order_replay_like_the_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same hand three ways: a seed, the whole deck order, and the cards as the camera saw them."""
    from table.garbage.record import play_bot_game
    from table.garbage.rules import GarbageRules
    from table.garbage.state import Supplied

    game = play_bot_game(3, seed=1, rules=GarbageRules(deals_per_seat=1))
    seen = [
        [str(item.card) for item in game.history if isinstance(item, Supplied) and item.deal == d] for d in range(3)
    ]
    base = random_record(players=3, seed=1, rules=None)
    by_cards = dict(base, deals=[{"cards": cards} for cards in seen])
    by_deck = dict(
        base,
        deals=[
            {"deck": [str(c) for c in shuffled(multi_pack(2), d["seed"])], "reshuffle_seed": d["seed"]}
            for d in base["deals"]
        ],
    )
    expected = replay(base)["seats"]
    assert replay(by_cards)["seats"] == expected
    assert replay(by_deck)["seats"] == expected
    code, out, _ = run_cli(["replay", write(tmp_path, by_cards)], capsys)
    assert code == 0 and json.loads(out)["seats"] == expected


def test_a_record_that_stops_early_is_not_over(capsys: pytest.CaptureFixture[str]) -> None:
    record = {"game": "garbage", "players": 3, "deals": [{"cards": ["AS", "KD", "7H"]}]}
    result = replay(record)
    assert result["over"] is False
    assert "deal card 2 face up to seat 1" in result["awaiting"]
    assert [s["coins"] for s in result["seats"]] == [95, 95, 95]


def test_an_illegal_move_exits_1_with_its_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = random_record(players=3, seed=2, rules="stud")
    assert record["moves"], "stud games have betting moves"
    first = record["moves"][0]
    record["moves"][0] = {"seat": (first["seat"] + 1) % 3, "move": first["move"]}
    code, _, err = run_cli(["replay", write(tmp_path, record)], capsys)
    assert code == 1
    assert "illegal move 0:" in err and "turn to decide" in err


@pytest.mark.parametrize(
    "change, where",
    [
        ({"players": "five"}, "players: expected int"),
        ({"players": 2}, "players: Garbage needs 3 to 12 players"),
        ({"rules": "poker"}, "rules: unknown Garbage rule set"),
        ({"rules": {"base": "standard", "ante": -1}}, "rules.ante: must be a whole number"),
        ({"deals": [{"cards": ["AS", "ZZ"]}]}, "deals[0].cards[1]: not a card"),
        ({"deals": [{"cards": ["AS", "AS", "AS"]}]}, "deals[0].cards[2]: AS: cannot come from the stock"),
        ({"deals": [{"deck": ["AS"]}]}, "deals[0].deck: is not the 104-card pack"),
        ({"deals": [{"seed": 1, "cards": []}]}, 'deals[0]: give exactly one of "seed", "deck" or "cards"'),
        ({"deals": [{"seed": 1}] * 4}, "deals: has 4 hands"),
        ({"moves": [{"seat": 0, "move": "jump"}]}, "moves[0].move: unknown move 'jump'"),
        ({"moves": [{"seat": 0}]}, "moves[0].move: missing"),
        ({"first_dealer": 5}, "first_dealer: must be a seat"),
    ],
)
def test_a_malformed_record_exits_2_naming_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], where: str
) -> None:
    record: dict[str, Any] = {"game": "garbage", "players": 3, "deals": [{"seed": 1}], "moves": []}
    record.update(change)
    code, _, err = run_cli(["replay", write(tmp_path, record)], capsys)
    assert code == 2, err
    assert where in err


def test_extra_cards_in_a_hand_are_reported(capsys: pytest.CaptureFixture[str]) -> None:
    from table.errors import RecordError
    from table.garbage.record import play_bot_game
    from table.garbage.rules import GarbageRules
    from table.garbage.state import Supplied

    game = play_bot_game(3, seed=3, rules=GarbageRules())
    first = [str(i.card) for i in game.history if isinstance(i, Supplied) and i.deal == 0]
    with pytest.raises(RecordError, match=r"deals\[0\].cards\[\d+\]: the hand ended"):
        replay({"game": "garbage", "players": 3, "deals": [{"cards": first + ["2C"]}]})


def test_moves_after_the_match_are_illegal(capsys: pytest.CaptureFixture[str]) -> None:
    from table.errors import IllegalMoveError

    record = random_record(players=3, seed=0, rules=None)
    record["moves"] = record["moves"] + [{"seat": 0, "move": "buy"}]
    with pytest.raises(IllegalMoveError) as info:
        replay(record)
    assert info.value.index == len(record["moves"]) - 1


def test_random_with_bad_rules_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["replay", "--random", "garbage", "--rules", "standard,ante=x"], capsys)
    assert code == 2 and "ante: expected a whole number" in err
