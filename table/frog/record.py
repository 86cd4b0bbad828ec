"""Frog game records: replay and bot games (``cardtable replay``, ``--random frog``).

A record (see ``docs/records.md``, section Frog)::

    {"game": "frog", "rules": "foster-1909", "options": {}, "players": 3, "dealer": 0,
     "deals": [{"deck": ["AS", ...36 cards in dealing order...], "moves": [...]}]}

A deal gives its cards as ``deck`` (dealt by the rule set's packet plan), or ``hands``
(``{"1": [11 cards], ...}`` for the active seats) and optional ``widow``, or neither (hidden hands:
plays are accepted if they could be legal and revokes are reported). A single deal may be written
at top level without ``deals``. Moves, seats clockwise 0..n-1: ``{"seat": 1, "bid": "frog"}``
(``pass``, ``frog``, ``chico``, ``grand``; ``simple-solo``/``heart-solo`` also read; the Frog
bidder's raise is ``"bid": "grand"``), ``{"seat": 1, "trump": "S"}``, ``{"seat": 1, "widow": [3]}``
(hidden hands, exposed widow), ``{"seat": 1, "discard": [3 cards] or null}``, ``{"seat": 2, "play": "TH"}``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

from table.cards import Card, Suit, shuffled
from table.errors import CardConflictError, ConfigError, IllegalMoveError, RecordError
from table.frog.bots import HeuristicBot, play_deal
from table.frog.deal import deal_cards
from table.frog.match import FrogMatch
from table.frog.play import FROG_PACK
from table.frog.rules import CONTRACT_WORDS, Contract, RuleSet, rule_set
from table.frog.state import FrogDeal, Phase
from table.records import card_at, cards_at, need, only_keys, seat_at

_ACTIONS = ("bid", "trump", "widow", "discard", "play")
_MOVE_KEYS = {"seat", *_ACTIONS, "time", "note"}
_DEAL_KEYS = {"deck", "hands", "widow", "moves", "note"}
_SESSION_KEYS = {"game", "rules", "options", "players", "dealer", "deals", "note"}
_SUITS = {s.char: s for s in Suit} | {s.name.lower(): s for s in Suit} | {s.symbol: s for s in Suit}


def _rules(record: dict[str, Any]) -> RuleSet:
    name = record.get("rules")
    if name is not None and not isinstance(name, str):
        raise RecordError("rules", f"expected a rule set name, got {json.dumps(name)}")
    try:
        rules = rule_set(name)
        options = record.get("options", {})
        if not isinstance(options, dict):
            raise RecordError("options", f"expected an object, got {json.dumps(options)}")
        return rules.with_options(**options) if options else rules
    except ConfigError as exc:
        raise RecordError("rules" if exc.key == "rules" else f"options.{exc.key}", exc.reason) from None


def _deal_from(rules: RuleSet, match: FrogMatch, spec: dict[str, Any], where: str) -> FrogDeal:
    if "deck" in spec and ("hands" in spec or "widow" in spec):
        extra = "hands" if "hands" in spec else "widow"
        raise RecordError(
            f"{where}.{extra}" if where else extra,
            "a deal gives its cards once: a deck (the widow is what is left of it), or hands and a widow",
        )
    try:
        if "deck" in spec:
            deck = cards_at(spec["deck"], f"{where}.deck")
            dealt, pile = deal_cards(match.plan(), deck)
            return match.new_deal(hands=dealt, widow=pile)
        if "hands" in spec:
            raw = need(spec, "hands", dict, where)
            hands: dict[int, list[Card]] = {}
            for key, cards in raw.items():
                if not (isinstance(key, str) and key.isdigit()):
                    raise RecordError(f"{where}.hands", f'seat keys are numbers such as "0", not {key!r}')
                hands[int(key)] = cards_at(cards, f"{where}.hands.{key}")
            widow: list[Card] | None = cards_at(spec["widow"], f"{where}.widow") if "widow" in spec else None
            return match.new_deal(hands=hands, widow=widow)
        widow = cards_at(spec["widow"], f"{where}.widow") if "widow" in spec else None
        return match.new_deal(widow=widow)
    except (ConfigError, CardConflictError) as exc:
        raise RecordError(where, str(exc)) from None


def _apply(deal: FrogDeal, move: Any, where: str, index: int, prefix: str) -> None:
    if not isinstance(move, dict):
        raise RecordError(where, f'a move is an object such as {{"seat": 1, "play": "AS"}}, got {json.dumps(move)}')
    only_keys(move, _MOVE_KEYS, where)
    seat = seat_at(move, deal.players, where)
    kinds = [k for k in _ACTIONS if k in move]
    if len(kinds) != 1:
        raise RecordError(where, f"a move has exactly one of {', '.join(_ACTIONS)}; got {sorted(move)}")
    kind = kinds[0]
    value = move[kind]
    at = f"{where}.{kind}"
    try:
        if kind == "bid":
            if value == "pass":
                deal.bid(seat, None)
            elif isinstance(value, str) and value in CONTRACT_WORDS:
                deal.bid(seat, CONTRACT_WORDS[value])
            else:
                raise RecordError(at, f"expected pass, frog, chico or grand, got {json.dumps(value)}")
        elif kind == "trump":
            suit = _SUITS.get(value) if isinstance(value, str) else None
            if suit is None:
                raise RecordError(at, f"expected a suit C, D, H or S, got {json.dumps(value)}")
            deal.name_trump(seat, suit)
        elif kind == "widow":
            deal.show_widow(cards_at(value, at))
        elif kind == "discard":
            deal.discard(seat, None if value is None else cards_at(value, at))
        else:
            deal.play(seat, card_at(value, at))
    except IllegalMoveError as exc:
        raise IllegalMoveError(prefix + exc.reason, index=index) from None
    except CardConflictError as exc:
        raise IllegalMoveError(
            f"{prefix}seat {seat} cannot use {exc.card}: {exc.card} {exc.reason}", index=index
        ) from None


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a Frog record; the result lists per seat its card points and chips won or lost."""
    rules = _rules(record)
    players = need(record, "players", int, "") if "players" in record else 3
    dealer = need(record, "dealer", int, "") if "dealer" in record else 0
    try:
        match = FrogMatch(rules, players, first_dealer=dealer)
    except ConfigError as exc:
        raise RecordError(exc.key, exc.reason) from None
    if not 0 <= dealer < players:
        raise RecordError("dealer", f"no seat {dealer} at a table of {players}")
    if "deals" in record:
        only_keys(record, _SESSION_KEYS, "")
        specs = need(record, "deals", list, "")
        base = "deals"
    else:
        only_keys(record, _SESSION_KEYS - {"deals"} | _DEAL_KEYS, "")
        specs, base = [record], ""
    points = [0] * players
    deal_results: list[dict[str, Any]] = []
    over = True
    for d, spec in enumerate(specs):
        where = f"{base}[{d}]" if base else ""
        if not isinstance(spec, dict):
            raise RecordError(where, "a deal is an object with moves")
        if base:
            only_keys(spec, _DEAL_KEYS, where)
        prefix = f"deal {d + 1}: " if len(specs) > 1 else ""
        if match.over:
            raise IllegalMoveError(f"{prefix}the match is over: seat {match.loser} could not pay", index=0)
        deal = _deal_from(rules, match, spec, where)
        moves = need(spec, "moves", list, where)
        for i, move in enumerate(moves):
            mwhere = f"{where}.moves[{i}]" if where else f"moves[{i}]"
            if deal.over:
                raise IllegalMoveError(f"{prefix}the deal is over; no move may follow", index=i)
            _apply(deal, move, mwhere, i, prefix)
        for seat, pts in deal.points().items():
            points[seat] += pts
        if deal.over:
            match.finish(deal)
        else:
            over = False
            if d != len(specs) - 1:
                raise RecordError(where, f"this deal is unfinished ({deal.phase.value}) but more deals follow")
        deal_results.append(_deal_result(deal))
    result: dict[str, Any] = {
        "game": "frog",
        "rules": rules.name,
        "players": players,
        "over": over,
        "seats": [{"seat": s, "points": points[s], "chips": match.net(s)} for s in range(players)],
        "deals": deal_results,
    }
    if rules.starting_chips:
        result["balances"] = [match.balance(s) for s in range(players)]
        result["loser"] = match.loser
    return result


