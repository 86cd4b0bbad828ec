"""The Chinese Ten referee: turn what the camera sees into moves, and flag what breaks the rules.

At seat ``s``'s turn:

1. a card appearing in the layout is ``s``'s play. If it can capture, ``s`` must take the pair
   away (the played card and one legal target; the special capture takes the three of the first
   layout); otherwise it joins the layout at once;
2. the top stock card is flipped (by the dealer machine on the referee's command, or by hand from
   the stock zone) and likewise captures or joins;
3. the turn passes left.

Violations are flagged the moment they happen, each with a message naming the seat, the cards and
the rule, and the seat's LED shows the error until the table is put right or the flag overridden:

* ``out-of-turn``: a card from another seat's hand (known from the dealer's card reader, or from
  the seat zone it came from) appears;
* ``two-cards``: a second card from the playing seat's hand appears;
* ``capture-compulsory``: the seat says it is done (button) while its card could capture;
* ``non-matching``: the played card is taken with a card it does not capture;
* ``wrong-card``: a layout card is taken that is neither the played card nor its capture.

The referee keeps two pictures: ``physical`` (the layout as seen) and the engine state (the legal
game). Putting right means bringing the first back to the second: the extra card taken back, the
wrongly taken cards put back, the compulsory capture made.

It is a pure function of its inputs (see :mod:`table.controller.referee`), so a journal replay
rebuilds it exactly. Each part of a deal is judged by its own module (``dealing``, ``layout``,
``captures``); :class:`table.chinese_ten.referee.referee.ChineseTenReferee` puts them together.
"""

from table.chinese_ten.referee.base import GAME, LAYOUT, STOCK, ChineseTenTable, TablePhase, result_json
from table.chinese_ten.referee.referee import ChineseTenReferee, export_record, make_referee

__all__ = [
    "GAME",
    "LAYOUT",
    "STOCK",
    "ChineseTenReferee",
    "ChineseTenTable",
    "TablePhase",
    "export_record",
    "make_referee",
    "result_json",
]
