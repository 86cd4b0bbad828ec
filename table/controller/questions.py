"""What a referee asks people at the table: whether a card reading is right (:class:`Prompt`), and which of a
seat's decisions it takes (:class:`Choice`). Both are frozen values: a referee answering a question opens a
new one (``dataclasses.replace``), so a world that remembers the question it answered can tell it from the
next.

:meth:`Prompt.to_json` is the open prompt as a referee's ``view()`` shows it; :func:`prompt_question` reads
that form back for a panel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from table.controller.referee import Input

SUIT_NAMES = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
NAMES_BEFORE_SUIT = 3
"""Cards asked by name before the suit is asked: the camera's first guesses are usually right when it has
any idea; after them its ranking is little better than chance, and the suit halves what is left twice."""

ChoiceKind = Literal["bid", "trump", "move"]


@dataclass(frozen=True, slots=True)
class Prompt:
    """A card reading awaiting confirmation: people at ``seat`` are asked whether the sighting ``input`` is
    ``card`` or, when ``suit`` is set, whether it is a card of that suit (``card`` is then None).
    ``alternatives`` are the other cards it may be, best first; ``refused`` counts the names said no to.

    >>> sighting = Input("table", "appeared", "8D", "layout", candidates=(("8D", 0.6), ("8H", 0.3)))
    >>> p = Prompt(0, "8D", None, ("8H",), 0, sighting)
    >>> p.yes_cards(), p.to_json()["alternatives"]
    (('8D',), ['8H'])
    """

    seat: int
    card: str | None
    suit: str | None
    alternatives: tuple[str, ...]
    refused: int
    input: Input  # the sighting asked about, as the journal holds it (probabilities rounded)

    @classmethod
    def about(cls, seat: int, ranked: Sequence[str], sighting: Input) -> Prompt:
        """The first question about ``sighting``: is it ``ranked[0]``?"""
        return cls(seat, ranked[0], None, tuple(ranked[1:]), 0, Input.from_json(sighting.to_json()))

    def yes_cards(self) -> tuple[str, ...]:
        """The cards for which the answer is yes (what a player looking at the table checks)."""
        if self.suit is not None:
            return tuple(c for c in self.alternatives if c[-1] == self.suit)
        return (str(self.card),)

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "card": self.card,
            "suit": self.suit,
            "alternatives": list(self.alternatives),
            "refused": self.refused,
            "input": self.input.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Choice:
    """A decision being chosen at ``seat``'s button or the terminal: a short press shows the next of
    ``options``, ``index`` is the one shown; ``kind`` says what is decided (Frog: ``bid`` or ``trump``,
    Garbage: ``move``).

    >>> c = Choice(2, "move", ("buy", "stand"))
    >>> c.shown, c.stepped().shown, c.stepped().stepped().shown
    ('buy', 'stand', 'buy')
    """

    seat: int
    kind: ChoiceKind
    options: tuple[str, ...]
    index: int = 0

    @property
    def shown(self) -> str:
        return self.options[self.index]

    def showing(self, option: str) -> Choice:
        """The same choice with ``option`` (one of ``options``) shown."""
        return dataclasses.replace(self, index=self.options.index(option))

    def stepped(self) -> Choice:
        """The same choice with the next option shown (after the last, the first)."""
        return dataclasses.replace(self, index=(self.index + 1) % len(self.options))

    def reset(self) -> Choice:
        """The same choice with the first option shown."""
        return dataclasses.replace(self, index=0)


def next_question(
    alternatives: Sequence[str], refused: int, *, settled: bool = False
) -> tuple[str | None, str | None, list[str]] | None:
    """The next question about a card that may be any of ``alternatives`` (best first) after ``refused``
    names were said no to: ``(card, None, rest)`` asks "is it card?"; ``(None, suit, alternatives)`` asks
    "is it a <suit>?" (suits in the order of their best card). The suit is asked once ``NAMES_BEFORE_SUIT``
    names were refused and more than four cards of more than one suit remain, unless ``settled`` (people
    said yes to a suit). None when no card is left."""
    if not alternatives:
        return None
    suits = list(dict.fromkeys(c[-1] for c in alternatives))
    if not settled and refused >= NAMES_BEFORE_SUIT and len(suits) > 1 and len(alternatives) > 4:
        return None, suits[0], list(alternatives)
    return alternatives[0], None, list(alternatives[1:])


def prompt_yes_cards(prompt: Prompt | None) -> tuple[str, ...]:
    """The cards for which the open prompt's answer is yes; none when no prompt is open."""
    return () if prompt is None else prompt.yes_cards()


def prompt_question(prompt: Mapping[str, Any]) -> str:
    """The open prompt's question for a panel, from its JSON form (:meth:`Prompt.to_json`, as ``view()`` shows
    it): "is it 8D?" or "is it a heart?"."""
    if prompt.get("suit") is not None:
        return f"is it a {SUIT_NAMES[prompt['suit']]}?"
    return f"is it {prompt['card']}?"
