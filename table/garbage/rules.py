"""The rules of a Garbage table: a frozen definition, apart from any game state.

Defaults follow seed 004's main text and, where it is silent, ``reference/rules.md``. Every
variation listed in the seed is an option; ``docs/rules/garbage.md`` names the clause each one
settles. Named rule sets bundle common house rules; any option can be changed on top of one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from table.errors import ConfigError

BingoTie = Literal["share", "most-coins", "kitty"]
KittyReplay = Literal["next-hand", "now"]
OddCoins = Literal["dealer-left", "kitty"]
PHASES = ("poker", "bingo", "put-and-take", "count-up")


@dataclass(frozen=True, slots=True)
class GarbageRules:
    """One table's rules. Construct with keywords; :meth:`validate` reports a bad value."""

    name: str = "standard"
    # Players and coins
    start_coins: int = 100
    packs: int | None = None  # None: two packs for 3-5 players, three for 6 or more
    deals_per_seat: int = 1  # a match ends when every player has dealt this often
    debt: bool = True  # a player out of coins keeps paying into debt (rules.md)
    odd_coins: OddCoins = "dealer-left"  # indivisible remainder of a shared pot
    dealer_plays: bool = True  # the dealer has a poker and bingo hand (rules.md)
    # Poker
    ante: int = 5
    hand_size: int = 5  # 7: seven cards, best five, all seven kept (variation)
    four_flush: bool = False  # four of one suit ranks between a pair and two pairs
    buy_price: int = 0  # > 0: each player may buy one extra card, discarding one
    stud: bool = False  # five-card stud: betting rounds after the 3rd and 4th cards
    stud_bet: int = 5  # fixed bet and raise size in stud rounds
    stud_raises: int = 3  # most raises in one betting round
    # Bingo
    bingo_after_put_and_take: bool = False  # bingo as phase 3; the dealer only calls
    bingo_tie: BingoTie = "share"
    kitty_replay: KittyReplay = "next-hand"  # with bingo_tie="kitty": when the kitty is played for
    # Put and take
    put_and_take_cards: int = 10  # cards turned in each half (variation: 5)
    rank_and_suit_double: bool = False  # a card matching rank and suit puts or takes double
    sets_multiply: bool = False  # a pair pays x2, three of a kind x3 (7th card, three: 63)
    # Count-up
    count_up_cards: int = 13  # variation: 10
    no_hit_penalty: int = 0  # variation: 5 to each player when the dealer hits nothing
    consecutive_hits_multiply: bool = False  # 2nd consecutive hit pays x2, 3rd x3, ...

    def packs_for(self, players: int) -> int:
        if self.packs is not None:
            return self.packs
        return 2 if players <= 5 else 3

    @property
    def phase_order(self) -> tuple[str, ...]:
        if self.bingo_after_put_and_take:
            return ("poker", "put-and-take", "bingo", "count-up")
        return PHASES

    def replace(self, **changes: Any) -> GarbageRules:
        try:
            rules = dataclasses.replace(self, **changes)
        except TypeError as exc:
            raise ConfigError("rules", str(exc)) from None
        rules.validate()
        return rules

    def validate(self, players: int | None = None) -> None:
        """Raise :class:`ConfigError` naming the first option that cannot work."""

        def need(ok: bool, key: str, reason: str) -> None:
            if not ok:
                raise ConfigError(key, reason)

        for key in ("start_coins", "ante", "buy_price", "stud_bet", "stud_raises", "no_hit_penalty"):
            value = getattr(self, key)
            need(_whole(value) and value >= 0, key, f"must be a whole number of coins, 0 or more, not {value!r}")
        need(
            self.packs is None or (_whole(self.packs) and 1 <= self.packs <= 8),
            "packs",
            f"must be 1 to 8 packs (or unset for 2 or 3 by player count), not {self.packs!r}",
        )
        need(
            _whole(self.deals_per_seat) and 1 <= self.deals_per_seat <= 100,
            "deals_per_seat",
            f"must be 1 to 100, not {self.deals_per_seat!r}",
        )
        need(
            _whole(self.hand_size) and self.hand_size in (5, 6, 7),
            "hand_size",
            f"must be 5, 6 or 7 cards, not {self.hand_size!r}",
        )
        need(
            _whole(self.put_and_take_cards) and 1 <= self.put_and_take_cards <= 13,
            "put_and_take_cards",
            f"must be 1 to 13 cards, not {self.put_and_take_cards!r}",
        )
        need(
            _whole(self.count_up_cards) and 1 <= self.count_up_cards <= 13,
            "count_up_cards",
            f"must be 1 to 13 cards (ace to king), not {self.count_up_cards!r}",
        )
        need(
            self.bingo_tie in ("share", "most-coins", "kitty"),
            "bingo_tie",
            f"must be share, most-coins or kitty, not {self.bingo_tie!r}",
        )
        need(
            self.kitty_replay in ("next-hand", "now"),
            "kitty_replay",
            f"must be next-hand or now, not {self.kitty_replay!r}",
        )
        need(
            self.odd_coins in ("dealer-left", "kitty"),
            "odd_coins",
            f"must be dealer-left or kitty, not {self.odd_coins!r}",
        )
        for key in (
            "debt",
            "dealer_plays",
            "four_flush",
            "stud",
            "bingo_after_put_and_take",
            "rank_and_suit_double",
            "sets_multiply",
            "consecutive_hits_multiply",
        ):
            need(isinstance(getattr(self, key), bool), key, "must be true or false")
        need(not (self.stud and self.hand_size != 5), "stud", "five-card stud deals five cards (hand_size 5)")
        if players is not None:
            need(_whole(players) and 3 <= players <= 12, "players", f"Garbage needs 3 to 12 players, not {players!r}")
            in_hands = players * self.hand_size
            need(
                self.packs_for(players) * 52 >= in_hands + 20,
                "packs",
                f"{self.packs_for(players)} pack(s) cannot serve {players} hands of {self.hand_size}",
            )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _set(**changes: Any) -> GarbageRules:
    return dataclasses.replace(GarbageRules(), **changes)


