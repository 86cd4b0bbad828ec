"""Garbage game records (format in ``docs/records.md``): replay and bot games.

A record names the players, the rules and, per hand, where the cards came from: a ``seed`` (the
pack shuffled with it), a whole ``deck`` order, or the explicit ``cards`` as the table saw them.
Decisions (buying a card, stud betting) are the ``moves``, taken in order whenever the engine
awaits a decision.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from table.cards import Card
from table.errors import CardConflictError, ConfigError, IllegalMoveError, RecordError, TableError
from table.garbage import bots
from table.garbage.core import BINGO, KITTY, MOVE_KINDS, POT, AwaitCard, HandResults, Move
from table.garbage.rules import GarbageRules, rules_from_json, rules_named, rules_to_json
from table.garbage.state import DeckFeeder, GarbageGame, Played
from table.records import card_at, cards_at, need, only_keys, seat_at

_RECORD_KEYS = {"game", "players", "rules", "first_dealer", "deals", "moves", "note"}
_DEAL_KEYS = {"seed", "deck", "reshuffle_seed", "cards", "note"}
_MOVE_KEYS = {"seat", "move", "card", "time", "note"}


def _rules(record: dict[str, Any]) -> GarbageRules:
    try:
        return rules_from_json(record.get("rules"))
    except ConfigError as exc:
        where = exc.key if exc.key.startswith("rules") else f"rules.{exc.key}"
        raise RecordError(where, exc.reason) from None


def _move(value: object, index: int, players: int) -> Move:
    where = f"moves[{index}]"
    if not isinstance(value, dict):
        raise RecordError(where, 'expected an object such as {"seat": 2, "move": "buy"}')
    only_keys(value, _MOVE_KEYS, where)
    seat = seat_at(value, players, where)
    kind = need(value, "move", str, where)
    if kind not in MOVE_KINDS:
        raise RecordError(f"{where}.move", f"unknown move {kind!r}; expected one of {', '.join(MOVE_KINDS)}")
    card = card_at(value["card"], f"{where}.card") if "card" in value else None
    return Move(seat, kind, card)


class _CardSource:
    """One hand's cards: a feeder over a known order, or the explicit list checked card by card."""

    def __init__(self, deal: dict[str, Any], where: str, game: GarbageGame) -> None:
        self.where = where
        self.explicit: list[Card] | None = None
        self.used = 0
        only_keys(deal, _DEAL_KEYS, where)
        keys = [k for k in ("seed", "deck", "cards") if k in deal]
        if len(keys) != 1:
            raise RecordError(where, 'give exactly one of "seed", "deck" or "cards"')
        if "reshuffle_seed" in deal and keys[0] != "deck":
            raise RecordError(f"{where}.reshuffle_seed", 'goes with "deck" only')
        if keys[0] == "seed":
            self.feeder: DeckFeeder | None = DeckFeeder.seeded(game.pack, need(deal, "seed", int, where))
        elif keys[0] == "deck":
            order = cards_at(deal["deck"], f"{where}.deck")
            if Counter(order) != Counter(game.pack):
                missing = Counter(game.pack) - Counter(order)
                extra = Counter(order) - Counter(game.pack)
                raise RecordError(
                    f"{where}.deck",
                    f"is not the {len(game.pack)}-card pack of "
                    f"{game.rules.packs_for(game.players)} deck(s): missing "
                    f"{' '.join(map(str, missing.elements())) or 'nothing'}, extra "
                    f"{' '.join(map(str, extra.elements())) or 'nothing'}",
                )
            seed = need(deal, "reshuffle_seed", int, where) if "reshuffle_seed" in deal else 0
            self.feeder = DeckFeeder(order, reshuffle_seed=seed)
        else:
            self.feeder = None
            self.explicit = cards_at(deal["cards"], f"{where}.cards")

    def exhausted(self) -> bool:
        return self.explicit is not None and self.used >= len(self.explicit)

    def supply(self, game: GarbageGame) -> None:
        if self.feeder is not None:
            game.supply(self.feeder.next_card(game))
            return
        assert self.explicit is not None
        card = self.explicit[self.used]
        try:
            game.supply(card)
        except CardConflictError as exc:
            raise RecordError(f"{self.where}.cards[{self.used}]", f"{exc} (wanted to {game.step.describe()})") from None
        self.used += 1

    def check_all_used(self) -> None:
        if self.explicit is not None and self.used < len(self.explicit):
            raise RecordError(
                f"{self.where}.cards[{self.used}]",
                f"the hand ended after {self.used} cards; {len(self.explicit) - self.used} more given",
            )


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a Garbage record; the result names every seat's coins and each hand's outcome."""
    only_keys(record, _RECORD_KEYS, "")
    players = need(record, "players", int, "")
    rules = _rules(record)
    try:
        rules.validate(players)
    except ConfigError as exc:
        raise RecordError("players" if exc.key == "players" else f"rules.{exc.key}", exc.reason) from None
    first = need(record, "first_dealer", int, "") if "first_dealer" in record else 0
    if not 0 <= first < players:
        raise RecordError("first_dealer", f"must be a seat 0..{players - 1}, not {first}")
    deals = need(record, "deals", list, "")
    raw_moves = need(record, "moves", list, "") if "moves" in record else []
    moves = [_move(m, i, players) for i, m in enumerate(raw_moves)]
    game = GarbageGame(players, rules=rules, first_dealer=first)
    if len(deals) > game.deals:
        raise RecordError(
            "deals",
            f"has {len(deals)} hands; a match of {players} players dealing "
            f"{rules.deals_per_seat} time(s) each has {game.deals}",
        )
    next_move = 0
    stuck = ""
    for index, deal in enumerate(deals):
        where = f"deals[{index}]"
        if not isinstance(deal, dict):
            raise RecordError(where, 'expected an object with "seed", "deck" or "cards"')
        source = _CardSource(deal, where, game)
        while not game.over and game.deal == index:
            step = game.step
            if isinstance(step, AwaitCard):
                if source.exhausted():
                    stuck = f"{where}: the cards end where the table must {step.describe()}"
                    break
                try:
                    source.supply(game)
                except TableError as exc:
                    if isinstance(exc, RecordError):
                        raise
                    raise RecordError(where, str(exc)) from None
                continue
            if next_move >= len(moves):
                stuck = f"awaiting a decision: {step.describe()}"
                break
            try:
                game.play(moves[next_move])
            except IllegalMoveError as exc:
                raise IllegalMoveError(exc.reason, index=next_move) from None
            next_move += 1
        if stuck:
            break
        source.check_all_used()
    if next_move < len(moves):
        if stuck:
            raise RecordError(
                f"moves[{next_move}]", f"{len(moves) - next_move} move(s) left but the record stops ({stuck})"
            )
        if game.over:
            raise IllegalMoveError("the match is over; no more decisions", index=next_move)
        raise RecordError(f"moves[{next_move}]", f"{len(moves) - next_move} move(s) left after the last hand given")
    return result(game, awaiting=None if game.over else (stuck or game.step.describe()))


def result(game: GarbageGame, *, awaiting: str | None = None) -> dict[str, Any]:
    """The replay result JSON for a game (over or not)."""
    out: dict[str, Any] = {
        "game": "garbage",
        "over": game.over,
        "players": game.players,
        "rules": rules_to_json(game.rules),
        "seats": [
            {"seat": s, "coins": game.balance(s), "net": game.balance(s) - game.rules.start_coins}
            for s in range(game.players)
        ],
        "kitty": game.ledger.balance(KITTY),
        # the coins on the table in the hand in progress (antes, bets, bingo stakes): with them the
        # seats and the kitty add up to coins_total whenever the record stops
        "pots": {"poker": game.ledger.balance(POT), "bingo": game.ledger.balance(BINGO)},
        "coins_total": game.ledger.total,
        "ledger_entries": len(game.ledger.entries),
        "hands": [_hand_summary(h) for h in game.results],
    }
    if not game.over and out["hands"]:
        out["hands"][-1]["in_progress"] = True  # its pots are in "pots" until the hand settles them
    if awaiting:
        out["awaiting"] = awaiting
    return out


def _hand_summary(h: HandResults) -> dict[str, Any]:
    out: dict[str, Any] = {"deal": h.deal, "dealer": h.dealer}
    if h.poker is not None:
        out["poker"] = {
            "pot": h.poker.pot,
            "winners": h.poker.winners,
            "hands": {str(s): d for s, d in h.poker.described.items()},
        }
        if h.poker.folded:
            out["poker"]["folded"] = h.poker.folded
    if h.bingo is not None:
        out["bingo"] = {
            "calls": len(h.bingo.calls),
            "pot": h.bingo.pot,
            "winners": h.bingo.winners,
            "to_kitty": h.bingo.to_kitty,
        }
    if h.put_and_take is not None:
        out["put_and_take"] = {
            "dealer_collected": h.put_and_take.dealer_collected,
            "dealer_paid": h.put_and_take.dealer_paid,
        }
    if h.count_up is not None:
        out["count_up"] = {"hits": [t.number for t in h.count_up.turns if t.hit], "dealer_net": h.count_up.dealer_net}
    return out


def _deal_seed(seed: int, deal: int) -> int:
    return seed * 10007 + deal


def play_bot_game(players: int, *, seed: int, rules: GarbageRules) -> GarbageGame:
    """A whole match of bots, each hand dealt from the pack shuffled with ``_deal_seed``."""
    game = GarbageGame(players, rules=rules)
    rng = random.Random(seed)
    feeder = DeckFeeder.seeded(game.pack, _deal_seed(seed, 0))
    deal = 0
    while not game.over:
        if game.deal != deal:
            deal = game.deal
            feeder = DeckFeeder.seeded(game.pack, _deal_seed(seed, deal))
        if isinstance(game.step, AwaitCard):
            game.supply_from(feeder)
        else:
            game.play(bots.choose_move(game, rng))
    return game


def random_record(*, players: int | None, seed: int, rules: str | None) -> dict[str, Any]:
    """The record of a bot match (``cardtable replay --random garbage``); default 5 players."""
    n = 5 if players is None else players
    chosen = rules_named(rules)
    chosen.validate(n)
    game = play_bot_game(n, seed=seed, rules=chosen)
    return {
        "game": "garbage",
        "players": n,
        "rules": rules_to_json(chosen),
        "first_dealer": 0,
        "deals": [{"seed": _deal_seed(seed, d)} for d in range(game.deals)],
        "moves": [_move_json(item.move) for item in game.history if isinstance(item, Played)],
    }


def _move_json(move: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": move.seat, "move": move.kind}
    if move.card is not None:
        out["card"] = str(move.card)
    return out
