# mypy: ignore-errors
# Wire format of the dealer protocol, written for MicroPython (no typing, no dataclasses, no
# zlib) and run under CPython by the simulator and the tests. The host has its own
# implementation (firmware_bridge/framing.py); both are checked on the same golden vectors.
#
# frame = COBS(version u8 | type u8 | request u16 | boot u16 | payload | crc32 u32) + 0x00

VERSION = 1
HEADER = 6
MAX_PAYLOAD = 64
CRC = 4
MAX_FRAME = HEADER + MAX_PAYLOAD + CRC
MAX_BLOCK = MAX_FRAME + 1

# message types (same numbers as firmware_bridge.messages.MsgType)
HELLO = 0x01
STATUS = 0x02
HOME = 0x03
SHUFFLE = 0x04
DEAL = 0x05
LED = 0x06
STOP = 0x07
HEARTBEAT = 0x08
CONFIG = 0x09
QUERY = 0x0A
HELLO_INFO = 0x81
STATUS_INFO = 0x82
ACK = 0x83
CARD_DEALT = 0x84
DONE = 0x85
FAILED = 0x86
REQUEST_STATE = 0x87
DEVICE_HEARTBEAT = 0x88
BOOT = 0xA0
JAM = 0xA1
HOPPER_EMPTY = 0xA2
DOOR = 0xA3
BUTTON = 0xA4

ACTIONS = (HOME, SHUFFLE, DEAL, LED, STOP)

# error codes (same numbers as firmware_bridge.messages.ErrorCode)
OK = 0x00
E_HOPPER_EMPTY = 0x01
E_JAM = 0x02
E_MISFEED = 0x03
E_NOT_HOMED = 0x04
E_DOOR_OPEN = 0x05
E_BUSY = 0x06
E_BAD_REQUEST = 0x07
E_STALE_BOOT = 0x08
E_ABORTED = 0x09
E_HOST_SILENT = 0x0A
E_STALE_REQUEST = 0x0C
E_HOMING_FAILED = 0x80
E_MOTOR_FAULT = 0x81
E_INTERNAL = 0x82

MAX_COPIES = 8
CAP_CARD_READER = 0x01
CAP_QUERY = 0x02  # answers QUERY and never acts twice on a request id in one boot
QUERY_CHUNK = 8  # bytes of a final reply's payload in one REQUEST_STATE
STATE_NONE = 0  # REQUEST_STATE: no record of the request (and from now on it is never acted on)

CARD_UNKNOWN = 0xFF
CARD_UNREADABLE = 0xFE


def _crc_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def crc32(data):
    """CRC-32 as zlib computes it (reflected, poly 0xEDB88320, init and final xor 0xFFFFFFFF)."""
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


def cobs_encode(data):
    out = bytearray(1)
    code_at = 0
    code = 1
    for b in data:
        if b:
            out.append(b)
            code += 1
        if not b or code == 0xFF:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(block):
    """Decoded bytes, or None when the block is malformed."""
    out = bytearray()
    i = 0
    n = len(block)
    while i < n:
        code = block[i]
        if code == 0 or i + code > n:
            return None
        for j in range(i + 1, i + code):
            if block[j] == 0:
                return None
            out.append(block[j])
        i += code
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(mtype, request, boot, payload=b""):
    body = bytes((VERSION, mtype, request >> 8, request & 0xFF, boot >> 8, boot & 0xFF)) + bytes(payload)
    crc = crc32(body)
    return cobs_encode(body + bytes((crc >> 24, (crc >> 16) & 0xFF, (crc >> 8) & 0xFF, crc & 0xFF))) + b"\x00"


def decode_block(block):
    """(type, request, boot, payload) or None when the block is not a valid frame."""
    raw = cobs_decode(block)
    if raw is None or len(raw) < HEADER + CRC or len(raw) > MAX_FRAME:
        return None
    crc = (raw[-4] << 24) | (raw[-3] << 16) | (raw[-2] << 8) | raw[-1]
    if crc32(raw[:-CRC]) != crc or raw[0] != VERSION:
        return None
    return raw[1], (raw[2] << 8) | raw[3], (raw[4] << 8) | raw[5], raw[HEADER:-CRC]


class Deframer:
    """Bytes in, frames out; bad frames counted, never raised."""

    def __init__(self):
        self.buf = bytearray()
        self.discarding = False
        self.frames = 0
        self.bad = 0

    def feed(self, data):
        frames = []
        for b in data:
            if b == 0:
                if self.discarding:
                    self.discarding = False
                    self.bad += 1
                elif self.buf:
                    frame = decode_block(bytes(self.buf))
                    self.buf = bytearray()
                    if frame is None:
                        self.bad += 1
                    else:
                        self.frames += 1
                        frames.append(frame)
            elif not self.discarding:
                self.buf.append(b)
                if len(self.buf) > MAX_BLOCK:
                    self.buf = bytearray()
                    self.discarding = True
        return frames
