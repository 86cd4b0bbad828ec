"""Hand-worked examples of each phase of Garbage (seed 004) and each variation, on three players.

Seats 0, 1, 2 with seat 0 dealing: cards go to seat 1, seat 2, then the dealer, round by round.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from table.cards import Card, parse_cards
from table.errors import CardConflictError, IllegalMoveError
from table.garbage import AwaitCard, AwaitMove, GarbageGame, GarbageRules, Move
from table.garbage.core import KITTY, POT, Round
from table.garbage.count_up import play_count_up
from table.garbage.put_and_take import play_put_and_take, units
from table.ledger import Ledger

ORDER = (1, 2, 0)  # dealer 0: from the dealer's left round to the dealer


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def deal_order(hands: dict[int, str], order: Sequence[int] = ORDER) -> list[Card]:
    """The cards in the order the dealer deals them, one at a time round the table."""
    per_seat = {seat: cards(text) for seat, text in hands.items()}
    size = len(next(iter(per_seat.values())))
    return [per_seat[seat][n] for n in range(size) for seat in order if seat in per_seat]


def feed(game: GarbageGame, supplied: Sequence[Card], moves: Sequence[Move] = ()) -> None:
    """Supply the cards and play the moves in the order the game asks for them, until both run out."""
    card_iter, move_iter = iter(supplied), iter(moves)
    while not game.over:
        if isinstance(game.step, AwaitCard):
            card = next(card_iter, None)
            if card is None:
                return
            game.supply(card)
        else:
            move = next(move_iter, None)
            if move is None:
                return
            game.play(move)


def coins(game: GarbageGame) -> list[int]:
    return [game.balance(s) for s in range(game.players)]


HANDS = {1: "9C 9D 9H 9S 9C", 2: "5H 6H 7H 8H 4H", 0: "2C 3D 5S 7C JD"}


# -- poker --------------------------------------------------------------------------------------


def test_poker_antes_deal_one_at_a_time_and_best_hand_takes_the_pot() -> None:
    """Seed 004 phase 1: everyone antes 5, five cards each dealt face up one at a time, best hand wins."""
    game = GarbageGame(3)
    assert game.step == AwaitCard("poker", "deal", 1, 1)
    feed(game, deal_order(HANDS))
    poker = game.results[0].poker
    assert poker is not None
    assert poker.pot == 15 and poker.winners == [1]  # five nines beat the straight flush
    assert poker.described[1] == "five of a kind, 9"
    assert coins(game) == [95, 110, 95]
    assert game.phase == "bingo" and game.step == AwaitCard("bingo", "call", None, 1)


def test_poker_tie_shares_the_pot_and_odd_coin_goes_nearest_dealers_left_rules_md() -> None:
    """Seed: ties share; rules.md: the indivisible coin goes to the tied winner nearest the dealer's left."""
    game = GarbageGame(3)
    feed(game, deal_order({1: "2C 3D 5S 7C JD", 2: "AH KH QD JD 9C", 0: "AS KS QC JC 9D"}))
    poker = game.results[0].poker
    assert poker is not None and poker.winners == [2, 0]
    assert poker.shares == {2: 8, 0: 7}
    assert coins(game) == [102, 95, 103]


def test_odd_coins_to_the_kitty_option() -> None:
    game = GarbageGame(3, rules=GarbageRules(odd_coins="kitty"))
    feed(game, deal_order({1: "2C 3D 5S 7C JD", 2: "AH KH QD JD 9C", 0: "AS KS QC JC 9D"}))
    assert coins(game) == [102, 95, 102]
    assert game.ledger.balance(KITTY) == 1


def test_four_flush_variation_decides_the_poker_pot() -> None:
    """Seed variation: a four-flush beats a pair and loses to two pairs."""
    hands = {1: "2H 7H 9H JH KC", 2: "AC AD 3S 6C 8D", 0: "4C 5D TS QC 3D"}
    plain = GarbageGame(3)
    feed(plain, deal_order(hands))
    assert plain.results[0].poker is not None and plain.results[0].poker.winners == [2]
    four = GarbageGame(3, rules=GarbageRules(four_flush=True))
    feed(four, deal_order(hands))
    assert four.results[0].poker is not None and four.results[0].poker.winners == [1]