RULE_SETS: dict[str, GarbageRules] = {
    "standard": GarbageRules(),
    "four-flush": _set(name="four-flush", four_flush=True),
    "seven-card": _set(name="seven-card", hand_size=7),
    "stud": _set(name="stud", stud=True),
    "buy": _set(name="buy", buy_price=5),
    "short": _set(name="short", put_and_take_cards=5, count_up_cards=10),
    "bingo-kitty": _set(name="bingo-kitty", bingo_tie="kitty"),
    "high-stakes": _set(
        name="high-stakes",
        rank_and_suit_double=True,
        sets_multiply=True,
        consecutive_hits_multiply=True,
        no_hit_penalty=5,
    ),
    "everything": _set(
        name="everything",
        four_flush=True,
        buy_price=5,
        stud=True,
        bingo_tie="most-coins",
        rank_and_suit_double=True,
        sets_multiply=True,
        consecutive_hits_multiply=True,
        no_hit_penalty=5,
    ),
}


def _option_value(key: str, text: str) -> Any:
    field_types = {f.name: f.type for f in dataclasses.fields(GarbageRules)}
    if key not in field_types:
        raise ConfigError(key, f"no such Garbage option; options: {', '.join(sorted(field_types))}")
    kind = str(field_types[key])
    if kind == "bool":
        if text.lower() in ("true", "yes", "1", "on"):
            return True
        if text.lower() in ("false", "no", "0", "off"):
            return False
        raise ConfigError(key, f"expected true or false, not {text!r}")
    if "int" in kind:
        if kind.startswith("int | None") and text.lower() in ("none", "auto"):
            return None
        try:
            return int(text)
        except ValueError:
            raise ConfigError(key, f"expected a whole number, not {text!r}") from None
    return text


def rules_named(spec: str | None) -> GarbageRules:
    """``standard``, ``stud``, or a set with changes: ``stud,ante=2,four_flush=true``."""
    if spec is None or spec == "":
        return RULE_SETS["standard"]
    name, *changes = [part.strip() for part in spec.split(",")]
    if name not in RULE_SETS:
        raise ConfigError("rules", f"unknown Garbage rule set {name!r}; known: {', '.join(RULE_SETS)}")
    rules = RULE_SETS[name]
    updates: dict[str, Any] = {}
    for change in changes:
        key, eq, text = change.partition("=")
        if not eq:
            raise ConfigError("rules", f"expected option=value, not {change!r}")
        updates[key.strip()] = _option_value(key.strip(), text.strip())
    return rules.replace(**updates) if updates else rules


def rules_from_json(value: object) -> GarbageRules:
    """A record's ``rules``: a rule-set name, or ``{"base": name, option: value, ...}``."""
    if value is None or isinstance(value, str):
        return rules_named(value)
    if not isinstance(value, dict):
        raise ConfigError("rules", f"expected a rule-set name or an object, not {value!r}")
    base = value.get("base", "standard")
    if not isinstance(base, str):
        raise ConfigError("rules.base", f"expected a rule-set name, not {base!r}")
    rules = rules_named(base)
    names = {f.name for f in dataclasses.fields(GarbageRules)}
    updates = {k: v for k, v in value.items() if k != "base"}
    for key in updates:
        if key not in names:
            raise ConfigError(f"rules.{key}", f"no such Garbage option; options: {', '.join(sorted(names))}")
    return rules.replace(**updates) if updates else rules


def rules_to_json(rules: GarbageRules) -> dict[str, Any]:
    """Only the options that differ from the named set, so records stay short."""
    base = RULE_SETS.get(rules.name, RULE_SETS["standard"])
    out: dict[str, Any] = {"base": base.name}
    for f in dataclasses.fields(GarbageRules):
        if f.name != "name" and getattr(rules, f.name) != getattr(base, f.name):
            out[f.name] = getattr(rules, f.name)
    return out
