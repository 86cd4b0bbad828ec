"""Chinese Ten rule sets: frozen definitions, apart from any game state.

A :class:`RuleSet` says everything a table may choose; the named sets in :data:`RULE_SETS` are
``pagat`` (the default), ``g4a`` and ``red-frog-black-frog``. Any option can be overridden:

>>> rules_by_name("pagat", capture_compulsory=False).capture_compulsory
False

Each option and the clause of the sources it settles is documented in ``docs/rules/chinese-ten.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table.cards import Card, Rank
from table.errors import CardParseError, ConfigError

SPECIAL_CAPTURE = "special-capture"
REDEAL = "redeal"
INITIAL_TRIPLE_RULES = (SPECIAL_CAPTURE, REDEAL)

POINT_TABLES = ("pagat", "g4a", "red-frog-black-frog")
SETTLEMENTS = ("tie", "mean")
MATCH_TOTALS = ("margin", "points")

# Ranks whose three or four in the first layout trigger the special rule (seeds 001/003, rules.md).
# Fives are included under ``redeal`` too: three fives left on the layout could never all be taken.
TRIPLE_RANKS: frozenset[Rank] = frozenset({Rank.FIVE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING})


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One variant of Chinese Ten. Every field is an option a table may override.

    * ``players``: the player counts allowed (each gets 24/n cards).
    * ``dealer_plays_first``: the dealer leads instead of the player on the dealer's left (Taiwan).
    * ``capture_compulsory``: a card that can capture must capture. When ``False`` a played card may
      be laid instead; flipped cards always capture. Cards left on the layout at the end then go to
      the last player who captured (the dealer if nobody did).
    * ``initial_triple``: ``"special-capture"`` (the fourth card of the rank takes all three; four of
      a kind go to the dealer at once) or ``"redeal"`` (the same dealer deals again).
    * ``point_table``: ``"pagat"`` (by player count), ``"g4a"`` or ``"red-frog-black-frog"``;
      ``card_points`` overrides single cards, e.g. ``(("AH", 10), ("AD", 10))`` for Barraco.
    * ``settlement``: ``"tie"`` (margin = points - tie score for the player count) or ``"mean"``
      (margin = points - the table's mean, for sets without a tie score).
    * ``match_total``: what a match adds up over deals, ``"margin"`` or ``"points"``;
      ``match_target``: the match ends when a total reaches it (``None``: the table decides).
    """

    name: str = "pagat"
    players: tuple[int, ...] = (2, 3, 4)
    dealer_plays_first: bool = False
    capture_compulsory: bool = True
    initial_triple: str = SPECIAL_CAPTURE
    point_table: str = "pagat"
    card_points: tuple[tuple[str, int], ...] = ()
    settlement: str = "tie"
    tie_scores: tuple[tuple[int, int], ...] = ((2, 105), (3, 80), (4, 70))
    match_total: str = "margin"
    match_target: int | None = None

    def __post_init__(self) -> None:
        if not self.players or any(n not in (2, 3, 4) for n in self.players):
            raise ConfigError("players", f"Chinese Ten is for 2, 3 or 4 players, not {list(self.players)}")
        if self.initial_triple not in INITIAL_TRIPLE_RULES:
            raise ConfigError(
                "initial_triple", f"expected one of {', '.join(INITIAL_TRIPLE_RULES)}, not {self.initial_triple!r}"
            )
        if self.point_table not in POINT_TABLES:
            raise ConfigError("point_table", f"expected one of {', '.join(POINT_TABLES)}, not {self.point_table!r}")
        if self.settlement not in SETTLEMENTS:
            raise ConfigError("settlement", f"expected one of {', '.join(SETTLEMENTS)}, not {self.settlement!r}")
        if self.match_total not in MATCH_TOTALS:
            raise ConfigError("match_total", f"expected one of {', '.join(MATCH_TOTALS)}, not {self.match_total!r}")
        for text, value in self.card_points:
            try:
                Card.parse(text)
            except CardParseError as exc:
                raise ConfigError("card_points", str(exc)) from None
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError("card_points", f"points of {text} must be a whole number, not {value!r}")
        if self.settlement == "tie":
            known = dict(self.tie_scores)
            missing = [n for n in self.players if n not in known]
            if missing:
                raise ConfigError("tie_scores", f"no tie score for {missing[0]} players")
        if self.match_target is not None and (isinstance(self.match_target, bool) or self.match_target <= 0):
            raise ConfigError("match_target", f"must be a positive number of points, not {self.match_target!r}")

    @property
    def special_capture(self) -> bool:
        return self.initial_triple == SPECIAL_CAPTURE

    def hand_size(self, players: int) -> int:
        self.check_players(players)
        return 24 // players

    def check_players(self, players: int) -> None:
        if players not in self.players:
            allowed = ", ".join(str(n) for n in self.players)
            raise ConfigError("players", f"the {self.name} rules are for {allowed} players, not {players}")

    def tie_score(self, players: int) -> int | None:
        return dict(self.tie_scores).get(players)

    def options(self) -> dict[str, Any]:
        """The options that differ from the named set this one derives from (for records)."""
        base = RULE_SETS.get(self.name)
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            if base is None or value != getattr(base, f.name):
                out[f.name] = _option_to_json(f.name, value)
        return out