def test_seven_card_variation_best_five_and_all_seven_kept() -> None:
    """Seed variation: seven cards each, best five; the seven are kept for bingo and put and take."""
    game = GarbageGame(3, rules=GarbageRules(hand_size=7))
    feed(game, deal_order({1: "2C 3C 4C 5C 9D 9S 6C", 2: "AC AD AH KS KD QC QD", 0: "2D 4D 6S 8H TC JS 3H"}))
    poker = game.results[0].poker
    assert poker is not None and poker.winners == [1]
    assert poker.described[1] == "straight flush, 6 high"
    assert len(game.hand(1)) == 7 and game.phase == "bingo"


def test_buying_a_card_costs_the_price_and_a_discard_seed_variation() -> None:
    """Seed variation: buy an extra card for a set amount and discard one in exchange."""
    game = GarbageGame(3, rules=GarbageRules(buy_price=3))
    feed(game, deal_order({1: "2C 3D 5S 7C JD", 2: "AH KH QD JD 9C", 0: "AS KS QC JC 9D"}))
    offer = game.step  # read into a name: mypy would keep the narrowing of ``game.step`` across ``play``
    assert offer == AwaitMove("poker", 1, ("buy", "stand"), "buy an extra card for 3 coins and discard one?")
    game.play(Move(1, "buy"))
    assert game.step == AwaitCard("poker", "buy", 1, 1)
    game.supply(Card.parse("JH"))
    with pytest.raises(IllegalMoveError, match="has no KH to discard"):
        game.verify_move(Move(1, "discard", Card.parse("KH")))
    game.play(Move(1, "discard", Card.parse("2C")))
    game.play(Move(2, "stand"))
    game.play(Move(0, "stand"))
    poker = game.results[0].poker
    assert poker is not None and poker.bought == {1: (Card.parse("JH"), Card.parse("2C"))}
    assert poker.winners == [1] and poker.pot == 18  # pair of jacks; 15 antes + 3
    assert coins(game) == [95, 110, 95]


def test_stud_betting_after_the_third_and_fourth_cards_seed_variation() -> None:
    """Seed variation: five-card stud, betting rounds after the 3rd and 4th cards; a fold gives up the pot."""
    game = GarbageGame(3, rules=GarbageRules(stud=True, stud_bet=2))
    dealt = deal_order({1: "2C 3D 5S 7C JD", 2: "AH AD QD JD 9C", 0: "KS KC KD JC 9D"})
    feed(game, dealt[:9])
    assert game.step == AwaitMove("poker", 1, ("check", "bet"), "after card 3: check, or bet 2")
    with pytest.raises(IllegalMoveError, match="seat 1's turn"):
        game.play(Move(2, "bet"))
    game.play(Move(1, "check"))
    game.play(Move(2, "bet"))
    with pytest.raises(IllegalMoveError, match="cannot check now; allowed: call, fold, raise"):
        game.play(Move(0, "check"))
    game.play(Move(0, "raise"))  # to 4
    game.play(Move(1, "fold"))
    game.play(Move(2, "call"))
    feed(game, dealt[9:12])
    game.play(Move(2, "check"))
    game.play(Move(0, "bet"))
    game.play(Move(2, "fold"))
    feed(game, dealt[12:])
    poker = game.results[0].poker
    assert poker is not None and poker.folded == [1, 2]
    assert poker.pot == 15 + 4 + 4 + 2 and poker.winners == [0]
    assert coins(game) == [95 - 6 + 25, 95, 95 - 4]


# -- bingo --------------------------------------------------------------------------------------


def test_bingo_coins_on_matching_cards_again_on_repeats_first_full_cover_wins() -> None:
    """Seed phase 2: a coin on each matching card, again when a rank is called again; the first
    player with a coin on all five cards takes every coin placed."""
    game = GarbageGame(3)
    feed(game, deal_order({1: "2C 2D 3C 4C 5C", 2: "6C 7C 8C 9C TC", 0: "JC QC KC AC 6D"}))
    feed(game, cards("2S 6H 3S 6S 4S"))
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.marks[1] == [1, 1, 1, 1, 0] and bingo.marks[2] == [2, 0, 0, 0, 0]
    assert game.ledger.balance("bingo") == 4 + 2 + 2
    feed(game, cards("5S"))
    assert bingo.winners == [1] and bingo.pot == 9 and bingo.shares == {1: 9}
    assert [bingo.coins_placed[s] for s in (0, 1, 2)] == [2, 5, 2]
    assert game.phase == "put-and-take"


BINGO_TIE = {1: "2C 3C 4C 5C 6C", 2: "2D 3D 4D 5D 6D", 0: "9C 9D TC JD QS"}


