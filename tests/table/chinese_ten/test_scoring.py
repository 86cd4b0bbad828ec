"""Scoring clauses: pagat's table by player count, tie scores, G4A, Red Frog Black Frog, overrides."""

from __future__ import annotations

from fractions import Fraction

import pytest

from table.cards import ALL_CARDS, Card
from table.chinese_ten import card_points, pack_total, rules_by_name, settle
from table.errors import ConfigError

C = Card.parse


def points_of(texts: str, rules: str = "pagat", players: int = 2, **options: object) -> int:
    table = card_points(rules_by_name(rules, **options), players)
    return sum(table[C(t).index] for t in texts.split())


def test_pagat_red_2_to_8_face_value_9_to_king_10_ace_20() -> None:
    assert [points_of(f"{r}H") for r in "23456789TJQKA"] == [2, 3, 4, 5, 6, 7, 8, 10, 10, 10, 10, 10, 20]
    assert [points_of(f"{r}D") for r in "23456789TJQKA"] == [2, 3, 4, 5, 6, 7, 8, 10, 10, 10, 10, 10, 20]


def test_pagat_black_cards_other_than_aces_are_worthless() -> None:
    for players in (2, 3, 4):
        assert all(points_of(f"{r}{s}", players=players) == 0 for r in "23456789TJQK" for s in "CS")


@pytest.mark.parametrize("players, spades, clubs", [(2, 0, 0), (3, 30, 0), (4, 30, 40)])
def test_pagat_black_aces_by_player_count(players: int, spades: int, clubs: int) -> None:
    assert points_of("AS", players=players) == spades
    assert points_of("AC", players=players) == clubs


@pytest.mark.parametrize("players, total, tie", [(2, 210, 105), (3, 240, 80), (4, 280, 70)])
def test_pagat_tie_scores_are_the_pack_total_shared(players: int, total: int, tie: int) -> None:
    rs = rules_by_name("pagat")
    assert pack_total(rs, players) == total
    assert rs.tie_score(players) == tie
    assert total == tie * players


def test_seed_000_worked_example_90_against_120() -> None:
    """Seed 000's scoring example: a two-player game, 90 points lose by 15 and the other's 120 win by 15.

    The seed lists K, Q, 9, 6, 7, 3, 4, 5, 5 and the Ace of hearts and adds them to 90, but those ten
    cards make 80 (its own sum 10+10+10+6+7+3+4+5+5+20 is 80): the 90 needs one more 10-point red card,
    here the jack of diamonds. With it the player has 90 and the opponent the other 120.
    """
    listed = "KH QD 9H 6D 7H 3D 4H 5H 5D AH"
    assert points_of(listed) == 80
    mine = listed + " JD"
    assert points_of(mine) == 90
    red = [c for c in ALL_CARDS if c.is_red]
    theirs = " ".join(str(c) for c in red if str(c) not in mine.split())
    assert points_of(theirs) == 120
    assert settle(rules_by_name("pagat"), [90, 120]) == (-15, 15)


def test_g4a_points_red_ace_20_ace_of_spades_30_for_any_player_count() -> None:
    assert points_of("AH AD AS", "g4a", 3) == 70
    assert points_of("2H 8D 9H KD", "g4a", 3) == 2 + 8 + 10 + 10
    assert points_of("AC KS", "g4a", 3) == 0
    assert pack_total(rules_by_name("g4a"), 3) == 240


def test_red_frog_black_frog_points() -> None:
    assert points_of("AH KD 5H", "red-frog-black-frog", 3) == 0  # red cards are worthless
    assert [points_of(f"{r}S", "red-frog-black-frog", 3) for r in "23456789TJQK"] == [
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        10,
        10,
        10,
    ]
    assert points_of("AC", "red-frog-black-frog", 4) == 0
    assert points_of("AS", "red-frog-black-frog", 2) == 50
    assert all(pack_total(rules_by_name("red-frog-black-frog"), n) == 218 for n in (2, 3, 4))


def test_red_frog_black_frog_settles_against_the_table_mean() -> None:
    rs = rules_by_name("red-frog-black-frog")
    margins = settle(rs, [100, 68, 50])
    assert margins == (Fraction(100 * 3 - 218, 3), Fraction(68 * 3 - 218, 3), Fraction(50 * 3 - 218, 3))
    assert sum(margins) == 0
    assert settle(rs, [109, 109]) == (0, 0)


def test_option_card_points_override_barraco_red_aces_10() -> None:
    assert points_of("AH AD", "pagat", 3, card_points={"AH": 10, "AD": 10}) == 20
    assert pack_total(rules_by_name("pagat", card_points={"AH": 10, "AD": 10}), 3) == 220


def test_option_tie_scores_override_taiwan_tie_60() -> None:
    rs = rules_by_name("pagat", players=[4], tie_scores={"4": 60}, card_points={"AC": 0})
    assert settle(rs, [60, 70, 50, 60]) == (0, 10, -10, 0)


def test_option_point_table_switches_tables() -> None:
    assert points_of("AS", "pagat", 2, point_table="red-frog-black-frog") == 50


@pytest.mark.parametrize(
    "options, key",
    [
        ({"point_table": "nope"}, "point_table"),
        ({"settlement": "x"}, "settlement"),
        ({"initial_triple": "maybe"}, "initial_triple"),
        ({"players": [5]}, "players"),
        ({"capture_compulsory": "yes"}, "capture_compulsory"),
        ({"card_points": {"ZZ": 3}}, "card_points"),
        ({"tie_scores": {"2": 100}, "players": [2, 3]}, "tie_scores"),
        ({"match_target": -5}, "match_target"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_options_are_config_errors_naming_the_option(options: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        rules_by_name("pagat", **options)
    assert info.value.key == key


def test_unknown_rule_set_name() -> None:
    with pytest.raises(ConfigError, match="unknown Chinese Ten rule set 'taiwan'"):
        rules_by_name("taiwan")


def test_rule_sets_are_frozen_and_report_their_differences() -> None:
    rs = rules_by_name("g4a", capture_compulsory=False)
    with pytest.raises(AttributeError):
        rs.capture_compulsory = True  # type: ignore[misc]
    assert rs.options() == {"capture_compulsory": False}
    assert rules_by_name("g4a").match_target == 1000
    assert rules_by_name("pagat").options() == {}
