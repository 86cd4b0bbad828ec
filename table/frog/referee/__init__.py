"""The Frog referee: deal the packets, take the bids, watch the tricks, settle in chips.

A table game of Frog is a session of deals (``options["deals"]``, default one per player, or until a
Solo/Slough player cannot pay) with one chip ledger (:class:`table.frog.match.FrogMatch`) running
through it; every payment is journalled as a ``pay`` action.

One deal at the table:

1. **Deal.** With a dealer machine the referee shuffles and sends the packet plan of the rule set
   (:func:`table.frog.deal.deal_plan`: 3-(3)-4-4, 4-(3)-3-4, or singly with the 1st, 4th and 8th card
   to the slough), one card per command, to the active seats only (sitting-out seats get nothing).
   A card-reading machine tells each card, so every hand is known. Without a machine the dealer deals
   by hand; the camera counts the face-down cards reaching each seat and the widow, and a press says
   the deal is done (a wrong count is flagged before play).
2. **Auction, trump.** The seat to speak chooses at its button (a short press shows the next call,
   a long press accepts the one shown) or at the terminal (``Input("terminal", "bid", seat=s,
   text="frog")``, then ``confirm``). Trump for a Chico likewise (``kind="trump"``, ``text="S"``).
3. **Widow and discards (Frog).** Where the rules expose the widow, its three cards are turned face
   up in the widow zone and read; the bidder takes them up and lays three cards face down in the
   widow zone. With known hands the discards are named at the terminal (``kind="discard"``,
   ``data={"cards": [...]}``); a wrong number of face-down cards is flagged (``discard-count``).
4. **Tricks.** A card appearing in the trick area is the play of the seat whose turn it is (or of the
   seat its zone or the card reader names: ``out-of-turn``). With known hands a failure to follow
   or to trump is flagged at once (``revoke``) and the card must be taken back; with hidden hands
   the play is accepted if it could be legal and a revoke is flagged as soon as a later play proves
   it (the rule set's revoke penalty then applies at settlement). The completed trick's winner is
   lit (LED ``winner``) until its three cards are gathered; a card taken off an unfinished trick is
   flagged (``trick-disturbed``) until it is put back.
5. **Settlement** in chips with the rule set's rates and non-active payments, said as plain
   instructions ("seat 2 pays seat 0 20 chips").

Like every referee it is a pure function of its inputs (:mod:`table.controller.referee`).
"""

from table.frog.referee.base import (
    DISCARD_COUNT,
    FROG_VIOLATIONS,
    GAME,
    REVOKE,
    TABLE_OPTIONS,
    TRICK,
    TRICK_DISTURBED,
    FrogTable,
    Stage,
)
from table.frog.referee.referee import FrogReferee, export_record, make_referee, split_options
from table.frog.referee.settling import deal_summary, trick_points

__all__ = [
    "DISCARD_COUNT",
    "FROG_VIOLATIONS",
    "GAME",
    "REVOKE",
    "TABLE_OPTIONS",
    "TRICK",
    "TRICK_DISTURBED",
    "FrogReferee",
    "FrogTable",
    "Stage",
    "deal_summary",
    "export_record",
    "make_referee",
    "split_options",
    "trick_points",
]
