"""Settlement with worked examples for every variant (seed 002 Scoring and Variants; rules.md)."""

from __future__ import annotations

import pytest

from table.frog.rules import Contract, rule_set
from table.frog.settlement import Result, settle

F, C, G = Contract.FROG, Contract.CHICO, Contract.GRAND


def nets(
    rules: str,
    contract: Contract,
    points: int,
    players: int = 3,
    *,
    bidder: int = 1,
    active: tuple[int, ...] = (1, 2, 0),
    revoker: int | None = None,
    **options: object,
) -> list[int]:
    rs = rule_set(rules).with_options(**options) if options else rule_set(rules)
    s = settle(
        rs, contract=contract, bidder=bidder, points=points, active=active, table=range(players), revoker=revoker
    )
    out = [s.net(seat) for seat in range(players)]
    assert sum(out) == 0  # chips are conserved
    return out


def test_frog_made_with_80_takes_20_from_each_active_opponent() -> None:
    assert nets("foster-1909", F, 80) == [-20, 40, -20]


def test_sitting_out_players_do_not_pay_a_winning_bidder() -> None:
    """Four players, dealer 0 sits out: Frog made with 80 is paid by the two active opponents only."""
    assert nets("foster-1909", F, 80, 4, active=(1, 2, 3)) == [0, 40, -20, -20]


def test_lost_grand_with_50_pays_40_to_every_player_at_five() -> None:
    """A losing bidder pays every player at the table, sitting-out players included: 10 x 4 = 40."""
    assert nets("foster-1909", G, 50, 5, active=(1, 2, 4)) == [40, -160, 40, 40, 40]


def test_exactly_60_pays_nothing() -> None:
    rs = rule_set()
    s = settle(rs, contract=G, bidder=1, points=60, active=(1, 2, 0), table=range(3))
    assert s.result is Result.TIE and s.payments == ()


@pytest.mark.parametrize(
    "contract, points, each",
    [(F, 61, 1), (C, 70, 20), (G, 75, 60), (F, 59, -1), (C, 40, -40), (G, 0, -240), (G, 120, 240)],
)
def test_rates_x1_x2_x4(contract: Contract, points: int, each: int) -> None:
    out = nets("modern", contract, points)
    assert out[2] == out[0] == -each and out[1] == 2 * each


def test_solo_slough_rates_x1_x2_x3() -> None:
    """Solo/Slough: Frog x1, Simple Solo x2, Heart Solo x3."""
    assert nets("solo-slough", G, 70, 6, active=(1, 2, 3)) == [0, 60, -30, -30, 0, 0]
    assert nets("solo-slough", C, 70, 3)[1] == 40
    assert nets("solo-slough", F, 70, 3)[1] == 20


def test_solo_slough_losing_bidder_pays_sitting_out_players() -> None:
    assert nets("solo-slough", F, 50, 6, active=(1, 2, 3)) == [10, -50, 10, 10, 10, 10]


@pytest.mark.parametrize(
    "system, frog_payers, solo_payers",
    [
        ("receive", 2, 2),  # non-active players only receive
        ("both", 4, 4),  # they pay and receive
        ("solo-both", 2, 4),  # pay and receive for a Solo, only receive for a Frog
    ],
)
def test_three_non_active_payment_systems(system: str, frog_payers: int, solo_payers: int) -> None:
    frog = nets("solo-slough", F, 70, 5, active=(1, 2, 4), non_active=system)
    solo = nets("solo-slough", C, 70, 5, active=(1, 2, 4), non_active=system)
    assert frog[1] == 10 * frog_payers and solo[1] == 20 * solo_payers
    lost = nets("solo-slough", C, 50, 5, active=(1, 2, 4), non_active=system)
    assert lost[1] == -20 * 4  # all three systems: non-active players are paid by a loser


def test_penalty_frog_pays_heart_solo_rate_when_lost() -> None:
    assert nets("solo-slough", F, 50, 3, penalty_frog=True) == [30, -60, 30]
    assert nets("solo-slough", F, 70, 3, penalty_frog=True) == [-10, 20, -10]  # a made Frog is unchanged
    assert nets("foster-1909", F, 50, 3, penalty_frog=True) == [40, -80, 40]  # Grand rate x4 there


def test_straight_solo_x1_and_x2() -> None:
    assert nets("straight-solo", C, 70) == [-10, 20, -10]
    assert nets("straight-solo", G, 50) == [20, -40, 20]


def test_coeur_d_alene_fixed_25_50_75_won_or_lost() -> None:
    assert nets("coeur-d-alene", F, 61) == [-25, 50, -25]
    assert nets("coeur-d-alene", C, 119) == [-50, 100, -50]
    assert nets("coeur-d-alene", G, 10, 4, active=(1, 2, 3)) == [75, -225, 75, 75]
    assert nets("coeur-d-alene", G, 60) == [0, 0, 0]


def test_revoke_costs_the_game_by_default() -> None:
    """Default revoke penalty: the bidder revoking scores 0, an opponent revoking gives the bidder 120."""
    assert nets("foster-1909", F, 90, revoker=1) == [60, -120, 60]
    assert nets("foster-1909", F, 30, revoker=2) == [-60, 120, -60]
    assert nets("foster-1909", F, 90, revoker=2, revoke_penalty="none") == [-30, 60, -30]
