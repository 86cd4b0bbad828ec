"""The message catalogue: types, error codes, targets and the payload of every message.

Commands go from host to device with a non-zero request id; the device answers each with exactly
one final reply (HELLO_INFO, STATUS_INFO, DONE or FAILED). Long actions (HOME, SHUFFLE, DEAL) are
first answered ACK ("accepted, running"), may send CARD_DEALT progress, then the final reply.
Events and heartbeats carry request id 0. See docs/protocol.md.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from firmware_bridge.errors import FrameError, RequestError
from table.cards import ALL_CARDS, Card


class MsgType(enum.IntEnum):
    # host -> device: commands
    HELLO = 0x01
    STATUS = 0x02
    HOME = 0x03
    SHUFFLE = 0x04
    DEAL = 0x05
    LED = 0x06
    STOP = 0x07
    HEARTBEAT = 0x08
    CONFIG = 0x09  # payload: reply copies 1..8 (redundancy on a bad link)
    QUERY = 0x0A  # payload: request u16, offset u8, copies u8: what became of that request
    # device -> host: replies to a request id
    HELLO_INFO = 0x81
    STATUS_INFO = 0x82
    ACK = 0x83
    CARD_DEALT = 0x84
    DONE = 0x85
    FAILED = 0x86
    REQUEST_STATE = 0x87  # the answer to QUERY
    DEVICE_HEARTBEAT = 0x88
    # device -> host: events (request id 0)
    BOOT = 0xA0
    JAM = 0xA1
    HOPPER_EMPTY = 0xA2
    DOOR = 0xA3
    BUTTON = 0xA4


FINAL_REPLIES = frozenset(
    {MsgType.HELLO_INFO, MsgType.STATUS_INFO, MsgType.DONE, MsgType.FAILED, MsgType.REQUEST_STATE}
)
# Commands that move something or change state: refused when addressed to another boot.
ACTIONS = frozenset({MsgType.HOME, MsgType.SHUFFLE, MsgType.DEAL, MsgType.LED, MsgType.STOP})
LONG_ACTIONS = frozenset({MsgType.HOME, MsgType.SHUFFLE, MsgType.DEAL})


class ErrorCode(enum.IntEnum):
    """Codes below 0x80 are recoverable by the players; 0x80 and above are fatal."""

    OK = 0x00
    HOPPER_EMPTY = 0x01
    JAM = 0x02  # card stuck at the exit: clear it and go on
    MISFEED = 0x03  # no card reached the exit sensor after the retry
    NOT_HOMED = 0x04
    DOOR_OPEN = 0x05
    BUSY = 0x06
    BAD_REQUEST = 0x07
    STALE_BOOT = 0x08  # command addressed to an earlier boot of the device: not executed
    ABORTED = 0x09  # stopped by a STOP command
    HOST_SILENT = 0x0A  # the host went quiet: motors stopped
    DEVICE_REBOOTED = 0x0B  # host-side: the device rebooted while the command was in flight
    STALE_REQUEST = 0x0C  # a request id already acted on this boot (and forgotten), or older: not acted on
    TIMED_OUT = 0x0D  # host-side: no result in the time the command needs; the host stopped the machine
    HOMING_FAILED = 0x80
    MOTOR_FAULT = 0x81
    INTERNAL = 0x82

    @property
    def recoverable(self) -> bool:
        return self.value < 0x80

    @property
    def fatal(self) -> bool:
        return self.value >= 0x80


def error_code(value: int) -> ErrorCode:
    try:
        return ErrorCode(value)
    except ValueError:
        return ErrorCode.INTERNAL


class TargetKind(enum.IntEnum):
    SEAT = 0
    WIDOW = 1
    LAYOUT = 2
    STOCK = 3
    SLOUGH = 4
    TURNUP = 5


@dataclass(frozen=True, slots=True)
class Target:
    """Where a card goes: ``seat:N`` (1-based), ``widow``, ``layout``, ``stock``, ``slough[:N]``, ``turnup``."""

    kind: TargetKind
    index: int = 0

    @classmethod
    def parse(cls, text: str | Target) -> Target:
        if isinstance(text, Target):
            return text
        name, _, number = str(text).strip().lower().partition(":")
        try:
            kind = TargetKind[name.upper()]
        except KeyError:
            names = ", ".join(k.name.lower() for k in TargetKind)
            raise RequestError(f"unknown target {text!r} (expected one of {names}; seats as seat:N)") from None
        if kind is TargetKind.SEAT and not number:
            raise RequestError(f"seat target needs a number: seat:N, not {text!r}")
        try:
            index = int(number) if number else 0
        except ValueError:
            raise RequestError(f"target number in {text!r} is not an integer") from None
        if not 0 <= index <= 255 or (kind is TargetKind.SEAT and index < 1):
            raise RequestError(f"target number in {text!r} out of range")
        return cls(kind, index)

    def __str__(self) -> str:
        if self.kind is TargetKind.SEAT or self.index:
            return f"{self.kind.name.lower()}:{self.index}"
        return self.kind.name.lower()


class Face(enum.IntEnum):
    DOWN = 0
    UP = 1

    @classmethod
    def parse(cls, value: str | Face) -> Face:
        if isinstance(value, Face):
            return value
        try:
            return cls[str(value).upper()]
        except KeyError:
            raise RequestError(f"face must be 'up' or 'down', not {value!r}") from None


class Pattern(enum.IntEnum):
    OFF = 0
    SOLID = 1
    BLINK = 2
    PULSE = 3
    CHASE = 4


CARD_UNKNOWN = 0xFF  # the device does not read cards
CARD_UNREADABLE = 0xFE  # the device reads cards but could not read this one
MAX_DEAL_COUNT = 52
MAX_COPIES = 8
ALL_SEATS = 0  # LED seat 0 addresses every seat


def card_from_code(code: int) -> Card | None:
    return ALL_CARDS[code] if code < len(ALL_CARDS) else None


def is_card_code(code: int) -> bool:
    """A code the protocol allows for a dealt card: a card's index, CARD_UNREADABLE or CARD_UNKNOWN."""
    return 0 <= code < len(ALL_CARDS) or code in (CARD_UNREADABLE, CARD_UNKNOWN)


