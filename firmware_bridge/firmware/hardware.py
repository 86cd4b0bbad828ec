# mypy: ignore-errors
# Hardware of the reference machine for the Raspberry Pi Pico (MicroPython): stepper carousel with
# Hall homing, feed wheel with reverse pulse, IR exit sensor with timeouts, flipper, door switch,
# WS2812 seat LEDs. Every action is a generator yielding ms to wait, so the main loop keeps serving
# the link (retries answered from memory, heartbeats) while the motors work.

import time

import machine
import neopixel

try:
    from firmware_bridge.firmware import config, proto
except ImportError:
    import config
    import proto


def _sleep_us(us):
    sleep_us = getattr(time, "sleep_us", None)
    if sleep_us is not None:
        sleep_us(us)


class PicoHardware:
    def __init__(self, cfg=config):
        Pin = machine.Pin
        self.cfg = cfg
        self.step = Pin(cfg.STEP_PIN, Pin.OUT, value=0)
        self.dir = Pin(cfg.DIR_PIN, Pin.OUT, value=0)
        self.enable = Pin(cfg.ENABLE_PIN, Pin.OUT, value=1)  # disabled until needed
        self.hall = Pin(cfg.HALL_PIN, Pin.IN, Pin.PULL_UP)
        self.exit = Pin(cfg.EXIT_PIN, Pin.IN, Pin.PULL_UP)
        self.door = Pin(cfg.DOOR_PIN, Pin.IN, Pin.PULL_UP)
        self.flip = Pin(cfg.FLIP_PIN, Pin.OUT, value=0)
        self.shuffler = Pin(cfg.SHUFFLE_PIN, Pin.OUT, value=0) if cfg.SHUFFLE_PIN else None
        self.feed_fwd = machine.PWM(Pin(cfg.FEED_IN1_PIN))
        self.feed_rev = machine.PWM(Pin(cfg.FEED_IN2_PIN))
        self.feed_fwd.freq(20000)
        self.feed_rev.freq(20000)
        self.np = neopixel.NeoPixel(Pin(cfg.LED_PIN), cfg.SEATS * cfg.LEDS_PER_SEAT)
        self.led_state = [(0, (0, 0, 0))] * cfg.SEATS
        self.positions = cfg.SEATS + 5
        self.position = None
        self.cards = cfg.HOPPER_CARDS
        self.last_door = self.door.value()
        self.stop()

    # ---- sensors ------------------------------------------------------------------------------
    def homed(self):
        return self.position is not None

    def hopper_count(self):
        return self.cards

    def door_open(self):
        return self.door.value() == 1

    def card_at_exit(self):
        return self.exit.value() == 0

    def timing(self):
        """(card_ms, move_ms, shuffle_ms): the most one card, one move (homing included) and one shuffle take."""
        cfg = self.cfg
        card_ms = 2 * cfg.SEE_TIMEOUT_MS + cfg.VIBRATE_MS + 2 * cfg.REVERSE_MS + cfg.CLEAR_TIMEOUT_MS
        move_ms = cfg.HOME_MAX_STEPS * 2 * cfg.STEP_US // 1000 + 1
        shuffle_ms = cfg.SHUFFLE_MS if self.shuffler is not None else 0
        return min(card_ms, 0xFFFF), min(move_ms, 0xFFFF), min(shuffle_ms, 0xFFFF)

    def poll_events(self):
        door = self.door.value()
        if door != self.last_door:
            self.last_door = door
            return [(proto.DOOR, bytes((door,)))]
        return []

    # ---- motors -------------------------------------------------------------------------------
    def stop(self):
        self.feed_fwd.duty_u16(0)
        self.feed_rev.duty_u16(0)
        self.enable.value(1)
        self.flip.value(0)
        if self.shuffler is not None:
            self.shuffler.value(0)

    def _steps(self, count, forward):
        """Step the carousel, yielding every 32 steps so the link is served."""
        self.enable.value(0)
        self.dir.value(1 if forward else 0)
        for i in range(count):
            self.step.value(1)
            _sleep_us(self.cfg.STEP_US)
            self.step.value(0)
            _sleep_us(self.cfg.STEP_US)
            if i % 32 == 31:
                yield 0

    def home(self):
        self.position = None
        self.enable.value(0)
        self.dir.value(1)
        for i in range(self.cfg.HOME_MAX_STEPS):
            if self.hall.value() == 0:
                self.position = 0
                return proto.OK
            self.step.value(1)
            _sleep_us(self.cfg.STEP_US)
            self.step.value(0)
            _sleep_us(self.cfg.STEP_US)
            if i % 32 == 31:
                yield 0
        self.enable.value(1)
        return proto.E_HOMING_FAILED

    def rotate(self, position):
        if self.position is None:
            return proto.E_NOT_HOMED
        forward = (position - self.position) % self.positions
        backward = (self.position - position) % self.positions
        per = self.cfg.STEPS_PER_REV // self.positions
        if forward <= backward:
            yield from self._steps(forward * per, True)
        else:
            yield from self._steps(backward * per, False)
        self.position = position
        return proto.OK

    def _wait_exit(self, present, timeout_ms):
        waited = 0
        while self.card_at_exit() != present:
            if waited >= timeout_ms:
                return False
            yield 1
            waited += 1
        return True

    def feed(self, face):
        cfg = self.cfg
        if face:
            self.flip.value(1)
        seen = False
        for attempt in range(2):
            self.feed_fwd.duty_u16(cfg.FEED_DUTY)
            seen = yield from self._wait_exit(True, cfg.SEE_TIMEOUT_MS)
            self.feed_fwd.duty_u16(0)
            if seen:
                break
            if attempt == 0:  # vibrate and retry once
                self.feed_rev.duty_u16(cfg.FEED_DUTY)
                yield cfg.VIBRATE_MS // 2
                self.feed_rev.duty_u16(0)
                yield cfg.VIBRATE_MS // 2
        # reverse pulse: the next card stays in the hopper
        self.feed_rev.duty_u16(cfg.FEED_DUTY)
        yield cfg.REVERSE_MS
        self.feed_rev.duty_u16(0)
        if not seen:
            self.flip.value(0)
            return proto.E_MISFEED, proto.CARD_UNKNOWN
        cleared = yield from self._wait_exit(False, cfg.CLEAR_TIMEOUT_MS)
        self.flip.value(0)
        if not cleared:
            return proto.E_JAM, proto.CARD_UNKNOWN
        self.cards = max(0, self.cards - 1)
        return proto.OK, proto.CARD_UNKNOWN

    def shuffle(self):
        if self.shuffler is None:
            return proto.E_BAD_REQUEST
        self.shuffler.value(1)
        yield self.cfg.SHUFFLE_MS
        self.shuffler.value(0)
        return proto.OK

    # ---- LEDs -------------------------------------------------------------------------------------
    def set_led(self, seat, pattern, r, g, b):
        seats = range(self.cfg.SEATS) if seat == 0 else (seat - 1,)
        for s in seats:
            self.led_state[s] = (pattern, (r, g, b))
        self.show_leds(0)

    def show_leds(self, now):
        """Draw the patterns (OFF, SOLID, BLINK 2 Hz, PULSE 1 Hz, CHASE) at time ``now`` ms."""
        n = self.cfg.LEDS_PER_SEAT
        for s, (pattern, colour) in enumerate(self.led_state):
            for k in range(n):
                if pattern == 0:
                    c = (0, 0, 0)
                elif pattern == 2:
                    c = colour if (now // 250) % 2 == 0 else (0, 0, 0)
                elif pattern == 3:
                    level = abs(500 - now % 1000) / 500
                    c = (int(colour[0] * level), int(colour[1] * level), int(colour[2] * level))
                elif pattern == 4:
                    c = colour if (now // 100) % n == k else (0, 0, 0)
                else:
                    c = colour
                self.np[s * n + k] = c
        self.np.write()
