"""The Garbage referee: face-up deals, the four phases in order, every coin said as an instruction.

A table game of Garbage is the engine's whole match (:class:`table.garbage.GarbageGame`: a hand of
poker, bingo, put and take and count-up per dealer, the deal passing left) with one coin ledger.

Cards. Whenever the engine awaits a card, the dealer machine is told to deal it (face up to
``seat:N`` for a poker card or a bought card, to the ``turnup`` row for a bingo call, a put-and-take
card or a count-up card), or, without a machine, the dealer deals or turns it by hand. The card is
read where the camera sees it land (the machine's card reader, when it has one, is a hint). With
several packs duplicate cards are expected, not errors; a card is impossible only when every copy
of it is already out of the stock.

Decisions (buying a card, stud betting) are chosen at the seat's button (a short press shows the
next choice, a hold accepts it) or at the terminal (``Input("terminal", "buy", seat=s)`` or
``kind="move", text="raise"``, then ``confirm``); the card given up after buying is the one the
player takes out of the hand (or ``Input("terminal", "discard", seat=s, card="7H")``).

Violations the camera sees, flagged at once with the seat's LED showing the error until put right:

* ``misplaced``: the awaited card lands in the wrong place (a turned card in a seat's hand, a poker
  card in the turn-up row or at another seat);
* ``out-of-turn``: a card dealt or turned while a player's decision is awaited;
* ``extra-card``: a card appears in a seat's hand that was not dealt to it;
* ``hand-disturbed``: a card is taken out of a hand that is still in play.

Every coin movement is a ``pay`` action and a plain instruction ("seat 4 pays the pot 6 coins";
"the dealer, seat 2, collects 7 coins from each player"). Like every referee it is a pure function
of its inputs (:mod:`table.controller.referee`).

Each part is judged by its own module (``requests``: the engine's requests and the coins said;
``decisions``: the seat's choices; ``cards``: the cards on the table and the dealer machine;
``instructions``: the coin movements as the table says them);
:class:`table.garbage.referee.referee.GarbageReferee` puts them together.
"""

from table.garbage.referee.base import (
    EXTRA_CARD,
    GAME,
    GARBAGE_VIOLATIONS,
    HAND_DISTURBED,
    MISPLACED,
    TURNUP,
    GarbageTable,
    Placed,
    target_of,
)
from table.garbage.referee.instructions import instructions, phase_lines
from table.garbage.referee.referee import GarbageReferee, export_record, make_referee, rules_for

__all__ = [
    "EXTRA_CARD",
    "GAME",
    "GARBAGE_VIOLATIONS",
    "HAND_DISTURBED",
    "MISPLACED",
    "TURNUP",
    "GarbageReferee",
    "GarbageTable",
    "Placed",
    "export_record",
    "instructions",
    "make_referee",
    "phase_lines",
    "rules_for",
    "target_of",
]
