# mypy: ignore-errors
# Pin map and mechanics of the reference machine (see docs/wiring.md). Edit to match your build.
SEATS = 4
STEP_PIN = 2  # A4988/DRV8825 STEP
DIR_PIN = 3  # driver DIR
ENABLE_PIN = 4  # driver EN (active low)
HALL_PIN = 5  # A3144 Hall sensor at the home position (active low, pull-up)
FEED_IN1_PIN = 6  # DRV8833 / L9110S input 1: feed wheel forward
FEED_IN2_PIN = 7  # input 2: feed wheel reverse
EXIT_PIN = 8  # TCRT5000 / slotted IR sensor at the exit (low = card present)
DOOR_PIN = 9  # door switch to ground (high = open, pull-up)
FLIP_PIN = 10  # flipper solenoid through a MOSFET: card leaves face up when pulsed
SHUFFLE_PIN = 11  # shuffler motor through a MOSFET (0 = no shuffler)
LED_PIN = 16  # WS2812 data (through a 74AHCT125 level shifter)
LEDS_PER_SEAT = 1

STEPS_PER_REV = 3200  # 200-step motor at 1/16 microstepping
STEP_US = 400  # half period of one step
HOME_MAX_STEPS = 3600  # a little over one turn: no Hall edge means homing failed
FEED_DUTY = 45000  # PWM duty (of 65535) for the feed wheel
SEE_TIMEOUT_MS = 200  # the card must reach the exit sensor within this
CLEAR_TIMEOUT_MS = 300  # and clear it within this
REVERSE_MS = 20  # reverse pulse so the next card does not follow
VIBRATE_MS = 50
SHUFFLE_MS = 4000
HOPPER_CARDS = 52  # cards assumed loaded at boot (the reference machine has no hopper counter)
HEARTBEAT_MS = 1000
HOST_TIMEOUT_MS = 3000
