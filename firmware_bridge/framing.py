"""Frames on the wire and the pure byte-stream protocol class that finds them.

A frame before stuffing::

    version:u8 | type:u8 | request:u16 | boot:u16 | payload (0..MAX_PAYLOAD) | crc:u32

integers big-endian; ``crc`` is the CRC-32 of zlib/Ethernet (``zlib.crc32``) of every byte before
it. CRC-32 rather than CRC-16: on a line that garbles one byte in ten, tens of thousands of bad
frames go by in an evening, and CRC-16 lets one in 65,536 through (a DEAL to the wrong seat). The frame is COBS-encoded
and followed by one 0x00. ``request`` is 0 for
unsolicited messages (events, heartbeats). ``boot`` is the device's boot id in frames from the
device, and the boot id the host believes in (0: unknown) in frames from the host.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.errors import FrameError

PROTOCOL_VERSION = 1
HEADER_SIZE = 6
CRC_SIZE = 4
MAX_PAYLOAD = 64
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
# A COBS block of MAX_FRAME bytes is at most one byte longer; anything longer is garbage.
MAX_BLOCK = MAX_FRAME + 1 + MAX_FRAME // 254


def crc32(data: bytes) -> int:
    """CRC-32 (ISO-HDLC, as zlib and Ethernet): check value 0xCBF43926 for b"123456789"."""
    return zlib.crc32(data) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Frame:
    type: int
    request: int = 0
    boot: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        if not 0 <= self.type <= 0xFF:
            raise FrameError(f"message type {self.type} out of range 0..255")
        if not 0 <= self.request <= 0xFFFF:
            raise FrameError(f"request id {self.request} out of range 0..65535")
        if not 0 <= self.boot <= 0xFFFF:
            raise FrameError(f"boot id {self.boot} out of range 0..65535")
        if len(self.payload) > MAX_PAYLOAD:
            raise FrameError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")

    def raw(self) -> bytes:
        """The frame before stuffing, CRC included."""
        body = (
            bytes([self.version, self.type, self.request >> 8, self.request & 0xFF, self.boot >> 8, self.boot & 0xFF])
            + self.payload
        )
        return body + crc32(body).to_bytes(4, "big")

    def encode(self) -> bytes:
        """The bytes to write: COBS block plus the 0x00 delimiter."""
        return cobs_encode(self.raw()) + b"\x00"


def decode_raw(raw: bytes) -> Frame:
    """Check and split an unstuffed frame; raise :class:`FrameError` saying what is wrong."""
    if len(raw) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"frame of {len(raw)} bytes is shorter than {HEADER_SIZE + CRC_SIZE}")
    if len(raw) > MAX_FRAME:
        raise FrameError(f"frame of {len(raw)} bytes exceeds {MAX_FRAME}")
    body, crc = raw[:-CRC_SIZE], int.from_bytes(raw[-CRC_SIZE:], "big")
    if crc32(body) != crc:
        raise FrameError("CRC mismatch")
    if body[0] != PROTOCOL_VERSION:
        raise FrameError(f"protocol version {body[0]} not supported (this host speaks {PROTOCOL_VERSION})")
    return Frame(
        type=body[1],
        request=(body[2] << 8) | body[3],
        boot=(body[4] << 8) | body[5],
        payload=bytes(body[HEADER_SIZE:]),
        version=body[0],
    )


def decode_block(block: bytes) -> Frame:
    """Decode one COBS block (delimiter removed)."""
    return decode_raw(cobs_decode(block))


@dataclass(slots=True)
class FramingStats:
    frames: int = 0
    bad_frames: int = 0
    crc_errors: int = 0
    resyncs: int = 0  # garbage skipped: oversize runs and undecodable blocks
    bytes_in: int = 0
    errors_by_reason: dict[str, int] = field(default_factory=dict)


class Packetizer:
    """Bytes in through :meth:`data_received`, whole frames out. Never raises on bad input.

    Like pyserial's ``Packetizer``: a pure protocol object, no I/O, so it is tested and fuzzed
    directly and shared by the host link and the simulator.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False  # inside an over-long run: skip to the next delimiter
        self.stats = FramingStats()

    def data_received(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        self.stats.bytes_in += len(data)
        start = 0
        while True:
            end = data.find(b"\x00", start)
            if end < 0:
                self._take(data[start:])
                return frames
            self._take(data[start:end])
            frame = self._finish()
            if frame is not None:
                frames.append(frame)
            start = end + 1

    def _take(self, chunk: bytes) -> None:
        if self._discarding or not chunk:
            return
        self._buffer += chunk
        if len(self._buffer) > MAX_BLOCK:
            self._buffer.clear()
            self._discarding = True

    def _finish(self) -> Frame | None:
        if self._discarding:
            self._discarding = False
            self._count("oversize")
            return None
        if not self._buffer:
            return None  # back-to-back delimiters: a flush, not an error
        block = bytes(self._buffer)
        self._buffer.clear()
        try:
            frame = decode_block(block)
        except FrameError as exc:
            self._count(str(exc))
            return None
        self.stats.frames += 1
        return frame

    def _count(self, reason: str) -> None:
        self.stats.bad_frames += 1
        self.stats.resyncs += 1
        kind = _classify(reason)
        if kind == "crc":
            self.stats.crc_errors += 1
        self.stats.errors_by_reason[kind] = self.stats.errors_by_reason.get(kind, 0) + 1


def _classify(reason: str) -> str:
    if reason == "CRC mismatch":
        return "crc"
    if "COBS" in reason:
        return "cobs"
    if "version" in reason:
        return "version"
    if reason == "oversize":
        return "oversize"
    return "length"
