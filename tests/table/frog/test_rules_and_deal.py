"""Rule sets and the deal: who plays, and the packet order as data (seed 002, rules.md Frog part)."""

from __future__ import annotations

from collections import Counter

import pytest

from table.cards import Card, frog_pack, shuffled
from table.errors import ConfigError
from table.frog.deal import WIDOW, DealStep, active_seats, deal_cards, deal_plan, sitting_out
from table.frog.play import POINTS, POWER, TOTAL_POINTS, card_points
from table.frog.rules import RULE_SETS, Contract, DealStyle, NonActivePayment, RuleSet, rule_set


def test_pack_is_36_cards_with_120_points() -> None:
    """Cards: 2-5 removed, A 11, 10 10, K 4, Q 3, J 2 (120 in all)."""
    pack = frog_pack()
    assert len(pack) == 36 and len(set(pack)) == 36
    assert sum(card_points(c) for c in pack) == TOTAL_POINTS == 120
    assert [card_points(Card.parse(t)) for t in "AS TS KS QS JS 9S 8S 7S 6S".split()] == [11, 10, 4, 3, 2, 0, 0, 0, 0]
    assert POINTS[Card.parse("5S").index] == 0


def test_rank_order_is_a_10_k_q_j_9_8_7_6() -> None:
    order = [Card.parse(t) for t in "AH TH KH QH JH 9H 8H 7H 6H".split()]
    powers = [POWER[c.index] for c in order]
    assert powers == sorted(powers, reverse=True) and len(set(powers)) == 9


def test_every_named_rule_set_exists() -> None:
    assert set(RULE_SETS) == {"foster-1909", "modern", "solo-slough", "straight-solo", "coeur-d-alene"}
    assert rule_set() is RULE_SETS["foster-1909"]
    with pytest.raises(ConfigError, match="unknown Frog rule set"):
        rule_set("skat")


@pytest.mark.parametrize(
    "name, style, exposed, rates, players",
    [
        ("foster-1909", DealStyle.PACKETS_3_3_4_4, True, (1, 2, 4), 5),
        ("modern", DealStyle.PACKETS_4_3_3_4, False, (1, 2, 4), 5),
        ("solo-slough", DealStyle.SINGLE_1_4_8, False, (1, 2, 3), 7),
        ("straight-solo", DealStyle.SINGLE_1_4_8, False, (0, 1, 2), 7),
    ],
)
def test_variant_tables(name: str, style: DealStyle, exposed: bool, rates: tuple[int, ...], players: int) -> None:
    rs = rule_set(name)
    assert (rs.deal_style, rs.expose_widow, rs.rates, rs.max_players) == (style, exposed, rates, players)


def test_solo_slough_chips_and_names() -> None:
    """Solo/Slough: 11 ten-chips and 10 one-chips each, first unable to pay loses; Simple/Heart Solo."""
    rs = rule_set("solo-slough")
    assert rs.starting_chips == 11 * 10 + 10 and rs.bust_ends_match
    assert rs.name_of(Contract.CHICO) == "Simple Solo" and rs.name_of(Contract.GRAND) == "Heart Solo"


def test_straight_solo_has_no_frog_and_coeur_d_alene_pays_fixed() -> None:
    assert Contract.FROG not in rule_set("straight-solo").contracts
    assert rule_set("coeur-d-alene").fixed_payments == (25, 50, 75)


def test_with_options_reads_strings_and_rejects_nonsense() -> None:
    rs = rule_set("solo-slough").with_options(non_active="both", penalty_frog=True)
    assert rs.non_active is NonActivePayment.PAY_AND_RECEIVE and rs.penalty_frog
    with pytest.raises(ConfigError, match="non_active"):
        rule_set().with_options(non_active="sometimes")
    with pytest.raises(ConfigError, match="not a Frog rule option"):
        rule_set().with_options(jokers=True)
    with pytest.raises(ConfigError, match="true or false"):
        rule_set().with_options(penalty_frog="yes")
    with pytest.raises(ConfigError):
        RuleSet("bad", min_players=2)


