"""Consistent Overhead Byte Stuffing: a frame body without any 0x00, so 0x00 can end every frame.

A receiver that joins mid-stream or loses bytes resynchronises at the next 0x00.
"""

from __future__ import annotations

from firmware_bridge.errors import FrameError


def cobs_encode(data: bytes) -> bytes:
    """Encode ``data`` (any bytes) into a block with no zero byte; overhead is 1 byte per 254."""
    out = bytearray([0])
    code_at = 0
    code = 1
    for byte in data:
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(block: bytes) -> bytes:
    """Decode one COBS block (without its 0x00 delimiter); raise :class:`FrameError` if malformed."""
    out = bytearray()
    i = 0
    n = len(block)
    while i < n:
        code = block[i]
        if code == 0:
            raise FrameError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise FrameError("COBS block ends inside a run")
        chunk = block[i + 1 : end]
        if 0 in chunk:
            raise FrameError("zero byte inside a COBS block")
        out += chunk
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
