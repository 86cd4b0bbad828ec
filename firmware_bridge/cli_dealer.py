"""``cardtable dealer``: drive a dealer machine by hand.

cardtable dealer --port /dev/ttyACM0 hello
cardtable dealer --port socket://127.0.0.1:7000 deal --to seat:2 --count 3 --face up
cardtable dealer --port PATH leds --seat 2 --colour red --pattern blink
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import sys
import time
from dataclasses import asdict
from typing import Any

from firmware_bridge.backends import ENV_VAR
from firmware_bridge.dealer import Dealer, DealError, DealResult
from firmware_bridge.errors import BridgeError
from firmware_bridge.messages import ALL_SEATS, MAX_DEAL_COUNT, Pattern, Target

# Exit codes (docs/protocol.md): 0 done; 1 the machine could not do it (hopper empty, jam, door open,
# stopped, no result in time: the message says how many cards went out); 2 a bad argument, no link,
# no answer, or a reply that breaks the protocol.
EXIT_OK = 0
EXIT_DEVICE = 1
EXIT_USAGE_OR_LINK = 2
MAX_TIMEOUT_S = 3600.0

COLOURS = {
    "off": (0, 0, 0),
    "red": (255, 0, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "white": (255, 255, 255),
    "yellow": (255, 200, 0),
    "amber": (255, 120, 0),
    "purple": (160, 0, 255),
    "cyan": (0, 255, 255),
}


def _colour(text: str) -> tuple[int, int, int]:
    if text.lower() in COLOURS:
        return COLOURS[text.lower()]
    parts = text.split(",")
    try:
        rgb = tuple(int(p) for p in parts)
    except ValueError:
        rgb = ()
    if len(rgb) != 3 or any(not 0 <= c <= 255 for c in rgb):
        raise argparse.ArgumentTypeError(f"a colour name ({', '.join(COLOURS)}) or R,G,B 0..255, not {text!r}")
    return (rgb[0], rgb[1], rgb[2])


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"seconds must be a number above 0 and at most {MAX_TIMEOUT_S:g}, not {text!r}"
        )
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_DEAL_COUNT:
        raise argparse.ArgumentTypeError(f"a count of 1..{MAX_DEAL_COUNT} cards, not {text!r}")
    return value


def _seat(text: str) -> int:
    if text.strip().lower() == "all":
        return ALL_SEATS
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 1 <= value <= 255:
        raise argparse.ArgumentTypeError(f"a seat number (1 and up, as the machine has them) or 'all', not {text!r}")
    return value


def _target(text: str) -> Target:
    try:
        return Target.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        default=os.environ.get(ENV_VAR),
        help=f"device URL: /dev/ttyACM0, a pty path, socket://host:port (default ${ENV_VAR})",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=2.0,
        help="seconds the device may stay silent, and the margin on top of the time a command needs (default 2)",
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("hello", help="who is the device")
    sub.add_parser("status", help="hopper count, homed, door, errors")
    sub.add_parser("home", help="home the carousel")
    sub.add_parser("shuffle", help="shuffle the hopper")
    sub.add_parser("stop", help="stop every motor")
    deal = sub.add_parser("deal", help="deal cards to a seat or place")
    deal.add_argument("--to", type=_target, required=True, help="seat:N, widow, layout, stock, slough, turnup")
    deal.add_argument("--count", type=_count, default=1, help=f"1..{MAX_DEAL_COUNT} cards (default 1)")
    deal.add_argument("--face", choices=["up", "down"], default="down")
    leds = sub.add_parser("leds", help="set a seat LED's colour and pattern")
    leds.add_argument("--seat", type=_seat, default=ALL_SEATS, help="seat number or 'all' (the default)")
    leds.add_argument("--colour", "--color", type=_colour, default=(255, 255, 255))
    leds.add_argument("--pattern", choices=[p.name.lower() for p in Pattern], default="solid")
    events = sub.add_parser("events", help="print device events for a while")
    events.add_argument("--seconds", type=_seconds, default=10.0)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)


def run(args: argparse.Namespace) -> int:
    if not args.port:
        print(f"dealer: no port: pass --port URL or set {ENV_VAR}", file=sys.stderr)
        return EXIT_USAGE_OR_LINK
    try:
        dealer = Dealer.open(args.port, timeout=args.timeout, home=args.action in ("deal", "shuffle"))
    except DealError as exc:  # homing failed: the machine's own answer
        return _fail(exc, EXIT_DEVICE)
    except (BridgeError, OSError, ValueError) as exc:
        return _fail(exc, EXIT_USAGE_OR_LINK)
    try:
        return _act(dealer, args)
    except DealError as exc:
        return _fail(exc, EXIT_DEVICE)
    except (BridgeError, OSError, ValueError) as exc:  # the package's root: no traceback reaches the user
        return _fail(exc, EXIT_USAGE_OR_LINK)
    finally:
        dealer.close()


def _fail(exc: BaseException, code: int) -> int:
    message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"dealer: {message}", file=sys.stderr)
    return code


def _print(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    print(json.dumps(_jsonable(data)) if args.json else text)


def _act(dealer: Dealer, args: argparse.Namespace) -> int:
    action = args.action
    if action == "hello":
        info = dealer.hello()
        v = ".".join(map(str, info.firmware))
        _print(
            args,
            asdict(info),
            f"protocol {info.protocol}, firmware {v}, {info.seats} seats, {info.leds} LEDs, "
            f"card reader {'yes' if info.card_reader else 'no'}, boot id {info.boot_id:#06x}",
        )
    elif action == "status":
        s = dealer.status()
        _print(
            args,
            asdict(s),
            f"hopper {s.hopper}, {'homed' if s.homed else 'not homed'}, door "
            f"{'open' if s.door_open else 'closed'}, {'busy' if s.busy else 'idle'}, last error {s.last_error.name}",
        )
    elif action == "home":
        dealer.home()
        _print(args, {"homed": True}, "homed")
    elif action == "shuffle":
        n = dealer.shuffle()
        _print(args, {"hopper": n}, f"shuffled {n} cards")
    elif action == "stop":
        dealer.stop()
        _print(args, {"stopped": True}, "stopped")
    elif action == "deal":
        result: DealResult = dealer.deal(args.to, args.count, args.face)
        cards = " ".join(str(c) if c is not None else "??" for c in result.cards)
        _print(
            args,
            {
                "ok": result.ok,
                "target": str(result.target),
                "face": result.face.name.lower(),
                "requested": result.requested,
                "dealt": len(result.dealt),
                "cards": [None if c is None else str(c) for c in result.cards],
                "code": result.code.name,
                "reason": result.reason,
            },
            f"dealt {len(result.dealt)} of {result.requested} to {result.target} face {result.face.name.lower()}"
            + (f": {cards}" if any(c is not None for c in result.cards) else "")
            + ("" if result.ok else f"; stopped: {result.reason} ({result.code.name})"),
        )
        return EXIT_OK if result.ok else EXIT_DEVICE
    elif action == "leds":
        dealer.set_led(args.seat, args.colour, args.pattern)
        _print(
            args,
            {"seat": args.seat, "colour": args.colour, "pattern": args.pattern},
            f"seat {args.seat or 'all'}: {args.pattern} {args.colour}",
        )
    elif action == "events":
        end = time.monotonic() + args.seconds
        while (left := end - time.monotonic()) > 0:
            try:
                event = dealer.events.get(timeout=left)
            except queue.Empty:
                break
            _print(args, {"event": type(event).__name__, **asdict(event)}, repr(event))
    return 0
