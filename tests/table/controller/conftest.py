"""Fixtures shared by the controller tests: a player answering the referee's questions about a card by
button, as people at the table do."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table.controller.referee import Action, Input

Answerer = Callable[..., list[str]]


def _answer_until_named(
    send: Callable[[Input], list[Action]], got: list[Action], card: str, seat: int, *, most: int = 60
) -> list[str]:
    """Answer each prompt in ``got`` and the replies that follow, pressing (yes) when ``card`` is what it
    asks about and holding (no) otherwise, until the card itself is confirmed. Returns what was asked in
    order: card names, and single letters for the suits asked."""
    asked: list[str] = []
    while True:
        prompt = next(a for a in got if a["do"] == "prompt")
        question = prompt.get("suit") or prompt["card"]
        asked.append(str(question))
        assert len(asked) <= most, asked
        assert not any(a["do"] == "say" and "ignored" in a["text"] for a in got), got
        yes = card[-1] == prompt["suit"] if prompt.get("suit") else prompt["card"] == card
        got = send(Input("button", "short" if yes else "long", seat=seat))
        if yes and question == card:
            return asked


@pytest.fixture
def answer_until_named() -> Answerer:
    return _answer_until_named