def card_code(card: Card | None) -> int:
    return CARD_UNKNOWN if card is None else card.index


# ---- payloads -----------------------------------------------------------------------------


def _need(payload: bytes, size: int, what: str, *, exact: bool = True) -> None:
    if len(payload) < size or (exact and len(payload) != size):
        raise FrameError(f"{what} payload of {len(payload)} bytes, expected {size}")


@dataclass(frozen=True, slots=True)
class DealRequest:
    target: Target
    count: int = 1
    face: Face = Face.DOWN

    def encode(self) -> bytes:
        if not 1 <= self.count <= MAX_DEAL_COUNT:
            raise RequestError(f"deal count must be 1..{MAX_DEAL_COUNT}, not {self.count}")
        return bytes([self.target.kind, self.target.index, self.count, self.face])

    @classmethod
    def decode(cls, payload: bytes) -> DealRequest:
        _need(payload, 4, "DEAL")
        try:
            return cls(Target(TargetKind(payload[0]), payload[1]), payload[2], Face(payload[3]))
        except ValueError as exc:
            raise FrameError(f"bad DEAL payload: {exc}") from None


@dataclass(frozen=True, slots=True)
class LedRequest:
    seat: int  # 1-based; ALL_SEATS (0) for every seat
    pattern: Pattern
    colour: tuple[int, int, int] = (0, 0, 0)

    def encode(self) -> bytes:
        if not 0 <= self.seat <= 255:
            raise RequestError(f"LED seat must be 0 (every seat) or 1..255, not {self.seat}")
        if len(self.colour) != 3 or any(not 0 <= c <= 255 for c in self.colour):
            raise RequestError(f"colour components must be 0..255: {self.colour}")
        return bytes([self.seat, self.pattern, *self.colour])

    @classmethod
    def decode(cls, payload: bytes) -> LedRequest:
        _need(payload, 5, "LED")
        try:
            return cls(payload[0], Pattern(payload[1]), (payload[2], payload[3], payload[4]))
        except ValueError as exc:
            raise FrameError(f"bad LED payload: {exc}") from None


CAP_CARD_READER = 0x01
CAP_QUERY = 0x02  # answers QUERY, and never acts twice on a request id in one boot


