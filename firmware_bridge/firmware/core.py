# mypy: ignore-errors
# Protocol and state logic of the dealer firmware: request-id memory, one final reply per command,
# long actions run as generators between polls of the link, heartbeats, host watchdog.
# Written for MicroPython; the simulator and the tests run it under CPython with simulated or
# stubbed hardware. Time is in milliseconds, passed in by the caller (time.ticks_ms on the Pico).
#
# The hardware object `hw` provides (generators yield how many ms to wait before resuming):
#   home()           -> generator returning an error code (0 = OK)
#   rotate(position) -> generator returning an error code
#   feed(face)       -> generator returning (error code, card code)
#   shuffle()        -> generator returning an error code
#   stop()           -> stop every motor now
#   hopper_count() -> int, door_open() -> bool, homed() -> bool
#   set_led(seat, pattern, r, g, b)   seat 0 = every seat
#   poll_events()    -> list of (type, payload) the hardware noticed (door, buttons)
#   timing()         -> (card_ms, move_ms, shuffle_ms): the most one card, one carousel move (homing
#                       included) and one shuffle may take; stated in HELLO_INFO so the host can cap
#                       a command's total time
#
# Request ids: the final replies of the last MEMORY actions are remembered and repeated on a retry;
# beyond them a ReplayWindow tells, for the WINDOW ids behind the newest, which were acted on. An
# action whose id was acted on (or is older than the window) is never acted on again in this boot:
# it is refused with STALE_REQUEST. Reads (HELLO, STATUS, CONFIG, QUERY) are answered afresh.

try:
    from firmware_bridge.firmware import proto
except ImportError:  # on the Pico the modules sit side by side in /
    import proto

FIRMWARE_VERSION = (1, 1, 0)
MEMORY = 32  # remembered final replies of actions (request id -> encoded frame, type, payload)
WINDOW = 2048  # action request ids behind the newest that are told apart (acted on or not)
KIND_SEAT = 0
KIND_SLOUGH = 4
KINDS = 6  # seat, widow, layout, stock, slough, turnup


