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

try:
    from firmware_bridge.firmware import proto
except ImportError:  # on the Pico the modules sit side by side in /
    import proto

FIRMWARE_VERSION = (1, 0, 0)
MEMORY = 32  # remembered final replies (request id -> encoded frame)
KIND_SEAT = 0
KIND_SLOUGH = 4
KINDS = 6  # seat, widow, layout, stock, slough, turnup


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
        self.memory = {}
        self.memory_order = []
        self.repeats = {}  # request id -> retries seen (insertion ordered, bounded)
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

    def _emit(self, mtype, req, payload=b""):
        frame = proto.encode_frame(mtype, req, self.boot_id, payload)
        self.send(frame * self.copies if req else frame)
        return frame

    def _final(self, req, mtype, payload=b""):
        frame = self._emit(mtype, req, payload)
        self.memory[req] = frame
        self.memory_order.append(req)
        if len(self.memory_order) > MEMORY:
            self.memory.pop(self.memory_order.pop(0), None)

    def _fail(self, req, code, cards=None):
        self.last_error = code
        payload = bytes((code,))
        if cards is not None:
            payload += bytes((len(cards),)) + bytes(cards)
        self._final(req, proto.FAILED, payload)

    def _hello_payload(self):
        caps = 1 if self.card_reader else 0
        v = FIRMWARE_VERSION
        return bytes((proto.VERSION, v[0], v[1], v[2], caps, self.seats, self.leds))

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
        old = self.memory.get(req)
        if old is not None or (req == self.job_req and self.job is not None):
            # A retry: the host missed our answer. Answer from memory (never act twice), one more
            # copy for every repeat, so a bad line gets more redundancy exactly where it is needed.
            n = self.repeats.get(req, 0) + 1
            self.repeats[req] = n
            if len(self.repeats) > MEMORY:
                self.repeats.pop(next(iter(self.repeats)))
            if old is None:  # still running: a poll as often as a retry, so no extra copies
                self._emit(proto.ACK, req)
            else:
                self.send(old * min(self.copies + n, proto.MAX_COPIES))
            return
        if boot and boot != self.boot_id and mtype in proto.ACTIONS:
            self._fail(req, proto.E_STALE_BOOT)
            return
        self.acted += 1
        if mtype == proto.HELLO:
            self._final(req, proto.HELLO_INFO, self._hello_payload())
        elif mtype == proto.STATUS:
            self._final(req, proto.STATUS_INFO, self.status_payload())
        elif mtype == proto.LED:
            if len(payload) != 5 or payload[0] > self.seats or payload[1] > 4:
                self._fail(req, proto.E_BAD_REQUEST)
            else:
                self.hw.set_led(payload[0], payload[1], payload[2], payload[3], payload[4])
                self._final(req, proto.DONE)
        elif mtype == proto.CONFIG:
            if len(payload) != 1 or not 1 <= payload[0] <= proto.MAX_COPIES:
                self._fail(req, proto.E_BAD_REQUEST)
            else:
                self.copies = payload[0]
                self._final(req, proto.DONE)
        elif mtype == proto.STOP:
            if self.job is not None:
                self._abort(proto.E_ABORTED)
            self._final(req, proto.DONE)
        elif mtype in (proto.HOME, proto.SHUFFLE, proto.DEAL):
            self._start(mtype, req, payload, now)
        else:
            self._fail(req, proto.E_BAD_REQUEST)

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
