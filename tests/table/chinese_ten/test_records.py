"""Game records and ``cardtable replay``: results, malformed records (exit 2), illegal moves (exit 1)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from table import cli
from table.cards import standard_pack
from table.chinese_ten.record import random_match_record, random_record, replay
from table.errors import IllegalMoveError, RecordError


def small_record() -> dict[str, Any]:
    """Two players; layout 3C 3H 6D QS; seat 1 (left of dealer 0) plays first."""
    pack = [str(c) for c in standard_pack()]
    layout = ["3C", "3H", "6D", "QS"]
    rest = [c for c in pack if c not in layout and c not in ("7H", "5D", "KD")]
    hands = [rest[:12], ["7H", "KD"] + rest[12:22]]
    stock = ["5D"] + rest[22:45]
    return {
        "game": "chinese-ten",
        "rules": "pagat",
        "options": {},
        "players": 2,
        "dealer": 0,
        "deal": {"hands": hands, "layout": layout, "stock": stock},
        "moves": [{"seat": 1, "play": "7H", "take": "3H"}, {"seat": 1, "flip": "5D"}],
    }


def test_partial_record_replays_with_captures_so_far() -> None:
    result = replay(small_record())
    assert result["over"] is False
    assert result["seats"][1] == {"seat": 1, "captured": ["7H", "3H"], "points": 10}


def test_full_record_result_shape() -> None:
    record = random_record(players=2, seed=8, rules=None)
    result = replay(record)
    assert result["game"] == "chinese-ten" and result["over"] is True
    assert [set(s) for s in result["seats"]] == [{"seat", "captured", "points", "margin"}] * 2
    assert sum(s["points"] for s in result["seats"]) == 210
    assert [s["margin"] for s in result["seats"]] == [s["points"] - 105 for s in result["seats"]]


def test_deck_form_deals_from_the_dealers_left() -> None:
    record = random_record(players=3, seed=2, rules=None)
    deal = record.pop("deal")
    deck: list[str] = [""] * 52
    for i in range(24):
        seat = (record["dealer"] + 1 + i) % 3
        deck[i] = deal["hands"][seat][i // 3]
    deck[24:28] = deal["layout"]
    deck[28:] = deal["stock"]
    record["deck"] = deck
    assert replay(record)["over"] is True


def test_take_may_be_left_out_when_at_most_one_capture_is_possible() -> None:
    record = random_record(players=3, seed=5, rules=None)
    for move in record["moves"]:
        move.pop("take", None)
    try:
        result = replay(record)
    except IllegalMoveError as exc:  # only where the choice was real
        assert "say which one it takes" in exc.reason
    else:
        assert result["over"]


def test_hidden_hands_and_stock_replay_as_a_referee_would() -> None:
    record = random_record(players=4, seed=3, rules=None)
    full = replay(record)
    record["deal"]["hands"] = None
    record["deal"]["stock"] = None
    assert replay(record)["seats"] == full["seats"]


def test_special_capture_take_is_a_list() -> None:
    record = small_record()
    deal = record["deal"]
    # put three jacks on the layout, the fourth in seat 1's hand
    old_layout = deal["layout"]
    jacks = ["JC", "JD", "JH"]
    for cards in deal["hands"] + [deal["stock"]]:
        for i, c in enumerate(cards):
            if c in jacks:
                cards[i] = old_layout[jacks.index(c)]
    deal["layout"] = jacks + ["QS"]
    hand1 = deal["hands"][1]
    if "JS" not in hand1:
        holder = next(h for h in deal["hands"] + [deal["stock"]] if "JS" in h)
        holder[holder.index("JS")], hand1[0] = hand1[0], "JS"
    record["moves"] = [{"seat": 1, "play": "JS", "take": ["JH", "JC", "JD"]}]
    result = replay(record)
    assert sorted(result["seats"][1]["captured"]) == ["JC", "JD", "JH", "JS"]


@pytest.mark.parametrize(
    "change, where, reason",
    [
        (lambda r: r.pop("game"), "game", "missing"),
        (lambda r: r.update(game="chess"), "game", 'Chinese Ten replayer, not "chess"'),
        (lambda r: r.update(rules="taiwan"), "rules", "unknown rule set"),
        (lambda r: r.update(options={"capture_compulsory": "yes"}), "options.capture_compulsory", "true or false"),
        (lambda r: r.update(options={"bogus": 1}), "options.bogus", "unknown option"),
        (lambda r: r.update(players=5), "players", "not 5"),
        (lambda r: r.update(players="3"), "players", "expected int"),
        (lambda r: r.update(dealer=4), "dealer", "seat 0 to 1"),
        (lambda r: r.pop("deal"), "record", "exactly one of 'deal' and 'deck'"),
        (lambda r: r["deal"]["layout"].pop(), "deal.layout", "has 4 cards, got 3"),
        (lambda r: r["deal"]["hands"][1].pop(), "deal.hands[1]", "holds 12 cards, got 11"),
        (lambda r: r["deal"]["hands"][0].__setitem__(3, "ZZ"), "deal.hands[0][3]", "not a card"),
        (lambda r: r["deal"]["hands"][0].__setitem__(3, 7), "deal.hands[0][3]", "expected a card"),
        (
            lambda r: r["deal"]["stock"].__setitem__(5, "3C"),
            "deal.stock[5]",
            "3C appears twice (also at deal.layout[0])",
        ),
        (lambda r: r["deal"].update(stock=["AS"]), "deal.stock", "holds 24 cards, got 1"),
        (lambda r: r.update(moves={"seat": 1}), "moves", "expected a list of moves"),
        (lambda r: r["moves"].append("7H"), "moves[2]", "a move is an object"),
        (lambda r: r["moves"].append({"seat": 0}), "moves[2]", "exactly one of 'play' and 'flip'"),
        (lambda r: r["moves"].append({"play": "2C"}), "moves[2].seat", "missing"),
        (lambda r: r["moves"].append({"seat": 0, "play": "2X"}), "moves[2].play", "not a card"),
        (lambda r: r["moves"].append({"seat": 0, "play": "2C", "tkae": "8C"}), "moves[2].tkae", "unknown key"),
        (lambda r: r["moves"][0].update(take=[1]), "moves[0].take[0]", "expected a card"),
    ],
)
def test_malformed_records_say_what_and_where(
    change: Callable[[dict[str, Any]], object], where: str, reason: str
) -> None:
    record = small_record()
    change(record)
    with pytest.raises(RecordError) as info:
        replay(record)
    assert info.value.where == where
    assert reason in info.value.reason


@pytest.mark.parametrize(
    "moves, index, reason",
    [
        (
            [{"seat": 1, "play": "7H", "take": []}],
            0,
            "seat 1 played 7H while 3C lay on the layout: capture is compulsory",
        ),
        ([{"seat": 0, "play": "2C"}], 0, "seat 0 played 2C out of turn: it is seat 1's turn to play"),
        ([{"seat": 1, "play": "7H"}], 0, "seat 1 played 7H with 3C and 3H on the layout: say which one it takes"),
        (
            [{"seat": 1, "play": "7H", "take": "3H"}, {"seat": 1, "flip": "9S"}],
            1,
            "seat 1 flipped 9S, but the top stock card is 5D",
        ),
        (
            [{"seat": 1, "play": "7H", "take": "3H"}, {"seat": 1, "play": "KD"}],
            1,
            "seat 1 played KD but seat 1 must flip the top stock card first",
        ),
        ([{"seat": 1, "play": "AH"}], 0, "seat 1 played AH but does not hold it"),
    ],
)
def test_illegal_moves_give_the_index_and_a_reason(moves: list[dict[str, Any]], index: int, reason: str) -> None:
    record = small_record()
    record["moves"] = moves
    with pytest.raises(IllegalMoveError) as info:
        replay(record)
    assert info.value.index == index
    assert info.value.reason.startswith(reason)


def test_match_record_errors_name_the_deal() -> None:
    record = random_match_record(players=3, seed=1, rules="pagat", deals=2)
    bad = copy.deepcopy(record)
    bad["deals"][1]["dealer"] = 0
    with pytest.raises(RecordError, match=r"deals\[1\].dealer: expected seat 1 \(the deal passes left\), got 0"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad["deals"][1]["moves"][0]["seat"] = 0
    with pytest.raises(IllegalMoveError) as info:
        replay(bad)
    assert info.value.index == 0 and info.value.reason.startswith("deal 1: seat 0 played")
    bad = copy.deepcopy(record)
    del bad["deals"][0]["moves"][-1]
    with pytest.raises(RecordError, match=r"deals\[0\].moves: deal 0 is not finished"):
        replay(bad)


# -- the command line ---------------------------------------------------------------------------


def write(tmp_path: Path, record: object, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record) if not isinstance(record, str) else record, encoding="utf-8")
    return str(path)


def test_cli_replay_exit_0_prints_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, random_record(players=3, seed=4, rules="g4a"))
    assert cli.main(["replay", path]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["over"] is True and result["rules"] == "g4a"
    assert sum(s["points"] for s in result["seats"]) == 240


def test_cli_replay_illegal_move_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = small_record()
    record["moves"] = [{"seat": 1, "play": "7H", "take": []}]
    assert cli.main(["replay", write(tmp_path, record)]) == 1
    err = capsys.readouterr().err
    assert "illegal move 0: seat 1 played 7H while 3C lay on the layout: capture is compulsory" in err
    assert "Traceback" not in err


def test_cli_replay_malformed_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = small_record()
    record["deal"]["stock"][5] = "3C"
    assert cli.main(["replay", write(tmp_path, record)]) == 2
    assert "deal.stock[5]: 3C appears twice" in capsys.readouterr().err
    assert cli.main(["replay", write(tmp_path, "{not json")]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def test_cli_random_writes_a_record_that_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bot.json"
    assert cli.main(["replay", "--random", "chinese-ten", "--players", "4", "--seed", "9", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["players"] == 4 and len(record["moves"]) == 48
    assert cli.main(["replay", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["over"] is True
    assert cli.main(["replay", "--random", "chinese-ten", "--players", "4", "--rules", "g4a"]) == 2
    assert "g4a rules are for 3 players, not 4" in capsys.readouterr().err


def test_cli_subprocess_no_traceback(tmp_path: Path) -> None:
    record = small_record()
    record["moves"] = [{"seat": 1, "play": "7H", "take": "4D"}]
    path = write(tmp_path, record)
    proc = subprocess.run([sys.executable, "-m", "table", "replay", path], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "illegal move 0: seat 1 played 7H to take 4D" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_redeal_records_single_deal_and_in_a_match() -> None:
    record = small_record()
    record["options"] = {"initial_triple": "redeal"}
    deal = record["deal"]
    kings = ["KC", "KH", "KS"]
    for cards in deal["hands"] + [deal["stock"]]:
        for i, c in enumerate(cards):
            if c in kings:
                cards[i] = deal["layout"][kings.index(c)]
    deal["layout"][:3] = kings
    record["moves"] = []
    result = replay(record)
    assert result["over"] is False and "same dealer gathers the cards and deals again" in result["redeal"]
    record["moves"] = [{"seat": 1, "play": "7H"}]
    with pytest.raises(IllegalMoveError, match="under the redeal rule"):
        replay(record)
    # in a match the same dealer deals again
    game = random_record(players=2, seed=1, rules=None)
    match = {
        "game": "chinese-ten",
        "options": {"initial_triple": "redeal"},
        "players": 2,
        "dealer": 0,
        "deals": [{"deal": deal, "moves": []}, {"dealer": 0, "deal": game["deal"], "moves": game["moves"]}],
    }
    out = replay(match)
    assert out["over"] is True and [d["dealer"] for d in out["deals"]] == [0, 0]
    assert "redeal" in out["deals"][0]


def test_referee_record_a_card_seen_twice_is_an_illegal_move() -> None:
    record = small_record()
    record["deal"]["hands"] = None
    record["deal"]["stock"] = None
    record["moves"] += [{"seat": 0, "play": "7H"}]
    with pytest.raises(IllegalMoveError) as info:
        replay(record)
    assert info.value.index == 2
    assert info.value.reason == "seat 0 played 7H, but 7H is already among seat 1's captures"


def _mutate(value: Any, rng: Any) -> Any:
    """One random change somewhere inside a JSON value."""
    junk = [None, True, 0, -1, 99, "", "ZZ", "7H", "AS", [], {}, ["3C"], {"seat": 0}, 1.5]
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        if rng.random() < 0.15:
            del value[key]
        else:
            value[key] = _mutate(value[key], rng)
        return value
    if isinstance(value, list) and value and rng.random() < 0.8:
        i = rng.randrange(len(value))
        roll = rng.random()
        if roll < 0.15:
            del value[i]
        elif roll < 0.3:
            value.insert(i, copy.deepcopy(value[rng.randrange(len(value))]))
        else:
            value[i] = _mutate(value[i], rng)
        return value
    return rng.choice(junk)


def test_fuzzed_records_give_only_record_or_illegal_move_errors() -> None:
    """Never anything but a RecordError (exit 2) or an IllegalMoveError (exit 1): no traceback."""
    import random

    rng = random.Random(2024)
    bases = [random_record(players=3, seed=1, rules=None), random_match_record(players=2, seed=1, rules=None, deals=2)]
    outcomes = {"ok": 0, "record": 0, "illegal": 0}
    for i in range(600):
        record = copy.deepcopy(bases[i % 2])
        for _ in range(rng.randint(1, 3)):
            record = _mutate(record, rng)
        try:
            if not isinstance(record, dict):
                continue
            replay(record)
            outcomes["ok"] += 1
        except RecordError:
            outcomes["record"] += 1
        except IllegalMoveError as exc:
            assert exc.index is not None
            outcomes["illegal"] += 1
    assert outcomes["record"] > 100 and outcomes["illegal"] > 0
