"""Chinese Ten game records: replay them, and write the records of bot games.

The format is documented with examples in ``docs/records.md`` ("Chinese Ten"). In short::

    {"game": "chinese-ten", "rules": "pagat", "options": {}, "players": 3, "dealer": 0,
     "deal": {"hands": [[...], [...], [...]], "layout": [...], "stock": [... top first]},
     "moves": [{"seat": 1, "play": "7H", "take": "3C"}, {"seat": 1, "flip": "5D"}, ...]}

``"deck": [...]`` (top first, dealt as :meth:`Deal.from_deck` says) may replace ``"deal"``; hands
and stock may be ``null`` when they were not seen. A match record holds ``"deals": [{"deal": ...,
"moves": [...]}, ...]`` instead of one deal; the dealer passes left after each deal.

:func:`replay` raises :class:`RecordError` (malformed: what and where) or :class:`IllegalMoveError`
with ``index`` (the move's index within its deal; the reason names the deal in a match record).
"""

from __future__ import annotations

import json
from typing import Any

from table.cards import Card, shuffled, standard_pack
from table.chinese_ten.bots import make_bots, play_out
from table.chinese_ten.match import Match
from table.chinese_ten.rules import RULE_SETS, RuleSet, rules_by_name
from table.chinese_ten.scoring import margin_json
from table.chinese_ten.state import (
    DEALT_TO_PLAYERS,
    LAYOUT_SIZE,
    PACK_SIZE,
    STOCK_SIZE,
    ChineseTenState,
    Deal,
)
from table.errors import CardConflictError, ConfigError, IllegalMoveError, RecordError
from table.records import card_at, cards_at, need, only_keys, seat_at

GAME = "chinese-ten"
_MOVE_KEYS = {"seat", "play", "flip", "take", "time", "note"}
_RECORD_KEYS = {"game", "rules", "options", "players", "dealer", "deal", "deck", "moves", "deals", "note"}
_MATCH_KEYS = {"game", "rules", "options", "players", "dealer", "deals", "note"}
_MATCH_DEAL_KEYS = {"dealer", "deal", "deck", "moves", "note"}
_DEAL_KEYS = {"hands", "layout", "stock"}


# -- reading a record ---------------------------------------------------------------------------


def read_rules(record: dict[str, Any]) -> RuleSet:
    name = record.get("rules", "pagat")
    if not isinstance(name, str) or name not in RULE_SETS:
        raise RecordError("rules", f"unknown rule set {json.dumps(name)}; expected one of {', '.join(RULE_SETS)}")
    options = record.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError("options", f"expected an object of options, got {json.dumps(options)}")
    try:
        return rules_by_name(name, **options)
    except ConfigError as exc:
        raise RecordError(f"options.{exc.key}", exc.reason) from None


def read_deal(obj: dict[str, Any], where: str, players: int, dealer: int) -> Deal:
    """The ``deal`` or ``deck`` of ``obj`` (``where`` is its path, ``""`` at the top)."""
    prefix = f"{where}." if where else ""
    if ("deal" in obj) == ("deck" in obj):
        raise RecordError(where or "record", "give exactly one of 'deal' and 'deck'")
    if "deck" in obj:
        deck = cards_at(obj["deck"], f"{prefix}deck")
        if len(deck) != PACK_SIZE:
            raise RecordError(f"{prefix}deck", f"a deck has {PACK_SIZE} cards, got {len(deck)}")
        _check_unique([(f"{prefix}deck[{i}]", c) for i, c in enumerate(deck)])
        return Deal.from_deck(deck, players=players, dealer=dealer)
    spec = obj["deal"]
    path = f"{prefix}deal"
    if not isinstance(spec, dict):
        raise RecordError(path, f"expected an object with hands, layout and stock, got {json.dumps(spec)}")
    only_keys(spec, _DEAL_KEYS, path)
    placed: list[tuple[str, Card]] = []
    layout = cards_at(need(spec, "layout", list, path), f"{path}.layout")
    if len(layout) != LAYOUT_SIZE:
        raise RecordError(f"{path}.layout", f"the first layout has {LAYOUT_SIZE} cards, got {len(layout)}")
    placed += [(f"{path}.layout[{i}]", c) for i, c in enumerate(layout)]
    hands: tuple[tuple[Card, ...], ...] | None = None
    raw_hands = spec.get("hands")
    if raw_hands is not None:
        if not isinstance(raw_hands, list) or len(raw_hands) != players:
            raise RecordError(
                f"{path}.hands", f"expected {players} hands (one per player), got {json.dumps(raw_hands)[:80]}"
            )
        size = DEALT_TO_PLAYERS // players
        read = []
        for seat, raw in enumerate(raw_hands):
            hand = cards_at(raw, f"{path}.hands[{seat}]")
            if len(hand) != size:
                raise RecordError(
                    f"{path}.hands[{seat}]", f"with {players} players each hand holds {size} cards, got {len(hand)}"
                )
            placed += [(f"{path}.hands[{seat}][{i}]", c) for i, c in enumerate(hand)]
            read.append(tuple(hand))
        hands = tuple(read)
    stock: tuple[Card, ...] | None = None
    if spec.get("stock") is not None:
        stock = tuple(cards_at(spec["stock"], f"{path}.stock"))
        if len(stock) != STOCK_SIZE:
            raise RecordError(f"{path}.stock", f"the stock holds {STOCK_SIZE} cards, got {len(stock)}")
        placed += [(f"{path}.stock[{i}]", c) for i, c in enumerate(stock)]
    _check_unique(placed)
    return Deal(layout=tuple(layout), hands=hands, stock=stock)