def test_bingo_tie_shares_the_coins_seed_phase_2() -> None:
    """Seed: multiple winners on the same card share the coins equally."""
    game = GarbageGame(3)
    feed(game, deal_order(BINGO_TIE))
    before = coins(game)
    feed(game, cards("2H 3H 4H 5H 6H"))
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.winners == [1, 2] and bingo.shares == {1: 5, 2: 5}
    assert coins(game) == before


def test_bingo_tie_most_coins_wins_variation() -> None:
    """Seed variation: tied bingo goes to the most coins on their cards."""
    game = GarbageGame(3, rules=GarbageRules(bingo_tie="most-coins"))
    feed(game, deal_order(BINGO_TIE))
    before = coins(game)
    feed(game, cards("2H 2S 3H 4H 5H 6H"))
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.winners == [1, 2]  # both covered... equal coins: split
    game2 = GarbageGame(3, rules=GarbageRules(bingo_tie="most-coins"))
    feed(game2, deal_order({1: "2C 3C 4C 5C 6C", 2: "2D 2S 4D 5D 6D", 0: "9C 9D TC JD QS"}))
    feed(game2, cards("2H 2H 3H 4H 5H 6H"))  # both cover on 6H: seat 1 has 6 coins, seat 2 has 7
    bingo2 = game2.results[0].bingo
    assert bingo2 is not None and bingo2.winners == [2] and bingo2.shares == {2: 13}
    assert before == coins(game)


def test_bingo_tie_to_the_kitty_won_by_the_next_bingo_variation() -> None:
    """Seed variation: a tie means no winner; the coins go to a kitty won at the next bingo."""
    game = GarbageGame(3, rules=GarbageRules(bingo_tie="kitty"))
    feed(game, deal_order(BINGO_TIE))
    feed(game, cards("2H 3H 4H 5H 6H"))
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.winners == [] and bingo.to_kitty == 10
    assert game.ledger.balance(KITTY) == 10 and game.phase == "put-and-take"


def test_bingo_kitty_played_at_once_variation() -> None:
    """Seed variation: the kitty bingo can be played immediately, the dealer calling on."""
    game = GarbageGame(3, rules=GarbageRules(bingo_tie="kitty", kitty_replay="now"))
    feed(game, deal_order(BINGO_TIE))
    feed(game, cards("2H 3H 4H 5H 6H"))
    assert game.phase == "bingo" and game.ledger.balance(KITTY) == 10
    feed(game, cards("9H 9S TH JH QH"))  # the dealer covers alone in the second game
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.games == 2 and bingo.winners == [0]
    assert bingo.pot == 10 + 7 and game.ledger.balance(KITTY) == 0


# -- put and take -------------------------------------------------------------------------------


def round_with(hands: dict[int, str], rules: GarbageRules) -> Round:
    ledger = Ledger.with_accounts([f"seat:{s}" for s in range(3)], start=100)
    for account in (POT, "bingo", KITTY):
        ledger.open(account)
    r = Round(rules, 3, 0, 0, ledger, [])
    for seat, text in hands.items():
        r.hands[seat] = cards(text)
    return r


def run(r: Round, phase: str, turned: Sequence[Card]) -> None:
    gen = {"put-and-take": play_put_and_take, "count-up": play_count_up}[phase](r)
    r.phase = phase
    next(gen)
    for i, card in enumerate(turned):
        try:
            gen.send(card)
        except StopIteration:
            assert i == len(turned) - 1, "the phase ended early"
            return
    raise AssertionError("the phase wanted more cards")


PT_HANDS = {1: "7C 7D 7H 2C 3C", 2: "4D 5D 8S 9S KH", 0: "AC AD AH AS QC"}
PUT = cards("2D 4C KS 5H 6C 8D 7S 9C TC JC")
TAKE = cards("AH 2H 3H 4H 5H 6H 7C 8H 9H TH")


def test_put_and_take_k_coins_per_match_and_dealer_keeps_the_rest_seed_phase_3() -> None:
    """Seed phase 3: the k-th put card costs k per matching card, the k-th take card pays k;
    the dealer's hand is set aside; what is left in the pot goes to the dealer."""
    r = round_with(PT_HANDS, GarbageRules())
    run(r, "put-and-take", PUT + TAKE)
    res = r.results.put_and_take
    assert res is not None and res.seats == [1, 2] and r.hands[0] == []
    # seat 1 puts 1 (2D on 1st), 21 (7S on 7th, three sevens); seat 2: 2 (4C), 3 (KS), 4 (5H), 6 (8D), 8 (9C)
    assert sum(t.amounts.get(1, 0) for t in res.turns if t.half == "put") == 1 + 21
    assert sum(t.amounts.get(2, 0) for t in res.turns if t.half == "put") == 2 + 3 + 4 + 6 + 8
    # takes: seat 1: 2 (2H), 3 (3H), 21 (7C on 7th); seat 2: 4 (4H), 5 (5H), 8 (8H), 9 (9H)
    assert sum(t.amounts.get(1, 0) for t in res.turns if t.half == "take") == 2 + 3 + 21
    assert sum(t.amounts.get(2, 0) for t in res.turns if t.half == "take") == 4 + 5 + 8 + 9
    assert res.dealer_collected == (22 + 23) - (26 + 26) + res.dealer_paid
    assert r.ledger.total == 300 and r.ledger.balance(POT) == 0


