"""Random playouts as oracles: every card in exactly one trick or the widow, 120 points distributed,
chips conserved, termination; and hidden-hands revoke detection against the known truth."""

from __future__ import annotations

import random

import pytest

from table.cards import Card, Suit, shuffled
from table.frog.bots import Bot, HeuristicBot, RandomBot
from table.frog.deal import deal_cards, deal_plan
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK, breach, legal_plays
from table.frog.rules import RULE_SETS, Contract, rule_set
from table.frog.state import FrogDeal, Phase

MAX_DECISIONS = 3 + 2 + 1 + 1 + 33  # bids (with a raise), trump, discard, 33 plays


def drive(deal: FrogDeal, bots: dict[int, Bot]) -> int:
    """Like play_deal, but counting decisions so a loop would fail the test instead of hanging."""
    steps = 0
    while (seat := deal.to_act) is not None:
        steps += 1
        assert steps <= MAX_DECISIONS, "deal does not terminate"
        bot = bots[seat]
        if deal.phase is Phase.AUCTION:
            deal.bid(seat, bot.choose_bid(deal, seat))
        elif deal.phase is Phase.TRUMP:
            deal.name_trump(seat, bot.choose_trump(deal, seat))
        elif deal.phase is Phase.DISCARD:
            deal.discard(seat, bot.choose_discard(deal, seat))
        else:
            legal = deal.legal_plays(seat)
            card = bot.choose_play(deal, seat)
            assert legal is not None and card in legal
            deal.play(seat, card)
    return steps


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_random_matches_conserve_cards_points_and_chips(name: str) -> None:
    rules = rule_set(name).with_options(bust_ends_match=False)
    rng = random.Random(name)
    for players in range(rules.min_players, rules.max_players + 1):
        match = FrogMatch(rules, players, first_dealer=rng.randrange(players))
        for k in range(25):
            deck = shuffled(FROG_PACK, rng.randrange(10**9))
            hands, widow = deal_cards(match.plan(), deck)
            deal = match.new_deal(hands=hands, widow=widow)
            kind = RandomBot if k % 2 else HeuristicBot
            drive(deal, {s: kind(rng.randrange(10**6)) for s in deal.active})
            assert deal.over
            if deal.phase is Phase.OVER:
                seen = [c for t in deal.tricks for c in t.cards]
                rest = list(deal.discards if deal.contract is Contract.FROG and deal.discards else widow)
                assert len(deal.tricks) == 11 and all(len(t.plays) == 3 for t in deal.tricks)
                assert sorted(seen + rest) == sorted(FROG_PACK)  # every card exactly once
                pts = deal.points()
                assert sum(pts.values()) == 120
                assert all(pts[s] == 0 for s in deal.sitting_out)
                # trick winners lead the next trick
                for before, after in zip(deal.tricks, deal.tricks[1:], strict=False):
                    assert after.leader == before.winner
            match.finish(deal)
            assert match.ledger.total == players * rules.starting_chips
        assert len(match.deals) == 25


def test_hidden_replay_of_legal_games_finds_no_revoke_and_same_points() -> None:
    rules = rule_set("foster-1909")
    for seed in range(40):
        hands, widow = deal_cards(deal_plan(rules, 3, 0), shuffled(FROG_PACK, seed))
        known = FrogDeal(rules, players=3, dealer=0, hands=hands, widow=widow)
        drive(known, {s: RandomBot(seed * 3 + s) for s in known.active})
        hidden = FrogDeal(rules, players=3, dealer=0)
        for move in known.history:
            if move.kind == "bid":
                hidden.bid(move.seat, move.value)  # type: ignore[arg-type]
            elif move.kind == "trump":
                hidden.name_trump(move.seat, move.value)  # type: ignore[arg-type]
            elif move.kind == "discard":
                hidden.discard(move.seat, None)
            else:
                hidden.play(move.seat, move.value)  # type: ignore[arg-type]
        assert hidden.revokes == [] and hidden.points() == known.points()
        assert hidden.settlement == known.settlement


def test_hidden_mode_detects_every_revoking_seat_and_no_false_revoke() -> None:
    """Players who ignore the rules: each detected revoke is a real breach, the first breach of every
    seat is detected (all its cards are played by the end), and the earliest breach of the deal is."""
    rules = rule_set("modern")
    found_any = 0
    for seed in range(150):
        rng = random.Random(seed)
        hands, widow = deal_cards(deal_plan(rules, 3, 0), shuffled(FROG_PACK, seed))
        deal = FrogDeal(rules, players=3, dealer=0)
        deal.bid(1, rng.choice([Contract.CHICO, Contract.GRAND]))
        while deal.phase is Phase.AUCTION:
            deal.bid(deal.auction.to_speak or 0, None)
        if deal.phase is Phase.TRUMP:
            deal.name_trump(1, rng.choice([s for s in Suit if s.char != "H"]))
        assert deal.trump is not None
        truth: dict[int, list[Card]] = {s: list(h) for s, h in hands.items()}
        breaches: list[tuple[int, int]] = []  # (trick, seat)
        first_move: int | None = None
        while deal.phase is Phase.PLAY:
            seat = deal.to_act
            assert seat is not None
            hand = truth[seat]
            card = rng.choice(hand) if rng.random() < 0.3 else rng.choice(legal_plays(hand, deal.led_suit, deal.trump))
            if breach(hand, card, deal.led_suit, deal.trump) is not None:
                breaches.append((len(deal.tricks) + 1, seat))
                if first_move is None:
                    first_move = len(deal.history)
            hand.remove(card)
            deal.play(seat, card)
        detected = [(r.trick, r.seat) for r in deal.revokes]
        assert set(detected) <= set(breaches)
        for seat in {s for _, s in breaches}:
            first = min(t for t, s in breaches if s == seat)
            assert (first, seat) in detected
        if breaches:
            found_any += 1
            earliest = min(deal.revokes, key=lambda r: r.move)
            assert earliest.move == first_move and deal.history[earliest.move].value is earliest.card
            assert deal.settlement is not None and deal.settlement.revoker == earliest.seat
        else:
            assert detected == []
    assert found_any > 50