@dataclass(frozen=True, slots=True)
class Timing:
    """What the device states the longest one card, one carousel move (homing included) and one
    shuffle take, in ms: the host caps a command's total time from them."""

    card_ms: int
    move_ms: int
    shuffle_ms: int


@dataclass(frozen=True, slots=True)
class HelloInfo:
    protocol: int
    firmware: tuple[int, int, int]
    card_reader: bool
    seats: int
    leds: int
    boot_id: int = 0  # from the frame header
    answers_query: bool = False
    timing: Timing | None = None  # None from a device that does not state it
    newest_request: int = 0  # the newest action request id of this boot (0: none yet)

    def encode(self) -> bytes:
        caps = (CAP_CARD_READER if self.card_reader else 0) | (CAP_QUERY if self.answers_query else 0)
        head = bytes([self.protocol, *self.firmware, caps, self.seats, self.leds])
        if self.timing is None:
            return head
        t = self.timing
        return head + b"".join(v.to_bytes(2, "big") for v in (t.card_ms, t.move_ms, t.shuffle_ms, self.newest_request))

    @classmethod
    def decode(cls, payload: bytes, boot_id: int = 0) -> HelloInfo:
        _need(payload, 7, "HELLO_INFO", exact=False)  # later versions may append fields
        timing = None
        newest = 0
        if len(payload) >= 15:
            card, move, shuffle, newest = (int.from_bytes(payload[i : i + 2], "big") for i in range(7, 15, 2))
            timing = Timing(card, move, shuffle)
        return cls(
            payload[0],
            (payload[1], payload[2], payload[3]),
            bool(payload[4] & CAP_CARD_READER),
            payload[5],
            payload[6],
            boot_id,
            bool(payload[4] & CAP_QUERY),
            timing,
            newest,
        )


QUERY_CHUNK = 8  # bytes of a final reply's payload one REQUEST_STATE carries


@dataclass(frozen=True, slots=True)
class Query:
    """QUERY: what became of ``request``; its final reply's payload from ``offset``, in ``copies`` copies."""

    request: int
    offset: int = 0
    copies: int = 1

    def encode(self) -> bytes:
        return self.request.to_bytes(2, "big") + bytes([self.offset, self.copies])

    @classmethod
    def decode(cls, payload: bytes) -> Query:
        _need(payload, 4, "QUERY")
        return cls(int.from_bytes(payload[:2], "big"), payload[2], payload[3])


class RequestStatus(enum.IntEnum):
    """The ``state`` byte of REQUEST_STATE: a final reply's type, ACK while running, or NONE."""

    NONE = 0  # no record: never received, or acted on and forgotten; from now on never acted on
    RUNNING = MsgType.ACK
    DONE = MsgType.DONE
    FAILED = MsgType.FAILED


@dataclass(frozen=True, slots=True)
class RequestState:
    """REQUEST_STATE: ``request``'s state; ``size`` is the final reply's payload length (cards dealt so
    far while a DEAL runs), ``chunk`` that payload's bytes from ``offset`` (at most QUERY_CHUNK)."""

    request: int
    state: RequestStatus
    size: int
    offset: int
    chunk: bytes = b""

    def encode(self) -> bytes:
        return self.request.to_bytes(2, "big") + bytes([self.state, self.size, self.offset]) + self.chunk

    @classmethod
    def decode(cls, payload: bytes) -> RequestState:
        _need(payload, 5, "REQUEST_STATE", exact=False)
        try:
            state = RequestStatus(payload[2])
        except ValueError:
            raise FrameError(f"REQUEST_STATE with unknown state {payload[2]:#04x}") from None
        chunk = bytes(payload[5:])
        if len(chunk) > QUERY_CHUNK or (chunk and payload[4] + len(chunk) > payload[3]):
            raise FrameError(f"REQUEST_STATE chunk of {len(chunk)} bytes at {payload[4]} of a {payload[3]}-byte reply")
        return cls(int.from_bytes(payload[:2], "big"), state, payload[3], payload[4], chunk)


@dataclass(frozen=True, slots=True)
class StatusInfo:
    hopper: int  # cards in the hopper
    homed: bool
    door_open: bool
    busy: bool
    last_error: ErrorCode
    position: int  # carousel position the machine points at (255: unknown)

    def encode(self) -> bytes:
        return bytes([min(self.hopper, 255), self.homed, self.door_open, self.busy, self.last_error, self.position])

    @classmethod
    def decode(cls, payload: bytes) -> StatusInfo:
        _need(payload, 6, "STATUS_INFO", exact=False)
        return cls(payload[0], bool(payload[1]), bool(payload[2]), bool(payload[3]), error_code(payload[4]), payload[5])


