"""Random playouts as an oracle: every seed, player count and rule set must conserve every card,
share out the pack's points, end with an empty layout, and replay from its record."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

from table.cards import standard_pack
from table.chinese_ten import RULE_SETS, ChineseTenState, Match, Phase, pack_total, rules_by_name
from table.chinese_ten.bots import GreedyBot, RandomBot, make_bots, play_out
from table.chinese_ten.record import random_match_record, random_record, replay, state_record
from table.chinese_ten.state import partner_rank

if TYPE_CHECKING:
    from tests.table.chinese_ten.conftest import Helpers

CASES = [(name, n) for name, rs in RULE_SETS.items() for n in rs.players]
SEEDS = range(120)


def check_finished(state: ChineseTenState) -> None:
    outcome = state.outcome
    assert outcome is not None
    captured = [c for s in outcome.seats for c in s.captured]
    assert sorted(captured) == standard_pack()  # each card ends in exactly one place
    assert sum(outcome.points) == pack_total(state.rules, state.players)
    assert state.layout == () and outcome.leftover == ()
    assert state.stock_left == 0 and all(state.hand_count(i) == 0 for i in range(state.players))
    assert len(state.history) == 48
    assert sum(outcome.margins) == 0


@pytest.mark.parametrize("name, players", CASES)
def test_bot_playouts_conserve_cards_and_points(name: str, players: int) -> None:
    rs = rules_by_name(name)
    redeals = 0
    for seed in SEEDS:
        record = random_record(players=players, seed=seed, rules=name)
        state = ChineseTenState(
            rs,
            players=players,
            dealer=record["dealer"],
            layout=record["deal"]["layout"],
            hands=record["deal"]["hands"],
            stock=record["deal"]["stock"],
        )
        bots = make_bots(["greedy", "random"] * 2, seed)[:players]
        assert play_out(state, bots) is not None
        check_finished(state)
        # replaying the record reproduces the result
        result = replay(record)
        assert result["over"] is True
        assert [s["points"] for s in result["seats"]] == list(state.outcome.points)  # type: ignore[union-attr]
        redeals += state.redeal_needed
    assert redeals == 0


@pytest.mark.parametrize("name, players", CASES)
def test_random_legal_moves_in_referee_mode_also_end_cleanly(name: str, players: int) -> None:
    """Hidden hands and an unseen stock: the table supplies each card, chosen at random here."""
    import random

    rs = rules_by_name(name)
    for seed in range(15):
        rng = random.Random(seed)
        deck = standard_pack()
        rng.shuffle(deck)
        state = ChineseTenState(rs, players=players, layout=deck[:4])
        while state.phase in (Phase.PLAY, Phase.FLIP):
            moves = list(state.legal_moves)
            move = state.apply(rng.choice(moves))
            if not move.take:
                # a card joins the layout only when nothing there pairs with it (rules.md capture facts)
                partner = partner_rank(move.card.rank)
                assert not [c for c in state.layout[:-1] if c.rank is partner]
        if state.redeal_needed:
            continue
        check_finished(state)


@pytest.mark.parametrize(
    "options",
    [
        {"dealer_plays_first": True},
        {"initial_triple": "redeal"},
        {"capture_compulsory": False},
        {"card_points": {"AH": 10, "AD": 10}},
    ],
)
def test_playouts_under_each_option(options: dict[str, object]) -> None:
    rs = rules_by_name("pagat", **options)
    for seed, players in itertools.product(range(40), (2, 3, 4)):
        state = ChineseTenState.from_deck(rs, _deck(seed), players=players, dealer=seed % players)
        outcome = play_out(state, [RandomBot(seed), GreedyBot(seed), RandomBot(seed + 1), GreedyBot(seed + 2)])
        if outcome is None:
            assert state.redeal_needed and options == {"initial_triple": "redeal"}
            continue
        captured = sorted(c for s in outcome.seats for c in s.captured)
        assert captured == standard_pack()
        assert sum(outcome.points) == pack_total(rs, players)
        record = state_record(state)
        assert [s["points"] for s in replay(record)["seats"]] == list(outcome.points)


def _deck(seed: int) -> list:  # type: ignore[type-arg]
    from table.cards import shuffled

    return shuffled(standard_pack(), seed)


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_match_records_replay_to_the_same_totals(name: str) -> None:
    for seed in range(3):
        record = random_match_record(players=None, seed=seed, rules=name)
        result = replay(record)
        assert result["over"] is True
        assert [d["dealer"] for d in result["deals"]] == [i % record["players"] for i in range(len(record["deals"]))]
        totals = [sum(d["seats"][i]["points"] for d in result["deals"]) for i in range(record["players"])]
        assert [s["points"] for s in result["seats"]] == totals
        if name == "g4a":
            assert result["match"]["over"] and max(result["match"]["totals"]) >= 1000
            winner = result["match"]["winner"]
            assert result["match"]["totals"][winner] == max(result["match"]["totals"])


def test_g4a_match_runs_to_1000_with_the_deal_passing_left() -> None:
    rs = rules_by_name("g4a")
    match = Match(rs, players=3, dealer=1)
    dealers = []
    seed = 0
    while not match.over:
        seed += 1
        state = match.start_deal_from_deck(_deck(seed))
        dealers.append(state.dealer)
        play_out(state, make_bots(["greedy"] * 3, seed))
        match.finish_deal(state)
        assert len(dealers) < 100
    assert dealers[:4] == [1, 2, 0, 1]
    assert max(match.totals) >= 1000 and match.winner == match.leaders[0]
    assert sum(match.points_totals) == 240 * len(match.outcomes)


def test_pagat_match_adds_up_margins_and_has_no_target() -> None:
    match = Match(rules_by_name("pagat"), players=4)
    for seed in range(3):
        state = match.start_deal_from_deck(_deck(seed))
        play_out(state, make_bots(["random"] * 4, seed))
        match.finish_deal(state)
    assert not match.over and match.winner is None
    assert sum(match.totals) == 0
    assert match.totals == tuple(sum(o.margins[i] for o in match.outcomes) for i in range(4))


def test_redeal_in_a_match_keeps_the_dealer(ct: Helpers) -> None:
    rs = rules_by_name("pagat", initial_triple="redeal")
    match = Match(rs, players=2, dealer=1)
    state = match.start_deal(layout=ct.cards("KC KD KH 2S"))
    assert state.redeal_needed
    assert match.finish_deal(state) is None
    assert match.dealer == 1 and match.redeals == 1


def test_match_refuses_an_unfinished_deal(ct: Helpers) -> None:
    match = Match(rules_by_name("pagat"), players=2)
    state = match.start_deal(layout=ct.cards("2C 3D 4H 6S"))
    with pytest.raises(ValueError, match="finish the current deal"):
        match.start_deal(layout=ct.cards("2C 3D 4H 6S"))
    with pytest.raises(ValueError, match="the deal is not over"):
        match.finish_deal(state)
