# The reference firmware for a Raspberry Pi Pico (MicroPython). On the board the modules sit flat
# in /; here they form a package so the simulator and the tests can import them.
