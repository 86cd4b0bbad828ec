"""The table page's errors (all :class:`~table.errors.TableError`, and builtins where they fit)."""

from __future__ import annotations

from table.errors import TableError


class WebError(TableError):
    """Root of the table page's errors."""


class AddressError(WebError, ValueError):
    """A ``--web`` address that is not ``[HOST:]PORT``, or one the server cannot listen on."""


class BadInput(WebError, ValueError):
    """A host input the server refuses (malformed JSON, an unknown command, a seat or card out of range)."""


class TooManyViewers(WebError, RuntimeError):
    """Every viewer place is taken; the server answers 503 until one leaves."""


class TableSilent(WebError, TimeoutError):
    """The controller did not answer the page's server in time (a host input was not posted)."""


class ServerLost(WebError, RuntimeError):
    """The page's server process did not start, or stopped."""


class NoTable(WebError, RuntimeError):
    """A host input arrived while no game is being refereed (between two deals, or after the game)."""
