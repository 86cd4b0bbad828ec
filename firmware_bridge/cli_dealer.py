"""``cardtable dealer``: drive a dealer machine by hand.

cardtable dealer --port /dev/ttyACM0 hello
cardtable dealer --port socket://127.0.0.1:7000 deal --to seat:2 --count 3 --face up
cardtable dealer --port PATH leds --seat 2 --colour red --pattern blink
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import time
from dataclasses import asdict
from typing import Any

from firmware_bridge.backends import ENV_VAR
from firmware_bridge.dealer import Dealer, DealError, DealResult
from firmware_bridge.errors import BridgeError, LinkError
from firmware_bridge.messages import Pattern, Target

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
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds of silence before giving up")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub.add_parser("hello", help="who is the device")
    sub.add_parser("status", help="hopper count, homed, door, errors")
    sub.add_parser("home", help="home the carousel")
    sub.add_parser("shuffle", help="shuffle the hopper")
    sub.add_parser("stop", help="stop every motor")
    deal = sub.add_parser("deal", help="deal cards to a seat or place")
    deal.add_argument("--to", type=_target, required=True, help="seat:N, widow, layout, stock, slough, turnup")
    deal.add_argument("--count", type=int, default=1)
    deal.add_argument("--face", choices=["up", "down"], default="down")
    leds = sub.add_parser("leds", help="set a seat LED's colour and pattern")
    leds.add_argument("--seat", default="all", help="seat number or 'all'")
    leds.add_argument("--colour", "--color", type=_colour, default=(255, 255, 255))
    leds.add_argument("--pattern", choices=[p.name.lower() for p in Pattern], default="solid")
    events = sub.add_parser("events", help="print device events for a while")
    events.add_argument("--seconds", type=float, default=10.0)


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
        return 2
    try:
        dealer = Dealer.open(args.port, timeout=args.timeout, home=args.action in ("deal", "shuffle"))
    except (BridgeError, OSError) as exc:
        print(f"dealer: {exc}", file=sys.stderr)
        return 2
    try:
        return _act(dealer, args)
    except DealError as exc:
        print(f"dealer: {exc}", file=sys.stderr)
        return 1
    except (LinkError, OSError, ValueError) as exc:
        print(f"dealer: {exc}", file=sys.stderr)
        return 2
    finally:
        dealer.close()


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
        if not 1 <= args.count <= 52:
            print("dealer: --count must be 1..52", file=sys.stderr)
            return 2
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
        return 0 if result.ok else 1
    elif action == "leds":
        seat = 0 if args.seat == "all" else int(args.seat)
        dealer.set_led(seat, args.colour, args.pattern)
        _print(
            args,
            {"seat": seat, "colour": args.colour, "pattern": args.pattern},
            f"seat {args.seat}: {args.pattern} {args.colour}",
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
