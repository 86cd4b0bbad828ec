"""The one error root of the ``firmware_bridge`` package; every error is also a builtin."""

from __future__ import annotations


class BridgeError(Exception):
    """Root of every error raised by :mod:`firmware_bridge`."""


class LinkError(BridgeError, OSError):
    """The serial link is closed, unplugged or cannot be opened."""


class FrameError(BridgeError, ValueError):
    """Bytes that do not decode to a valid frame (counted by the reader, never raised out of it)."""


class DeviceError(BridgeError, RuntimeError):
    """The device answered a command with an error code (``code``, ``recoverable``)."""


class ProtocolError(DeviceError):
    """A well-framed reply that cannot be right: the wrong reply type for the command, more cards than
    were asked for, card codes outside the protocol. The device (or whatever speaks for it) is not to be
    trusted with this command's result."""


class RequestError(BridgeError, ValueError):
    """A request refused before anything is sent or switched: a target, count, seat, pattern or pin out of
    range, or an operation the backend does not offer."""
