"""The examples in the docstrings of the public value types (cards, records, referee actions, the questions
asked at the table, the seats' LED roles, a deck profile's weighing) run and give what they show."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import table.cards
import table.controller.questions
import table.controller.referee
import table.controller.referee_base
import table.records
import vision.deck_match


@pytest.mark.parametrize(
    "module",
    [
        table.cards,
        table.records,
        table.controller.questions,
        table.controller.referee,
        table.controller.referee_base,
        vision.deck_match,
    ],
    ids=lambda m: m.__name__,
)
def test_the_docstring_examples_hold(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.attempted > 0, f"{module.__name__} has no examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {module.__name__} failed"