def _deal_result(deal: FrogDeal) -> dict[str, Any]:
    out: dict[str, Any] = {"dealer": deal.dealer, "active": list(deal.active), "phase": deal.phase.value}
    if deal.contract is not None:
        out.update(contract=deal.contract.word, bidder=deal.bidder, trump=deal.trump.char if deal.trump else None)
    out["points"] = [deal.points()[s] for s in range(deal.players)]
    settlement = deal.settlement
    if settlement is not None:
        out["result"] = settlement.result.value
        out["scored"] = settlement.scored
        out["chips"] = [settlement.net(s) for s in range(deal.players)]
    if deal.revokes:
        out["revokes"] = [r.as_json() for r in deal.revokes]
    return out


def deal_json(deal: FrogDeal) -> dict[str, Any]:
    """One deal as a record entry: ``hands`` and ``widow`` when known, and its moves."""
    out: dict[str, Any] = {}
    if deal.known:
        hands, widow = deal.initial_cards
        assert hands is not None
        out["hands"] = {str(s): [str(c) for c in hands[s]] for s in deal.active}
        if deal.widow is not None:
            out["widow"] = [str(c) for c in (widow or deal.widow)]
    elif deal.initial_cards[1] is not None:
        out["widow"] = [str(c) for c in deal.initial_cards[1] or ()]
    out["moves"] = [m.as_json() for m in deal.history]
    return out


