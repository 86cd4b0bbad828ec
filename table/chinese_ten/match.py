"""A match: several deals of Chinese Ten, the deal passing left, totals kept per seat.

::

    match = Match(rules_by_name("g4a"), players=3)
    while not match.over:
        state = match.start_deal_from_deck(deck)   # or start_deal(layout=..., hands=..., stock=...)
        ... play the deal ...
        match.finish_deal(state)

``totals`` adds up what the rule set's ``match_total`` names (G4A: points, to 1000; pagat and Red
Frog: margins). A redeal (three of a kind in the first layout under the redeal rule) is finished
like a deal but counts nothing and the same dealer deals again. The match is over once a total
reaches ``target`` with a single leader; a tie at the top plays on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from table.cards import Card
from table.chinese_ten.rules import RuleSet
from table.chinese_ten.state import ChineseTenState, Deal, Outcome
from table.errors import ConfigError, IllegalMoveError


class Match:
    def __init__(self, rules: RuleSet, *, players: int, dealer: int = 0, target: int | None = None) -> None:
        rules.check_players(players)
        if not 0 <= dealer < players:
            raise ConfigError("dealer", f"the dealer must be a seat 0 to {players - 1}, not {dealer}")
        self.rules = rules
        self.players = players
        self.dealer = dealer  # the dealer of the next (or current) deal
        self.target = rules.match_target if target is None else target
        self.outcomes: list[Outcome] = []
        self.redeals = 0
        self._current: ChineseTenState | None = None

    # -- deals ----------------------------------------------------------------------------------

    def start_deal(
        self,
        *,
        layout: Iterable[Card | str],
        hands: Sequence[Iterable[Card | str]] | None = None,
        stock: Iterable[Card | str] | None = None,
    ) -> ChineseTenState:
        self._check_can_start()
        self._current = ChineseTenState(
            self.rules, players=self.players, dealer=self.dealer, layout=layout, hands=hands, stock=stock
        )
        return self._current

    def start_deal_from(self, deal: Deal) -> ChineseTenState:
        return self.start_deal(layout=deal.layout, hands=deal.hands, stock=deal.stock)

    def start_deal_from_deck(self, deck: Sequence[Card]) -> ChineseTenState:
        return self.start_deal_from(Deal.from_deck(deck, players=self.players, dealer=self.dealer))

    def _check_can_start(self) -> None:
        if self.over:
            raise IllegalMoveError(f"the match is over: seat {self.winner} won with {self.totals[self.winner or 0]}")
        if self._current is not None:
            raise IllegalMoveError("finish the current deal before dealing again")

    def finish_deal(self, state: ChineseTenState) -> Outcome | None:
        """Count a finished deal and pass the deal left; a redeal keeps the dealer. Returns the outcome."""
        if state is not self._current:
            raise IllegalMoveError("that deal does not belong to this match")
        if state.redeal_needed:
            self.redeals += 1
            self._current = None
            return None
        outcome = state.outcome
        if outcome is None:
            raise IllegalMoveError(f"the deal is not over: {state.stock_left} stock cards are left")
        self.outcomes.append(outcome)
        self.dealer = (self.dealer + 1) % self.players
        self._current = None
        return outcome

    @property
    def current(self) -> ChineseTenState | None:
        return self._current

    # -- totals -----------------------------------------------------------------------------------

    @property
    def points_totals(self) -> tuple[int, ...]:
        return tuple(sum(o.points[i] for o in self.outcomes) for i in range(self.players))

    @property
    def margin_totals(self) -> tuple[int | Fraction, ...]:
        totals: list[int | Fraction] = [0] * self.players
        for outcome in self.outcomes:
            for i, margin in enumerate(outcome.margins):
                totals[i] += margin
        return tuple(int(t) if isinstance(t, Fraction) and t.denominator == 1 else t for t in totals)

    @property
    def totals(self) -> tuple[int | Fraction, ...]:
        """What the rule set adds up: points (G4A) or margins (pagat, Red Frog)."""
        return self.points_totals if self.rules.match_total == "points" else self.margin_totals

    @property
    def leaders(self) -> tuple[int, ...]:
        totals = self.totals
        best = max(totals)
        return tuple(i for i, t in enumerate(totals) if t == best)

    @property
    def over(self) -> bool:
        if self.target is None or not self.outcomes:
            return False
        return max(self.totals) >= self.target and len(self.leaders) == 1

    @property
    def winner(self) -> int | None:
        return self.leaders[0] if self.over else None