class ReplayWindow:
    """Which action request ids this boot has acted on, for the WINDOW ids behind the newest one.

    Ids are 16-bit and wrap: an id up to half the space ahead of the newest is new (serial number
    arithmetic, RFC 1982). An id older than the window cannot be told apart and counts as seen.
    """

    def __init__(self):
        self.newest = 0  # 0: no action yet this boot (request id 0 is never a command)
        self.bits = bytearray(WINDOW // 8)

    def _behind(self, req):
        """How far ``req`` is behind the newest id (0: it is the newest; negative: ahead)."""
        d = (self.newest - req) & 0xFFFF
        return d if d < 0x8000 else d - 0x10000

    def _bit(self, req):
        i = req % WINDOW
        return i >> 3, 1 << (i & 7)

    def seen(self, req):
        if not self.newest:
            return False
        behind = self._behind(req)
        if behind < 0:
            return False
        if behind >= WINDOW:
            return True
        byte, mask = self._bit(req)
        return bool(self.bits[byte] & mask)

    def mark(self, req):
        if self.newest:
            behind = self._behind(req)
            if behind >= WINDOW:
                return
            if behind < 0:  # ahead: slide the window, forgetting the marks of the ids it passes over
                ahead = -behind
                if ahead >= WINDOW:
                    for i in range(len(self.bits)):
                        self.bits[i] = 0
                else:
                    for k in range(1, ahead + 1):
                        byte, mask = self._bit((self.newest + k) & 0xFFFF)
                        self.bits[byte] &= ~mask & 0xFF
                self.newest = req
        else:
            self.newest = req
        byte, mask = self._bit(req)
        self.bits[byte] |= mask


class Core:
    def __init__(
        self, hw, send, boot_id, seats, leds=None, card_reader=False, now=0, heartbeat_ms=1000, host_timeout_ms=3000
    ):
        self.hw = hw
        self.send = send  # send(bytes): write an encoded frame to the link
        self.boot_id = boot_id & 0xFFFF or 1
        self.seats = seats
        self.leds = seats if leds is None else leds
        self.card_reader = card_reader
        self.heartbeat_ms = heartbeat_ms
        self.host_timeout_ms = host_timeout_ms
        self.deframer = proto.Deframer()
        self.memory = {}  # request id -> (encoded final frame, final type, payload), actions only
        self.memory_order = []
        self.window = ReplayWindow()
        self.repeats = {}  # request id -> times seen before (insertion ordered, bounded)
        self.job = None
        self.job_req = 0
        self.job_type = 0
        self.job_cards = []
        self.wake_at = now
        self.last_error = proto.OK
        self.position = 255
        self.last_host = now
        self.next_heartbeat = now + heartbeat_ms
        self.acted = 0  # commands executed (not answered from memory): for tests
        self.copies = 1  # each reply is sent this many times back to back (CONFIG sets it on bad links)
        self.send(b"\x00")  # end whatever half frame the host was hearing when we died
        self._emit(proto.BOOT, 0, self._hello_payload())

    # ---- link ---------------------------------------------------------------------------
    def receive(self, data, now):
        seen = []  # copies of one frame in the same burst are one frame
        for frame in self.deframer.feed(data):
            self.last_host = now
            mtype, req, boot, payload = frame
            if mtype == proto.HEARTBEAT or req == 0 or frame in seen:
                continue
            seen.append(frame)
            self.handle(mtype, req, boot, payload, now)

    def _emit(self, mtype, req, payload=b"", copies=0):
        frame = proto.encode_frame(mtype, req, self.boot_id, payload)
        self.send(frame * (copies or self.copies) if req else frame)
        return frame

    def _final(self, req, mtype, payload=b"", remember=True):
        """The one final reply to ``req``; an action's is remembered for retries and QUERY."""
        frame = self._emit(mtype, req, payload, self._copies(req))
        if remember:
            self.memory[req] = (frame, mtype, bytes(payload))
            self.memory_order.append(req)
            if len(self.memory_order) > MEMORY:
                self.memory.pop(self.memory_order.pop(0), None)

    def _copies(self, req):
        """Copies of an answer: the standing count, plus one for every time the host asked before."""
        n = self.repeats.get(req, -1) + 1
        self.repeats[req] = n
        if len(self.repeats) > MEMORY:
            self.repeats.pop(next(iter(self.repeats)))
        return min(self.copies + n, proto.MAX_COPIES)

    def _fail(self, req, code, cards=None, remember=True):
        self.last_error = code
        payload = bytes((code,))
        if cards is not None:
            payload += bytes((len(cards),)) + bytes(cards)
        self._final(req, proto.FAILED, payload, remember)

    def _hello_payload(self):
        caps = proto.CAP_QUERY | (proto.CAP_CARD_READER if self.card_reader else 0)
        v = FIRMWARE_VERSION
        card_ms, move_ms, shuffle_ms = self.hw.timing()
        newest = self.window.newest
        return bytes((proto.VERSION, v[0], v[1], v[2], caps, self.seats, self.leds)) + bytes(
            (
                card_ms >> 8,
                card_ms & 0xFF,
                move_ms >> 8,
                move_ms & 0xFF,
                shuffle_ms >> 8,
                shuffle_ms & 0xFF,
                newest >> 8,
                newest & 0xFF,
            )
        )

    def status_payload(self):
        hw = self.hw
        return bytes(
            (
                min(hw.hopper_count(), 255),
                1 if hw.homed() else 0,
                1 if hw.door_open() else 0,
                1 if self.job is not None else 0,
                self.last_error,
                self.position,
            )
        )

    # ---- commands -----------------------------------------------------------------------
    def handle(self, mtype, req, boot, payload, now):
        if mtype not in proto.ACTIONS:
            self._read(mtype, req, payload)
            return
        old = self.memory.get(req)
        if old is not None:
            # A retry: the host missed our answer. Answer from memory (never act twice), one more
            # copy for every repeat, so a bad line gets more redundancy exactly where it is needed.
            self.send(old[0] * self._copies(req))
            return
        if req == self.job_req and self.job is not None:
            self._emit(proto.ACK, req)  # still running: a poll as often as a retry, so no extra copies
            return
        if self.window.seen(req):
            # Acted on earlier in this boot and forgotten, or older than the window: never again.
            self._fail(req, proto.E_STALE_REQUEST, remember=False)
            return
        self.window.mark(req)
        if boot and boot != self.boot_id:
            self._fail(req, proto.E_STALE_BOOT)
            return
        self.acted += 1
        if mtype == proto.LED:
            if len(payload) != 5 or payload[0] > self.seats or payload[1] > 4:
                self._fail(req, proto.E_BAD_REQUEST)
            else:
                self.hw.set_led(payload[0], payload[1], payload[2], payload[3], payload[4])
                self._final(req, proto.DONE)
        elif mtype == proto.STOP:
            if self.job is not None:
                self._abort(proto.E_ABORTED)
            self._final(req, proto.DONE)
        else:  # HOME, SHUFFLE, DEAL
            self._start(mtype, req, payload, now)

    def _read(self, mtype, req, payload):
        """Commands that change nothing the host cannot set again: answered afresh, never remembered."""
        self.acted += 1
        if mtype == proto.HELLO:
            self._final(req, proto.HELLO_INFO, self._hello_payload(), False)
        elif mtype == proto.STATUS:
            self._final(req, proto.STATUS_INFO, self.status_payload(), False)
        elif mtype == proto.CONFIG:
            if len(payload) != 1 or not 1 <= payload[0] <= proto.MAX_COPIES:
                self._fail(req, proto.E_BAD_REQUEST, remember=False)
            else:
                self.copies = payload[0]
                self._final(req, proto.DONE, b"", False)
        elif mtype == proto.QUERY:
            self._query(req, payload)
        else:
            self._fail(req, proto.E_BAD_REQUEST, remember=False)

    def _query(self, req, payload):
        """REQUEST_STATE: what became of a request (its final reply in chunks, running, or no record)."""
        if len(payload) != 4:
            self._fail(req, proto.E_BAD_REQUEST, remember=False)
            return
        asked = (payload[0] << 8) | payload[1]
        offset = payload[2]
        copies = max(1, min(payload[3], proto.MAX_COPIES))
        chunk = b""
        old = self.memory.get(asked)
        if old is not None:
            state, size = old[1], len(old[2])
            chunk = old[2][offset : offset + proto.QUERY_CHUNK]
        elif asked == self.job_req and self.job is not None:
            state = proto.ACK
            size = len(self.job_cards) if self.job_type == proto.DEAL else 0
        else:
            state, size = proto.STATE_NONE, 0
            if asked and not self.window.seen(asked):
                self.window.mark(asked)  # settled: a copy arriving later is never acted on
        head = bytes((asked >> 8, asked & 0xFF, state, size, offset))
        frame = proto.encode_frame(proto.REQUEST_STATE, req, self.boot_id, head + chunk)
        self.send(frame * max(copies, self.copies))

    def _start(self, mtype, req, payload, now):
        if self.job is not None:
            self._fail(req, proto.E_BUSY)
            return
        if mtype == proto.HOME:
            job = self._home_job(req)
        elif mtype == proto.SHUFFLE:
            job = self._shuffle_job(req)
        else:
            if len(payload) != 4:
                self._fail(req, proto.E_BAD_REQUEST)
                return
            kind, index, count, face = payload[0], payload[1], payload[2], payload[3]
            position = self.position_of(kind, index)
            if position is None or not 1 <= count <= 52 or face > 1:
                self._fail(req, proto.E_BAD_REQUEST)
                return
            job = self._deal_job(req, kind, index, position, count, face)
        self.job, self.job_req, self.job_type, self.job_cards = job, req, mtype, []
        self.wake_at = now
        self._emit(proto.ACK, req)

    def position_of(self, kind, index):
        """Carousel position: seats 1..N first, then widow, layout, stock, slough, turnup."""
        if kind == KIND_SEAT:
            return index - 1 if 1 <= index <= self.seats else None
        if 0 < kind < KINDS:
            return self.seats + kind - 1
        return None

    def _abort(self, code):
        self.hw.stop()
        req, cards = self.job_req, self.job_cards
        dealing = self.job_type == proto.DEAL
        self.job = None
        self.job_req = 0
        self._fail(req, code, cards if dealing else None)

    # ---- jobs (generators yielding ms to wait) -----------------------------------------
    def _home_job(self, req):
        self.position = 255
        err = yield from self.hw.home()
        if err:
            self._fail(req, err)
            return
        self.position = 0
        self._final(req, proto.DONE)

    def _shuffle_job(self, req):
        if self.hw.door_open():
            self._fail(req, proto.E_DOOR_OPEN)
            return
        err = yield from self.hw.shuffle()
        if err:
            self._fail(req, err)
            return
        self._final(req, proto.DONE, bytes((1, min(self.hw.hopper_count(), 255))))

    def _deal_job(self, req, kind, index, position, count, face):
        cards = self.job_cards
        if not self.hw.homed():
            self._fail(req, proto.E_NOT_HOMED, cards)
            return
        if self.hw.door_open():
            self._fail(req, proto.E_DOOR_OPEN, cards)
            return
        if position != self.position:
            self.position = 255
            err = yield from self.hw.rotate(position)
            if err:
                self._fail(req, err, cards)
                return
            self.position = position
        for number in range(1, count + 1):
            if self.hw.hopper_count() == 0:
                self._emit(proto.HOPPER_EMPTY, 0)
                self._fail(req, proto.E_HOPPER_EMPTY, cards)
                return
            err, code = yield from self.hw.feed(face)
            if err:
                if err == proto.E_JAM or err == proto.E_MISFEED:
                    self._emit(proto.JAM, 0, bytes((err, position)))
                self._fail(req, err, cards)
                return
            cards.append(code)
            self._emit(proto.CARD_DEALT, req, bytes((number, count, kind, index, face, code)))
        self._final(req, proto.DONE, bytes((len(cards),)) + bytes(cards))

    # ---- time ---------------------------------------------------------------------------
    def tick(self, now):
        """Advance the running job, heartbeats and the watchdog. Returns ms until the next call is due."""
        for mtype, payload in self.hw.poll_events():
            self._emit(mtype, 0, payload)
        if self.job is not None and now - self.last_host > self.host_timeout_ms:
            self._abort(proto.E_HOST_SILENT)
        while self.job is not None and now >= self.wake_at:
            try:
                delay = next(self.job)
            except StopIteration:
                self.job = None
                self.job_req = 0
                break
            except Exception:  # a hardware fault must not kill the link: report it and stop
                self.hw.stop()
                self.job = None
                self._fail(self.job_req, proto.E_INTERNAL)
                self.job_req = 0
                break
            self.wake_at = now + delay
        if now >= self.next_heartbeat:
            self._emit(proto.DEVICE_HEARTBEAT, 0, bytes((1 if self.job is not None else 0,)))
            self.next_heartbeat = now + self.heartbeat_ms
        due = self.next_heartbeat - now
        if self.job is not None:
            due = min(due, self.wake_at - now)
        return max(due, 0)