def _check_unique(placed: list[tuple[str, Card]]) -> None:
    first: dict[Card, str] = {}
    for where, card in placed:
        if card in first:
            raise RecordError(where, f"{card} appears twice (also at {first[card]})")
        first[card] = where


def _read_int(obj: dict[str, Any], key: str, default: int | None, where: str) -> int:
    if key not in obj and default is not None:
        return default
    value: int = need(obj, key, int, where)
    return value


def read_move(raw: object, where: str, players: int) -> tuple[str, int, Card, Any]:
    """``(kind, seat, card, take)`` of one move; ``take`` is ``None``, a card or a list of cards."""
    if not isinstance(raw, dict):
        raise RecordError(where, f'a move is an object such as {{"seat": 1, "play": "7H"}}, got {json.dumps(raw)}')
    unknown = sorted(set(raw) - _MOVE_KEYS)
    if unknown:
        raise RecordError(f"{where}.{unknown[0]}", "unknown key; a move has seat, play or flip, and take")
    seat = seat_at(raw, players, where)
    if ("play" in raw) == ("flip" in raw):
        raise RecordError(where, "a move has exactly one of 'play' and 'flip'")
    kind = "play" if "play" in raw else "flip"
    card = card_at(raw[kind], f"{where}.{kind}")
    take: Any = None
    if "take" in raw and raw["take"] is not None:
        value = raw["take"]
        take = cards_at(value, f"{where}.take") if isinstance(value, list) else card_at(value, f"{where}.take")
    return kind, seat, card, take


def replay_moves(state: ChineseTenState, moves: object, where: str, label: str = "") -> None:
    """Apply the record's moves; an illegal one raises :class:`IllegalMoveError` with its index."""
    if not isinstance(moves, list):
        raise RecordError(where, f"expected a list of moves, got {json.dumps(moves)[:80]}")
    parsed = [read_move(raw, f"{where}[{i}]", state.players) for i, raw in enumerate(moves)]
    for i, (kind, seat, card, take) in enumerate(parsed):
        try:
            if kind == "play":
                state.play(seat, card, take)
            else:
                state.flip(card, take, seat=seat)
        except IllegalMoveError as exc:
            raise IllegalMoveError(label + exc.reason, index=i) from None
        except CardConflictError as exc:
            raise IllegalMoveError(label + exc.reason, index=i) from None


