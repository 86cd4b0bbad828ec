# mypy: ignore-errors
# Entry point on the Pico: serve the dealer protocol on the USB serial port.
# Copy proto.py, core.py, config.py, hardware.py and this file to the board (mpremote cp *.py :).

import os
import select
import sys
import time

import config
import core
import hardware
import micropython

micropython.kbd_intr(-1)  # a 0x03 inside a frame must not raise KeyboardInterrupt


class Clock:
    """Milliseconds since boot that never wrap (time.ticks_ms wraps after about 12 days)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.ms = 0

    def now(self):
        t = time.ticks_ms()
        self.ms += time.ticks_diff(t, self.last)
        self.last = t
        return self.ms


def run():
    hw = hardware.PicoHardware()
    usb_in = sys.stdin.buffer
    usb_out = sys.stdout.buffer
    clock = Clock()
    boot_id = int.from_bytes(os.urandom(2), "big") or 1
    device = core.Core(
        hw,
        usb_out.write,
        boot_id,
        config.SEATS,
        card_reader=False,
        now=clock.now(),
        heartbeat_ms=config.HEARTBEAT_MS,
        host_timeout_ms=config.HOST_TIMEOUT_MS,
    )
    poller = select.poll()
    poller.register(usb_in, select.POLLIN)
    last_led = 0
    while True:
        now = clock.now()
        due = device.tick(now)
        if now - last_led >= 20:
            hw.show_leds(now)
            last_led = now
        # wait for the host until the next job step is due (20 ms at most, for the LED patterns)
        if poller.poll(int(min(due, 20))):
            data = bytearray()
            while len(data) < 256 and poller.poll(0):
                data += usb_in.read(1)  # USB stdin gives one byte per read
            device.receive(bytes(data), clock.now())


run()
