# Entry point on the Pico: serve the dealer protocol on the USB serial port.
# Copy proto.py, core.py, config.py, hardware.py and this file to the board (mpremote cp *.py :).

import os
import select
import sys
import time

import config
import core
import hardware


def run():
    hw = hardware.PicoHardware()
    usb_in = sys.stdin.buffer
    usb_out = sys.stdout.buffer
    boot_id = int.from_bytes(os.urandom(2), "big") or 1
    device = core.Core(hw, usb_out.write, boot_id, config.SEATS, card_reader=False,
                       now=time.ticks_ms(), heartbeat_ms=config.HEARTBEAT_MS,
                       host_timeout_ms=config.HOST_TIMEOUT_MS)
    poller = select.poll()
    poller.register(usb_in, select.POLLIN)
    due = 0
    last_led = 0
    while True:
        if poller.poll(min(due, 20)):
            data = usb_in.read(1)  # stdin on the Pico delivers one byte per read without blocking
            now = time.ticks_ms()
            device.receive(data, now)
        now = time.ticks_ms()
        due = device.tick(now)
        if time.ticks_diff(now, last_led) >= 20:
            hw.show_leds(now)
            last_led = now


run()
