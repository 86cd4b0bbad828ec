"""A Garbage match as a whole: the deal passing left, match length, the stock running out, and
random bot playouts over many seeds, player counts 3-8 and every named rule set (oracles: every
coin and every card accounted for at every step, every phase and the match always finish)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from table.cards import Card
from table.errors import ConfigError, TableError
from table.garbage import RULE_SETS, AwaitCard, DeckFeeder, GarbageGame, GarbageRules, announce, rules_named
from table.garbage.bots import choose_move
from table.garbage.record import play_bot_game


def play_checked(players: int, seed: int, rules: GarbageRules, *, every_step: bool) -> GarbageGame:
    game = GarbageGame(players, rules=rules, first_dealer=seed % players)
    rng = random.Random(seed)
    feeder = DeckFeeder.seeded(game.pack, seed)
    deal, phases = 0, [game.phase]
    pack = Counter(game.pack)
    for _ in range(100_000):
        if game.over:
            break
        if game.deal != deal:
            assert phases == list(rules.phase_order), phases  # every phase ran, in order
            deal, phases = game.deal, [game.phase]
            feeder = DeckFeeder.seeded(game.pack, seed * 100 + deal)
        if isinstance(game.step, AwaitCard):
            game.supply(feeder.next_card(game))
        else:
            game.play(choose_move(game, rng))
        if game.deal == deal and game.phase not in (phases[-1], "over"):
            phases.append(game.phase)
        if every_step:
            assert game.ledger.total == game.coins_total
            assert game.card_census() == pack
    else:
        raise AssertionError("the match did not finish")
    assert game.ledger.total == game.coins_total == players * rules.start_coins
    assert sum(game.nets()) + game.ledger.balance("kitty") == 0
    assert game.ledger.balance("pot") == game.ledger.balance("bingo") == game.ledger.balance("kitty") == 0
    assert len(game.results) == players * rules.deals_per_seat
    return game


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_random_playouts_conserve_coins_and_cards_and_finish(name: str) -> None:
    rules = RULE_SETS[name]
    for players in range(3, 9):
        for seed in range(2):
            play_checked(players, seed + 10 * players, rules, every_step=(seed == 0))


def test_many_seeds_standard_rules() -> None:
    for seed in range(40):
        play_checked(3 + seed % 6, seed, RULE_SETS["standard"], every_step=False)


def test_the_deal_passes_left_until_everyone_has_dealt_equally_often_seed() -> None:
    """Seed: the deal passes to the left after all phases; play until each has dealt equally often."""
    game = play_bot_game(4, seed=5, rules=GarbageRules(deals_per_seat=2))
    assert [h.dealer for h in game.results] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert game.over and game.step.describe() == "the match is over"


def test_two_packs_for_up_to_five_players_three_for_six_or_more_seed() -> None:
    assert len(GarbageGame(3).pack) == 104 and len(GarbageGame(5).pack) == 104
    assert len(GarbageGame(6).pack) == 156 and len(GarbageGame(8).pack) == 156
    assert len(GarbageGame(4, rules=GarbageRules(packs=3)).pack) == 156


def test_an_exhausted_stock_is_the_discards_reshuffled_never_the_hands_rules_md() -> None:
    """rules.md: when the undealt cards run out the discards are shuffled into a new stock."""
    rules = GarbageRules(packs=1)
    for seed in range(6):
        game = GarbageGame(3, rules=rules)
        rng = random.Random(seed)
        feeder = DeckFeeder.seeded(game.pack, seed)
        reshuffled = False
        while not game.over and game.deal == 0:
            if isinstance(game.step, AwaitCard):
                assert game.round is not None
                in_hands = Counter(c for h in game.round.hands for c in h)
                card = feeder.next_card(game)
                assert not in_hands[card]  # one pack: a held card is never turned
                game.supply(card)
                reshuffled |= game.round.reshuffles > 0
            else:
                game.play(choose_move(game, rng))
            assert game.card_census() == Counter(game.pack)
        assert reshuffled


def test_a_held_card_is_refused_after_the_reshuffle() -> None:
    game = GarbageGame(3, rules=GarbageRules(packs=1))
    feeder = DeckFeeder.seeded(game.pack, 1)
    while game.round is not None and game.round.reshuffles == 0:
        game.supply(feeder.next_card(game))
    held = game.hand(1)[0]
    assert not game.can_supply(held)


def test_rules_are_validated_with_the_option_named() -> None:
    with pytest.raises(ConfigError, match="players"):
        GarbageGame(2)
    with pytest.raises(ConfigError, match="hand_size"):
        GarbageRules(hand_size=4).validate()
    with pytest.raises(ConfigError, match="stud"):
        rules_named("stud,hand_size=7")
    with pytest.raises(ConfigError, match="unknown Garbage rule set 'poker'"):
        rules_named("poker")
    with pytest.raises(ConfigError, match="no such Garbage option"):
        rules_named("standard,antes=3")
    assert rules_named("short,ante=2,four_flush=yes") == GarbageRules(
        name="short", ante=2, four_flush=True, put_and_take_cards=5, count_up_cards=10
    )
    with pytest.raises(TableError, match="first_dealer"):
        GarbageGame(3, first_dealer=3)


def test_announce_groups_what_everyone_pays() -> None:
    game = play_bot_game(3, seed=2, rules=RULE_SETS["standard"])
    antes = announce(game.ledger.entries[:3], 3)
    assert antes == ["every player pays pot 5 coins (ante)"]
    count_up = [e for e in game.ledger.entries if e.phase == "count-up"]
    lines = announce(count_up, 3)
    assert lines and all(line.startswith("each other player pays seat") for line in lines)


def test_entries_describe_the_phase_and_deal() -> None:
    game = play_bot_game(3, seed=4, rules=RULE_SETS["standard"])
    phases = {e.phase for e in game.ledger.entries}
    assert {"poker", "bingo", "put-and-take", "count-up"} <= phases
    assert {e.deal for e in game.ledger.entries} == {0, 1, 2}
    assert game.ledger.entries[0].describe() == "seat 1 pays pot 5 coins (ante)"


def test_the_kitty_left_at_the_end_is_shared() -> None:
    for seed in range(30):
        game = play_bot_game(3, seed=seed, rules=GarbageRules(bingo_tie="kitty", odd_coins="kitty"))
        assert game.ledger.balance("kitty") == 0
        assert game.ledger.total == 300


def test_card_objects_only() -> None:
    game = GarbageGame(3)
    assert not game.can_supply("AS")  # type: ignore[arg-type]
    assert game.can_supply(Card.parse("AS"))


@pytest.mark.parametrize(
    "option, value",
    [("deals_per_seat", 1.0), ("put_and_take_cards", True), ("hand_size", "5"), ("ante", -1), ("packs", 0)],
)
def test_option_values_of_the_wrong_kind_are_refused(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=option):
        GarbageRules().replace(**{option: value})