def match_record(match: FrogMatch, *, current: FrogDeal | None = None) -> dict[str, Any]:
    """The record of a session so far (finished deals, then ``current`` if one is in progress);
    ``replay`` of it gives the same points and chips."""
    deals = [*match.deals, *([current] if current is not None else [])]
    first = deals[0].dealer if deals else match.dealer
    record: dict[str, Any] = {"game": "frog", "rules": match.rules.name}
    options = _options_json(match.rules)
    if options:
        record["options"] = options
    record.update(players=match.players, dealer=first, deals=[deal_json(d) for d in deals])
    return record


def _options_json(rules: RuleSet) -> dict[str, Any]:
    """The fields where ``rules`` differs from its named set, as record options."""
    base = rule_set(rules.name)
    out: dict[str, Any] = {}
    for field in dataclasses.fields(rules):
        value = getattr(rules, field.name)
        if value != getattr(base, field.name):
            if isinstance(value, enum.Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = [v.word if isinstance(v, Contract) else v for v in value]
            out[field.name] = value
    return out


def random_record(*, players: int | None, seed: int, rules: str | None) -> dict[str, Any]:
    """A bot game (heuristic bots, seeded): deals until one is played out, at most 10."""
    ruleset = rule_set(rules)
    n = 3 if players is None else players
    match = FrogMatch(ruleset, n)
    deals: list[dict[str, Any]] = []
    for k in range(10):
        deck = shuffled(FROG_PACK, seed * 1000 + k)
        hands, widow = deal_cards(match.plan(), deck)
        deal = match.new_deal(hands=hands, widow=widow)
        play_deal(deal, {s: HeuristicBot(seed * 7919 + s + 31 * k) for s in deal.active})
        deals.append({"deck": [str(c) for c in deck], "moves": [m.as_json() for m in deal.history]})
        match.finish(deal)
        if deal.phase is Phase.OVER:
            break
    return {"game": "frog", "rules": ruleset.name, "players": n, "dealer": 0, "deals": deals}


__all__ = ["replay", "random_record", "Card", "Contract"]