def _state_json(state: ChineseTenState) -> dict[str, Any]:
    out: dict[str, Any] = {"dealer": state.dealer, "over": state.over}
    if state.redeal_needed:
        out["redeal"] = state.redeal_reason
    outcome = state.outcome
    if outcome is not None:
        out["seats"] = [s.to_json() for s in outcome.seats]
        if outcome.leftover:
            out["leftover"] = [str(c) for c in outcome.leftover]
    else:
        out["seats"] = [
            {"seat": i, "captured": [str(c) for c in state.captured(i)], "points": state.scores[i]}
            for i in range(state.players)
        ]
    return out


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a single-deal or match record and return the result JSON (see ``docs/records.md``)."""
    if not isinstance(record, dict):
        raise RecordError("record", "a record is a JSON object")
    game = need(record, "game", str, "")
    if game != GAME:
        raise RecordError("game", f"this is the Chinese Ten replayer, not {json.dumps(game)}")
    rules = read_rules(record)
    players = _read_int(record, "players", None, "")
    try:
        rules.check_players(players)
    except ConfigError as exc:
        raise RecordError("players", exc.reason) from None
    dealer = _read_int(record, "dealer", 0, "")
    if not 0 <= dealer < players:
        raise RecordError("dealer", f"the dealer is a seat 0 to {players - 1}, got {dealer}")
    if "deals" in record:
        only_keys(record, _MATCH_KEYS, "")
        return _replay_match(record, rules, players, dealer)
    only_keys(record, _RECORD_KEYS - {"deals"}, "")
    deal = read_deal(record, "", players, dealer)
    state = _new_state(rules, deal, players, dealer, "")
    replay_moves(state, record.get("moves", []), "moves")
    return {"game": GAME, "rules": rules.name, "players": players, **_state_json(state)}


def _new_state(rules: RuleSet, deal: Deal, players: int, dealer: int, where: str) -> ChineseTenState:
    try:
        return ChineseTenState.from_deal(rules, deal, players=players, dealer=dealer)
    except (ConfigError, CardConflictError) as exc:  # pragma: no cover - read_deal checks these first
        raise RecordError(where or "deal", str(exc)) from None


def _replay_match(record: dict[str, Any], rules: RuleSet, players: int, dealer: int) -> dict[str, Any]:
    deals = need(record, "deals", list, "")
    if not deals:
        raise RecordError("deals", "a match record holds at least one deal")
    match = Match(rules, players=players, dealer=dealer)
    results = []
    for d, raw in enumerate(deals):
        where = f"deals[{d}]"
        if not isinstance(raw, dict):
            raise RecordError(where, f"expected an object with a deal and its moves, got {json.dumps(raw)[:80]}")
        only_keys(raw, _MATCH_DEAL_KEYS, where)
        if "dealer" in raw:
            given = need(raw, "dealer", int, where)
            if given != match.dealer:
                raise RecordError(
                    f"{where}.dealer", f"expected seat {match.dealer} (the deal passes left), got {given}"
                )
        if match.over:
            raise RecordError(where, f"the match was already over: seat {match.winner} had won")
        deal = read_deal(raw, where, players, match.dealer)
        try:
            state = match.start_deal_from(deal)
        except (ConfigError, CardConflictError) as exc:  # pragma: no cover - read_deal checks these first
            raise RecordError(where, str(exc)) from None
        replay_moves(state, raw.get("moves", []), f"{where}.moves", label=f"deal {d}: ")
        results.append(_state_json(state))
        if state.over or state.redeal_needed:
            match.finish_deal(state)
        elif d != len(deals) - 1:
            raise RecordError(f"{where}.moves", f"deal {d} is not finished but another deal follows")
    last_over = results[-1]["over"] or "redeal" in results[-1]
    return {
        "game": GAME,
        "rules": rules.name,
        "players": players,
        "over": bool(last_over),
        "deals": results,
        "seats": [
            {"seat": i, "points": match.points_totals[i], "margin": margin_json(match.margin_totals[i])}
            for i in range(players)
        ],
        "match": {
            "total": rules.match_total,
            "totals": [margin_json(t) for t in match.totals],
            "target": match.target,
            "over": match.over,
            "winner": match.winner,
        },
    }


# -- writing records ------------------------------------------------------------------------------


def deal_json(deal: Deal) -> dict[str, Any]:
    return {
        "hands": None if deal.hands is None else [[str(c) for c in h] for h in deal.hands],
        "layout": [str(c) for c in deal.layout],
        "stock": None if deal.stock is None else [str(c) for c in deal.stock],
    }


def moves_json(state: ChineseTenState) -> list[dict[str, Any]]:
    explicit = not state.rules.capture_compulsory
    return [m.to_json(explicit_empty_take=explicit and m.kind == "play") for m in state.history]


def state_deal(state: ChineseTenState) -> Deal:
    """The deal as it was known when the state was created."""
    return Deal(layout=state.initial_layout, hands=state.initial_hands, stock=state.initial_stock)


def state_record(state: ChineseTenState) -> dict[str, Any]:
    """The record of one deal as played so far (the journal exports this)."""
    return {
        "game": GAME,
        "rules": state.rules.name,
        "options": state.rules.options(),
        "players": state.players,
        "dealer": state.dealer,
        "deal": deal_json(state_deal(state)),
        "moves": moves_json(state),
    }


def _random_deal(players: int, seed: int, dealer: int, attempt: int) -> Deal:
    return Deal.from_deck(shuffled(standard_pack(), seed * 1000 + attempt), players=players, dealer=dealer)


def random_record(*, players: int | None, seed: int, rules: str | None) -> dict[str, Any]:
    """The record of one deal played by bots (seat 0 greedy, then random and greedy in turn)."""
    try:
        rule_set = rules_by_name(rules)
        n = players if players is not None else (3 if 3 in rule_set.players else rule_set.players[0])
        rule_set.check_players(n)
    except ConfigError as exc:
        raise RecordError(exc.key, exc.reason) from None
    bots = make_bots(["greedy", "random"] * 2, seed)[:n]
    for attempt in range(100):
        state = ChineseTenState.from_deal(rule_set, _random_deal(n, seed, 0, attempt), dealer=0)
        if not state.redeal_needed:
            break
    play_out(state, bots)
    return state_record(state)


def random_match_record(
    *, players: int | None, seed: int, rules: str | None, deals: int | None = None
) -> dict[str, Any]:
    """A match played by bots: ``deals`` deals, or until the rule set's target is reached."""
    rule_set = rules_by_name(rules)
    n = players if players is not None else (3 if 3 in rule_set.players else rule_set.players[0])
    count = deals if deals is not None else (None if rule_set.match_target else 3)
    match = Match(rule_set, players=n)
    bots = make_bots(["greedy", "random"] * 2, seed)[:n]
    out_deals = []
    attempt = 0
    while not match.over and (count is None or len(match.outcomes) < count):
        attempt += 1
        state = match.start_deal_from(_random_deal(n, seed, match.dealer, attempt))
        play_out(state, bots)
        out_deals.append({"dealer": state.dealer, "deal": deal_json(state_deal(state)), "moves": moves_json(state)})
        match.finish_deal(state)
    return {
        "game": GAME,
        "rules": rule_set.name,
        "options": rule_set.options(),
        "players": n,
        "dealer": 0,
        "deals": out_deals,
    }