def test_dry_pot_the_dealer_pays_seed_phase_3() -> None:
    """Seed: if the pot runs out before the 20th card the dealer pays the players."""
    r = round_with({1: "2C 3C 4C 5C 6C", 2: "2D 3D 4D 5D 6D"}, GarbageRules())
    run(r, "put-and-take", cards("KC KD KH KS QC QD QH QS JC JD") + cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH"))
    res = r.results.put_and_take
    assert res is not None and res.dealer_paid == 2 * (2 + 3 + 4 + 5 + 6)
    assert [r.ledger.balance(f"seat:{s}") for s in range(3)] == [60, 120, 120]


def test_three_of_a_kind_on_the_seventh_card_pays_63_with_sets_multiplying() -> None:
    """Seed variation: a pair pays x2 and a triplet x3: three of a kind on the 7th card pays 63, not 21."""
    plain = round_with(PT_HANDS, GarbageRules())
    sets = round_with(PT_HANDS, GarbageRules(sets_multiply=True))
    run(plain, "put-and-take", PUT + TAKE)
    run(sets, "put-and-take", PUT + TAKE)
    assert plain.results.put_and_take is not None and sets.results.put_and_take is not None
    assert plain.results.put_and_take.turns[6].amounts == {1: 21}
    assert sets.results.put_and_take.turns[6].amounts == {1: 63}
    assert units(cards("7C 7D 2H"), Card.parse("7S"), GarbageRules(sets_multiply=True)) == 4  # pair: x2


def test_rank_and_suit_match_doubles_variation() -> None:
    """Seed variation: a card matching rank and suit of the turned card puts or takes double."""
    rules = GarbageRules(rank_and_suit_double=True)
    assert units(cards("7C 7D 2H"), Card.parse("7C"), rules) == 3
    assert units(cards("7C 7D 2H"), Card.parse("7S"), rules) == 2
    r = round_with(PT_HANDS, rules)
    run(r, "put-and-take", PUT + TAKE)
    assert r.results.put_and_take is not None
    assert r.results.put_and_take.turns[0].amounts == {1: 1}  # 2D on 1st: seat 1's 2C, rank only
    assert r.results.put_and_take.turns[12].amounts == {1: 3}  # 3H on 3rd: seat 1's 3C, rank only
    assert r.results.put_and_take.turns[16].amounts == {1: 7 * 4}  # 7C: 7C double + 7D + 7H


def test_five_card_put_and_take_variation() -> None:
    """Seed variation: five cards in each part, so at most 5 per card."""
    r = round_with(PT_HANDS, GarbageRules(put_and_take_cards=5))
    run(r, "put-and-take", PUT[:5] + TAKE[:5])
    res = r.results.put_and_take
    assert res is not None and len(res.turns) == 10 and max(t.number for t in res.turns) == 5


# -- count-up -----------------------------------------------------------------------------------

COUNT = cards("KC 2D 9H 4S 6C 8D 7S 3C TC QD 5H KH KS")  # hits: 2 on two, 4 on four, 7 on seven, K on king


def test_count_up_every_player_pays_the_dealer_the_rank_hit_seed_phase_4() -> None:
    """Seed phase 4: a card whose rank is the count makes everyone pay the dealer that rank (K 13)."""
    r = round_with(PT_HANDS, GarbageRules())
    run(r, "count-up", COUNT)
    res = r.results.count_up
    assert res is not None and [t.number for t in res.turns if t.hit] == [2, 4, 7, 13]
    assert res.dealer_net == 2 * (2 + 4 + 7 + 13)
    assert [r.ledger.balance(f"seat:{s}") for s in range(3)] == [152, 74, 74]
    assert all(not h for h in r.hands) and len(r.discards) == 15 + 13


def test_ten_card_count_up_variation() -> None:
    r = round_with(PT_HANDS, GarbageRules(count_up_cards=10))
    run(r, "count-up", COUNT[:10])
    assert r.results.count_up is not None and r.results.count_up.dealer_net == 2 * (2 + 4 + 7)


def test_no_hit_penalty_variation() -> None:
    """Seed variation: a dealer who hits no card pays 5 coins to each player."""
    r = round_with(PT_HANDS, GarbageRules(no_hit_penalty=5))
    run(r, "count-up", cards("KC 3D 9H 5S 6D 8D 2S 3C TC QD 5H KH AS"))
    assert r.results.count_up is not None and r.results.count_up.penalty_each == 5
    assert [r.ledger.balance(f"seat:{s}") for s in range(3)] == [90, 105, 105]


def test_consecutive_hits_pay_double_then_triple_variation() -> None:
    """Seed variation: the second of consecutive hits pays double, the third triple."""
    r = round_with(PT_HANDS, GarbageRules(consecutive_hits_multiply=True))
    run(r, "count-up", cards("AC 2D 3H 9S 5C 8D 7S 3C TC QD 5H KH KS"))
    res = r.results.count_up
    assert res is not None
    assert [(t.number, t.each) for t in res.turns if t.hit] == [(1, 1), (2, 4), (3, 9), (5, 5), (7, 7), (13, 13)]


# -- phase order, the dealer's part, cards from outside ----------------------------------------


def test_bingo_after_put_and_take_the_dealer_only_calls_variation() -> None:
    """Seed variation: bingo as phase 3; the dealer's cards are gone, the dealer only calls."""
    game = GarbageGame(3, rules=GarbageRules(bingo_after_put_and_take=True))
    feed(game, deal_order(HANDS))
    assert game.phase == "put-and-take"
    feed(game, cards("KC KD KH KS QC QD QH QS JC JD") + cards("KC KD KH KS QC QD QH QS JC JH"))
    assert game.phase == "bingo"
    feed(game, cards("9D"))
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.seats == [1, 2] and bingo.winners == [1]


def test_a_card_every_copy_of_which_is_out_is_a_conflict_not_a_crash() -> None:
    """Two packs hold two of each card: a third ace of spades cannot come from the stock."""
    game = GarbageGame(3)
    game.supply(Card.parse("AS"))
    game.supply(Card.parse("AS"))
    with pytest.raises(CardConflictError, match="all 2 AS"):
        game.supply(Card.parse("AS"))
    assert not game.can_supply(Card.parse("AS")) and game.can_supply(Card.parse("AH"))
    assert game.step == AwaitCard("poker", "deal", 0, 1)


def test_moves_and_cards_out_of_turn_are_refused_with_a_sentence() -> None:
    game = GarbageGame(3)
    with pytest.raises(IllegalMoveError, match="no decision is expected now: deal card 1 face up to seat 1"):
        game.play(Move(1, "buy"))
    assert game.legal_moves() == []


def test_debt_is_allowed_and_shown_in_the_ledger_rules_md() -> None:
    """rules.md: a player out of coins goes into debt."""
    game = GarbageGame(3, rules=GarbageRules(start_coins=3))
    assert coins(game) == [-2, -2, -2]
    capped = GarbageGame(3, rules=GarbageRules(start_coins=3, debt=False))
    assert coins(capped) == [0, 0, 0] and capped.ledger.balance(POT) == 9


def test_bingo_nobody_can_finish_is_not_played() -> None:
    """One pack, every seven held and each player holding one: a seven can never be called, so
    no one can cover every card; the bingo is skipped and no coin moves (the seed is silent)."""
    game = GarbageGame(3, rules=GarbageRules(packs=1))
    feed(game, deal_order({1: "7C 2C 3C 4C 5C", 2: "7D 2D 3D 4D 5D", 0: "7H 7S 3H 4H 5H"}))
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.abandoned and bingo.calls == []
    assert game.phase == "put-and-take" and game.ledger.balance("bingo") == 0


def test_a_dealer_who_sits_out_poker_and_bingo_option() -> None:
    """rules.md default: the dealer plays poker and bingo; the option lets the dealer only deal."""
    game = GarbageGame(3, rules=GarbageRules(dealer_plays=False))
    assert game.ledger.balance(POT) == 10
    feed(game, deal_order({1: "7C 2C 3C 4C 5C", 2: "7D 2D 3D 4D 5D"}))
    assert game.phase == "bingo" and game.hand(0) == []
    bingo = game.results[0].bingo
    assert bingo is not None and bingo.seats == [1, 2]