@pytest.mark.parametrize(
    "players, dealer, active, out",
    [
        (3, 0, (1, 2, 0), ()),
        (3, 2, (0, 1, 2), ()),
        (4, 0, (1, 2, 3), (0,)),  # four: the dealer sits out
        (4, 3, (0, 1, 2), (3,)),
        (5, 0, (1, 2, 4), (3, 0)),  # five: two on the dealer's left and the one on the right (Foster)
        (5, 3, (4, 0, 2), (1, 3)),
    ],
)
def test_active_seats_frog(players: int, dealer: int, active: tuple[int, ...], out: tuple[int, ...]) -> None:
    rs = rule_set("foster-1909")
    assert active_seats(rs, players, dealer) == active
    assert sitting_out(rs, players, dealer) == out


@pytest.mark.parametrize("players, dealer, active", [(6, 0, (1, 2, 3)), (7, 5, (6, 0, 1)), (5, 0, (1, 2, 4))])
def test_active_seats_solo_slough(players: int, dealer: int, active: tuple[int, ...]) -> None:
    """Solo/Slough up to seven: the three after the dealer play (five follows Foster by default)."""
    assert active_seats(rule_set("solo-slough"), players, dealer) == active


def test_player_count_limits() -> None:
    with pytest.raises(ConfigError, match="3 to 5 players"):
        deal_plan(rule_set("modern"), 6, 0)
    with pytest.raises(ConfigError):
        deal_plan(rule_set("solo-slough"), 2, 0)
    with pytest.raises(ConfigError, match="dealer"):
        deal_plan(rule_set("modern"), 3, 3)


def test_plan_foster_3_3_4_4() -> None:
    """Foster 1909: 3 to each from eldest, 3 to the widow, then two rounds of 4."""
    plan = deal_plan(rule_set("foster-1909"), 3, 0)
    assert [s.as_json() for s in plan] == [
        ["seat:1", 3],
        ["seat:2", 3],
        ["seat:0", 3],
        ["widow", 3],
        ["seat:1", 4],
        ["seat:2", 4],
        ["seat:0", 4],
        ["seat:1", 4],
        ["seat:2", 4],
        ["seat:0", 4],
    ]


def test_plan_modern_4_3_3_4_four_players_skips_dealer() -> None:
    plan = deal_plan(rule_set("modern"), 4, 2)
    assert [s.as_json() for s in plan] == [
        ["seat:3", 4],
        ["seat:0", 4],
        ["seat:1", 4],
        ["widow", 3],
        ["seat:3", 3],
        ["seat:0", 3],
        ["seat:1", 3],
        ["seat:3", 4],
        ["seat:0", 4],
        ["seat:1", 4],
    ]
    assert all(step.seat != 2 for step in plan)


def test_plan_single_cards_1st_4th_8th_to_slough() -> None:
    plan = deal_plan(rule_set("solo-slough"), 6, 0)
    assert len(plan) == 36 and all(step.count == 1 for step in plan)
    assert [i + 1 for i, s in enumerate(plan) if s.target == WIDOW] == [1, 4, 8]
    assert [s.target for s in plan[:9]] == [
        "widow",
        "seat:1",
        "seat:2",
        "widow",
        "seat:3",
        "seat:1",
        "seat:2",
        "widow",
        "seat:3",
    ]


@pytest.mark.parametrize("name", sorted(RULE_SETS))
@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_plan_gives_11_each_and_3_to_widow(name: str, players: int) -> None:
    rs = rule_set(name)
    plan = deal_plan(rs, players, 1)
    counts = Counter[str]()
    for step in plan:
        counts[step.target] += step.count
    assert counts == {**{f"seat:{s}": 11 for s in active_seats(rs, players, 1)}, "widow": 3}
    hands, widow = deal_cards(plan, shuffled(frog_pack(), 5))
    assert sorted([*widow, *(c for h in hands.values() for c in h)]) == sorted(frog_pack())


def test_deal_step_seat_and_bad_pack() -> None:
    assert DealStep("seat:4", 3).seat == 4 and DealStep(WIDOW, 3).seat is None
    with pytest.raises(ConfigError, match="pack has 35"):
        deal_cards(deal_plan(rule_set(), 3, 0), frog_pack()[:35])
