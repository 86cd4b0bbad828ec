"""Controller-facing API: cards as text, prompt, undo, copy, apply, exported records replay."""

from __future__ import annotations

import pytest

from table.cards import Card, Suit, shuffled
from table.errors import CardParseError, IllegalMoveError
from table.frog.bots import HeuristicBot, play_deal
from table.frog.deal import deal_cards
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK
from table.frog.record import match_record, replay
from table.frog.rules import Contract, rule_set
from table.frog.state import FrogDeal, Phase


def known_deal(seed: int = 3, rules: str = "foster-1909") -> FrogDeal:
    rs = rule_set(rules)
    from table.frog.deal import deal_plan

    hands, widow = deal_cards(deal_plan(rs, 3, 0), shuffled(FROG_PACK, seed))
    return FrogDeal(rs, players=3, dealer=0, hands=hands, widow=widow)


def test_prompts_follow_the_phases() -> None:
    deal = FrogDeal(rule_set(), players=3, dealer=0)
    assert deal.prompt() == "seat 1: bid Frog, Chico, Grand or pass"
    deal.bid(1, Contract.FROG)
    deal.bid(2, Contract.CHICO)
    assert deal.prompt() == "seat 1: raise to Grand or pass"
    deal.bid(1, None)
    deal.bid(0, None)
    assert deal.prompt().startswith("seat 2: name trumps")
    deal.name_trump(2, Suit.SPADES)
    assert deal.prompt() == "seat 1: lead to trick 1"
    deal.play(1, "AH")
    assert deal.prompt() == "seat 2: follow hearts; if void, trump (spades); else any card"


def test_cards_may_be_given_as_text() -> None:
    deal = FrogDeal(rule_set(), players=3, dealer=0)
    deal.bid(1, Contract.GRAND)
    assert deal.can_play(1, "TS") and not deal.can_play(1, "XX")
    deal.play(1, "10s")
    assert deal.current_trick == ((1, Card.parse("TS")),)
    with pytest.raises(CardParseError):
        deal.play(2, "1Z")


def test_undo_takes_back_the_last_move_and_copy_is_independent() -> None:
    deal = known_deal()
    seat = deal.to_act
    assert seat is not None
    deal.bid(seat, Contract.GRAND)
    legal = deal.legal_plays(seat) or []
    deal.play(seat, legal[0])
    twin = deal.copy()
    assert deal.undo().value is legal[0]
    assert (deal.to_act, deal.phase) == (seat, Phase.PLAY) and legal[0] in (deal.hand(seat) or ())
    assert twin.current_trick == ((seat, legal[0]),)
    deal.undo()
    assert deal.phase is Phase.AUCTION and deal.history == []
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        deal.undo()


@pytest.mark.parametrize("rules, players", [("foster-1909", 4), ("solo-slough", 6), ("modern", 3)])
def test_exported_session_replays_to_the_same_chips(rules: str, players: int) -> None:
    rs = rule_set(rules).with_options(penalty_frog=True, non_active="both", rates=[1, 3, 5])
    match = FrogMatch(rs, players, first_dealer=1)
    for k in range(6):
        hands, widow = deal_cards(match.plan(), shuffled(FROG_PACK, 100 + k))
        deal = match.new_deal(hands=hands, widow=widow)
        play_deal(deal, {s: HeuristicBot(k * 10 + s) for s in deal.active})
        match.finish(deal)
        if match.over:
            break
    record = match_record(match)
    assert record["options"]["rates"] == [1, 3, 5] and record["options"]["non_active"] == "both"
    result = replay(record)
    assert [s["chips"] for s in result["seats"]] == [match.net(s) for s in range(players)]
    assert result["over"] is True
