"""Frog rule sets: frozen definitions, apart from any game state.

Every default is a field of :class:`RuleSet`, so a table can play its house rules with
``rule_set("modern").with_options(penalty_frog=True)``. Sources: seed 002 and the Frog part of
``rules.md``; ``docs/rules/frog.md`` names the clause behind each field.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass

from table.cards import Suit
from table.errors import ConfigError


class Contract(enum.IntEnum):
    """The three contracts, lowest first. Solo/Slough names them Frog, Simple Solo, Heart Solo."""

    FROG = 1
    CHICO = 2
    GRAND = 3

    @property
    def word(self) -> str:
        """The record word: ``frog``, ``chico``, ``grand``."""
        return self.name.lower()


CONTRACT_WORDS: dict[str, Contract] = {
    "frog": Contract.FROG,
    "chico": Contract.CHICO,
    "grand": Contract.GRAND,
    "simple-solo": Contract.CHICO,
    "heart-solo": Contract.GRAND,
}


class DealStyle(enum.Enum):
    """How the dealer (or the dealer machine) distributes the 36 cards."""

    PACKETS_3_3_4_4 = "3-(3)-4-4"  # Foster 1909: 3 each, 3 to the widow, 4 each, 4 each
    PACKETS_4_3_3_4 = "4-(3)-3-4"  # post-1950 sources
    SINGLE_1_4_8 = "single-1-4-8"  # Solo/Slough: singly, the 1st, 4th and 8th card to the slough


class NonActivePayment(enum.Enum):
    """Solo/Slough's three systems for players sitting out (seed 002)."""

    RECEIVE_ONLY = "receive"  # paid by a losing bidder, never pay a winning one (Frog's own rule)
    PAY_AND_RECEIVE = "both"  # also pay a winning bidder
    SOLO_BOTH = "solo-both"  # pay and receive for a Solo, only receive for a Frog


class Seating(enum.Enum):
    """Who plays when five sit at the table."""

    FOSTER = "foster"  # two on the dealer's left and the one on the right
    AFTER_DEALER = "after-dealer"  # the three after the dealer, as with six or seven


class RevokePenalty(enum.Enum):
    """What a proven revoke (failure to follow suit or to trump) costs."""

    LOSE_GAME = "lose-game"  # revoking side loses as if the bidder scored 0 (bidder) or 120 (opponent)
    NONE = "none"  # reported only; the deal is settled on the points as played


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One named variant. Rates are chips per point above or below 60, per opponent paid."""

    name: str
    min_players: int = 3
    max_players: int = 5
    deal_style: DealStyle = DealStyle.PACKETS_3_3_4_4
    contracts: tuple[Contract, ...] = (Contract.FROG, Contract.CHICO, Contract.GRAND)
    rates: tuple[int, int, int] = (1, 2, 4)  # per point: Frog, Chico, Grand
    fixed_payments: tuple[int, int, int] | None = None  # Coeur d'Alene: flat per opponent instead
    contract_names: tuple[str, str, str] = ("Frog", "Chico", "Grand")
    expose_widow: bool = True  # a Frog bidder shows the widow before taking it up
    non_active: NonActivePayment = NonActivePayment.RECEIVE_ONLY
    penalty_frog: bool = False  # a lost Frog pays at the Grand (Heart Solo) rate
    revoke_penalty: RevokePenalty = RevokePenalty.LOSE_GAME
    seating: Seating = Seating.FOSTER
    starting_chips: int = 0  # per seat; 0: balances start at zero and may go below it
    bust_ends_match: bool = False  # the first player unable to pay loses the game (Solo/Slough)

    def __post_init__(self) -> None:
        if not 3 <= self.min_players <= self.max_players <= 7:
            raise ConfigError(
                "players", f"need 3 <= min_players <= max_players <= 7, got {self.min_players}..{self.max_players}"
            )
        if not self.contracts or list(self.contracts) != sorted(set(self.contracts)):
            raise ConfigError("contracts", "need at least one contract, lowest first, no repeats")
        if any(r < 0 for r in self.rates) or (self.fixed_payments and any(p < 0 for p in self.fixed_payments)):
            raise ConfigError("rates", "payments cannot be negative")
        if self.bust_ends_match and self.starting_chips <= 0:
            raise ConfigError("starting_chips", "bust_ends_match needs a positive starting stake")

    def name_of(self, contract: Contract) -> str:
        return self.contract_names[contract - 1]

    def trump_for(self, contract: Contract) -> Suit | None:
        """Hearts for Frog and Grand; ``None`` for Chico, whose bidder names the suit."""
        return None if contract is Contract.CHICO else Suit.HEARTS

    def with_options(self, **options: object) -> RuleSet:
        """A copy with fields changed; enum fields also accept their string values."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, object] = {}
        for key, value in options.items():
            if key not in fields or key == "name":
                raise ConfigError(key, f"not a Frog rule option; options: {', '.join(sorted(fields))}")
            current = getattr(self, key)
            if isinstance(current, enum.Enum) and not isinstance(value, type(current)):
                try:
                    value = type(current)(value)
                except ValueError:
                    choices = ", ".join(str(m.value) for m in type(current))
                    raise ConfigError(key, f"{value!r} is not one of {choices}") from None
            elif isinstance(current, bool) and not isinstance(value, bool):
                raise ConfigError(key, f"expected true or false, got {value!r}")
            elif (
                isinstance(current, int)
                and not isinstance(current, bool)
                and (not isinstance(value, int) or isinstance(value, bool))
            ):
                raise ConfigError(key, f"expected a whole number, got {value!r}")
            elif isinstance(value, list):
                value = tuple(Contract[v.upper()] if key == "contracts" and isinstance(v, str) else v for v in value)
            changes[key] = value
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


_SOLO = dict(
    max_players=7,
    deal_style=DealStyle.SINGLE_1_4_8,
    rates=(1, 2, 3),
    contract_names=("Frog", "Simple Solo", "Heart Solo"),
    expose_widow=False,
    starting_chips=11 * 10 + 10 * 1,
    bust_ends_match=True,
)

RULE_SETS: Mapping[str, RuleSet] = {
    "foster-1909": RuleSet("foster-1909"),
    "modern": RuleSet("modern", deal_style=DealStyle.PACKETS_4_3_3_4, expose_widow=False),
    "solo-slough": RuleSet("solo-slough", **_SOLO),  # type: ignore[arg-type]
    "straight-solo": RuleSet(
        "straight-solo",
        **{  # type: ignore[arg-type]
            **_SOLO,
            "contracts": (Contract.CHICO, Contract.GRAND),
            "rates": (0, 1, 2),
        },
    ),
    "coeur-d-alene": RuleSet(
        "coeur-d-alene",
        **{  # type: ignore[arg-type]
            **_SOLO,
            "fixed_payments": (25, 50, 75),
        },
    ),
}

DEFAULT_RULES = "foster-1909"


def rule_set(name: str | None = None) -> RuleSet:
    """The named rule set (default ``foster-1909``); :class:`ConfigError` for an unknown name."""
    key = DEFAULT_RULES if name is None else name
    try:
        return RULE_SETS[key]
    except KeyError:
        raise ConfigError("rules", f"unknown Frog rule set {key!r}; expected one of {', '.join(RULE_SETS)}") from None
