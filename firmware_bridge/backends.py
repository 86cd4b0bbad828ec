"""Backends for :class:`firmware_bridge.dealer.Dealer`, swappable as gpiozero's pin factories are.

- ``serial``: a real link opened by URL (``/dev/ttyACM0``, a pty path, ``socket://host:port``);
- any other backend is looked up by name: the simulator registers ``sim`` (served in-process on a
  pseudo-terminal, opened through pyserial like a board) and ``mock`` (the same simulated machine behind
  an in-memory pipe: unit tests), see :mod:`firmware_bridge.sim_backends`.

A backend registers itself as gpiozero's pin factories do: an entry point in the group
``cardtable.dealer_backends`` (``name = "module:factory"`` in ``pyproject.toml``), or
:func:`register_backend` at run time. This module never imports a simulator.

The default is chosen lazily: the ``url`` argument, else ``$CARDTABLE_DEALER`` (a URL or a backend name).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from firmware_bridge.errors import LinkError
from firmware_bridge.link import Port, open_serial

if TYPE_CHECKING:
    from firmware_bridge.simulator import Simulator

ENV_VAR = "CARDTABLE_DEALER"
ENTRY_POINT_GROUP = "cardtable.dealer_backends"


@dataclass
class Backend:
    """How a Dealer reaches its device: a URL plus an opener, and whatever must be stopped on close."""

    name: str
    url: str
    opener: Callable[[str], Port]
    simulator: Simulator | None = None
    stop: Callable[[], None] | None = None  # what closing the backend must stop (a served simulator)

    def close(self) -> None:
        if self.stop is not None:
            self.stop()


BackendFactory = Callable[..., Backend]
"""Makes a backend from keyword options (for the simulator's: :class:`~firmware_bridge.simulator.Simulator`'s)."""

_registered: dict[str, BackendFactory] = {}


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make ``name`` a backend (``Dealer.open(backend=name)``, ``$CARDTABLE_DEALER=name``) built by ``factory``."""
    _registered[name] = factory


def backend_factory(name: str) -> BackendFactory | None:
    """The factory registered as ``name``: at run time, else by an installed entry point; None if none."""
    if name not in _registered:
        for point in entry_points(group=ENTRY_POINT_GROUP, name=name):
            _registered[name] = point.load()
    return _registered.get(name)


def backend_names() -> list[str]:
    """Every backend name known now: ``serial`` and the registered ones."""
    return sorted({"serial", *_registered, *(point.name for point in entry_points(group=ENTRY_POINT_GROUP))})


def serial_backend(url: str) -> Backend:
    return Backend("serial", url, open_serial)


def resolve(url: str | None, backend: str | Backend | None, **sim_options: Any) -> Backend:
    """Pick the backend: an explicit one, else from the URL, else from ``$CARDTABLE_DEALER``."""
    if isinstance(backend, Backend):
        return backend
    choice = backend or url or os.environ.get(ENV_VAR)
    if not choice:
        raise LinkError(f"no dealer port given: pass a URL or set {ENV_VAR} (a URL or a backend name)")
    if choice == "serial":
        if not url:
            raise LinkError("the serial backend needs a URL")
        return serial_backend(url)
    factory = backend_factory(choice)
    if factory is not None:
        return factory(**sim_options)
    if backend is not None:
        raise LinkError(
            f"no dealer backend {backend!r} (known: {', '.join(backend_names())}; "
            "a backend installed as an entry point needs the package reinstalled: make setup)"
        )
    return serial_backend(choice)