def _option_to_json(key: str, value: Any) -> Any:
    if key == "card_points":
        return {text: pts for text, pts in value}
    if key == "tie_scores":
        return {str(n): score for n, score in value}
    if key == "players":
        return list(value)
    return value


RULE_SETS: dict[str, RuleSet] = {
    "pagat": RuleSet(),
    "g4a": RuleSet(
        name="g4a",
        players=(3,),
        point_table="g4a",
        # G4A names no tie score; 240 points shared by three is 80, as pagat's.
        tie_scores=((2, 120), (3, 80), (4, 60)),
        match_total="points",
        match_target=1000,
    ),
    "red-frog-black-frog": RuleSet(name="red-frog-black-frog", point_table="red-frog-black-frog", settlement="mean"),
}
DEFAULT_RULES = "pagat"

_BOOL_OPTIONS = ("dealer_plays_first", "capture_compulsory")
_STR_OPTIONS = ("initial_triple", "point_table", "settlement", "match_total")


def rules_by_name(name: str | None = None, /, **overrides: Any) -> RuleSet:
    """The named rule set (``pagat`` when ``None``) with ``overrides`` applied.

    Overrides take plain values as a JSON record holds them: ``players=[3]``,
    ``card_points={"AH": 10}``, ``tie_scores={"3": 80}``. Anything wrong is a :class:`ConfigError`
    naming the option.
    """
    key = DEFAULT_RULES if name is None else name
    if key not in RULE_SETS:
        raise ConfigError("rules", f"unknown Chinese Ten rule set {key!r}; expected one of {', '.join(RULE_SETS)}")
    base = RULE_SETS[key]
    if not overrides:
        return base
    changes: dict[str, Any] = {}
    for option, value in overrides.items():
        changes[option] = _convert_option(option, value)
    return dataclasses.replace(base, **changes)


def _convert_option(option: str, value: Any) -> Any:
    if option in _BOOL_OPTIONS:
        if not isinstance(value, bool):
            raise ConfigError(option, f"expected true or false, not {value!r}")
        return value
    if option in _STR_OPTIONS:
        if not isinstance(value, str):
            raise ConfigError(option, f"expected text, not {value!r}")
        return value
    if option == "players":
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list | tuple) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in value
        ):
            raise ConfigError(option, f"expected a list of player counts, not {value!r}")
        return tuple(value)
    if option == "match_target":
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ConfigError(option, f"expected a number of points or null, not {value!r}")
        return value
    if option == "card_points":
        items = value.items() if isinstance(value, Mapping) else value
        try:
            pairs = tuple((str(Card.parse(str(text))), pts) for text, pts in items)
        except (CardParseError, TypeError, ValueError) as exc:
            raise ConfigError(option, f"expected a map of card to points: {exc}") from None
        return pairs
    if option == "tie_scores":
        if not isinstance(value, Mapping):
            raise ConfigError(option, f"expected a map of player count to tie score, not {value!r}")
        try:
            return tuple(sorted((int(n), int(score)) for n, score in value.items()))
        except (TypeError, ValueError):
            raise ConfigError(option, f"expected whole numbers, not {dict(value)!r}") from None
    if option == "name":
        raise ConfigError(option, "the name is chosen by the rule set, not an option")
    known = [f.name for f in dataclasses.fields(RuleSet) if f.name != "name"]
    raise ConfigError(option, f"unknown option; expected one of {', '.join(known)}")