@dataclass(frozen=True, slots=True)
class CardDealt:
    """Progress of a DEAL: card ``number`` of ``total`` has left the machine."""

    number: int
    total: int
    target: Target
    face: Face
    code: int  # card index 0..51, CARD_UNKNOWN or CARD_UNREADABLE

    def encode(self) -> bytes:
        return bytes([self.number, self.total, self.target.kind, self.target.index, self.face, self.code])

    @classmethod
    def decode(cls, payload: bytes) -> CardDealt:
        _need(payload, 6, "CARD_DEALT")
        try:
            return cls(payload[0], payload[1], Target(TargetKind(payload[2]), payload[3]), Face(payload[4]), payload[5])
        except ValueError as exc:
            raise FrameError(f"bad CARD_DEALT payload: {exc}") from None

    @property
    def card(self) -> Card | None:
        return card_from_code(self.code)


def encode_codes(codes: list[int] | tuple[int, ...]) -> bytes:
    return bytes([len(codes), *codes])


def decode_codes(payload: bytes, what: str) -> tuple[int, ...]:
    if not payload or len(payload) != 1 + payload[0]:
        raise FrameError(f"{what}: card list of {len(payload)} bytes is malformed")
    return tuple(payload[1:])


@dataclass(frozen=True, slots=True)
class Failed:
    code: ErrorCode
    cards: tuple[int, ...] = ()  # codes of cards dealt before the failure (DEAL only)

    def encode(self) -> bytes:
        return bytes([self.code]) + encode_codes(self.cards)

    @classmethod
    def decode(cls, payload: bytes) -> Failed:
        if not payload:
            raise FrameError("FAILED payload is empty")
        return cls(error_code(payload[0]), decode_codes(payload[1:], "FAILED") if len(payload) > 1 else ())


def describe(frame_type: int, payload: bytes) -> str:
    """A one-line human reading of a payload (CLI, logs, golden vectors)."""
    try:
        t = MsgType(frame_type)
    except ValueError:
        return f"unknown type 0x{frame_type:02x} {payload.hex()}"
    try:
        if t is MsgType.DEAL:
            return f"DEAL {DealRequest.decode(payload)}"
        if t is MsgType.LED:
            return f"LED {LedRequest.decode(payload)}"
        if t in (MsgType.HELLO_INFO, MsgType.BOOT):
            return f"{t.name} {HelloInfo.decode(payload)}"
        if t is MsgType.STATUS_INFO:
            return f"STATUS_INFO {StatusInfo.decode(payload)}"
        if t is MsgType.CARD_DEALT:
            return f"CARD_DEALT {CardDealt.decode(payload)}"
        if t is MsgType.FAILED:
            return f"FAILED {Failed.decode(payload)}"
        if t is MsgType.QUERY:
            return f"QUERY {Query.decode(payload)}"
        if t is MsgType.REQUEST_STATE:
            return f"REQUEST_STATE {RequestState.decode(payload)}"
        if t is MsgType.DONE and payload:
            return f"DONE cards={decode_codes(payload, 'DONE')}"
    except FrameError as exc:
        return f"{t.name} malformed ({exc})"
    return f"{t.name} {payload.hex()}".rstrip()


def known_final_bytes(command: int, final: int, size: int, cards: dict[int, int]) -> dict[int, int]:
    """The bytes of a DEAL's final reply payload that CARD_DEALT progress already told (offset -> byte),
    so a QUERY need fetch only the rest: DONE is ``[n, card 1..n]``, FAILED ``[code, n, card 1..n]``."""
    if command != MsgType.DEAL:
        return {}
    if final == MsgType.DONE and size >= 1:
        known = {0: size - 1}
        known.update({number: code for number, code in cards.items() if 1 <= number <= size - 1})
        return known
    if final == MsgType.FAILED and size >= 2:
        known = {1: size - 2}
        known.update({number + 1: code for number, code in cards.items() if 1 <= number <= size - 2})
        return known
    return {}
