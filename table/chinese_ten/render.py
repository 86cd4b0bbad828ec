"""Plain-text pictures of a Chinese Ten deal for people: layout, hands, captures, scores."""

from __future__ import annotations

from collections.abc import Iterable

from table.cards import Card
from table.chinese_ten.moves import Move
from table.chinese_ten.scoring import margin_json
from table.chinese_ten.state import ChineseTenState, Outcome


def cards_text(cards: Iterable[Card], *, symbols: bool = False) -> str:
    text = " ".join(c.symbol_text if symbols else str(c) for c in cards)
    return text or "-"


def seat_name(state: ChineseTenState, seat: int) -> str:
    tags = []
    if seat == state.dealer:
        tags.append("dealer")
    if seat == state.to_act and not state.over:
        tags.append("to act")
    return f"seat {seat}" + (f" ({', '.join(tags)})" if tags else "")


def render_state(state: ChineseTenState, *, show_hands: bool = True, symbols: bool = False) -> str:
    """The table now: layout, stock, every seat's hand and captures."""
    lines = [
        f"layout: {cards_text(state.layout, symbols=symbols)}",
        f"stock:  {state.stock_left} cards" + (f" (top {state.stock_top})" if show_hands and state.stock_top else ""),
    ]
    width = max(len(seat_name(state, i)) for i in range(state.players))
    for seat in range(state.players):
        hand = state.hand(seat)
        if hand is not None and show_hands:
            held = cards_text(hand, symbols=symbols)
        else:
            held = f"{state.hand_count(seat)} cards"
        captured = state.captured(seat)
        lines.append(
            f"{seat_name(state, seat):<{width}}  hand: {held:<36}  captured {len(captured):>2} cards, "
            f"{state.scores[seat]:>3} points"
        )
    return "\n".join(lines)


def render_move(move: Move, state: ChineseTenState) -> str:
    """``seat 1 plays 7H, takes 3C (+10 points)`` with the points the capture earned."""
    if not move.take:
        return str(move)
    gained = state.card_points(move.card) + sum(state.card_points(c) for c in move.take)
    return f"{move} (+{gained} points)"


def render_outcome(outcome: Outcome, *, symbols: bool = False) -> str:
    """Final captures, points and margins, one line per seat."""
    lines = ["seat  points  margin  captured"]
    for s in outcome.seats:
        margin = margin_json(s.margin)
        lines.append(f"{s.seat:>4}  {s.points:>6}  {margin:>+6}  {cards_text(sorted(s.captured), symbols=symbols)}")
    best = outcome.winners
    if len(best) == 1:
        lines.append(f"seat {best[0]} captured the most points")
    else:
        lines.append(f"seats {', '.join(map(str, best))} tie for the most points")
    if outcome.leftover:
        lines.append(f"left on the layout and given to the last capturer: {cards_text(outcome.leftover)}")
    return "\n".join(lines)
