"""``cardtable dealer-sim``: serve a simulated dealer machine on a pseudo-terminal or a TCP port.

The first line printed is the URL to connect to (a pty path or ``socket://127.0.0.1:PORT``).
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import threading

from firmware_bridge.errors import BridgeError
from firmware_bridge.simulator import Faults, Simulator, serve_pty, serve_tcp
from table.cards import Card, multi_pack, shuffled


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number, not {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"a finite number, not {text!r}")
    return value


def _probability(text: str) -> float:
    value = _number(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"a probability in [0, 1), not {text}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _positive_int(text: str) -> int:
    value = _non_negative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return value


def _tcp_port(text: str) -> int:
    value = _non_negative(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a TCP port is 0..65535, not {text}")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
    return value


def _non_negative_float(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal (the default)")
    where.add_argument("--tcp", type=_tcp_port, metavar="PORT", help="serve on this TCP port of 127.0.0.1 (0: any)")
    parser.add_argument(
        "--link",
        metavar="PATH",
        help="stable path for the pty (a symlink, as udev makes); never replaces a file it did not make",
    )
    parser.add_argument("--seats", type=_positive_int, default=4, help="seats around the carousel (default 4)")
    parser.add_argument("--card-reader", action="store_true", help="report the identity of each card dealt")
    parser.add_argument("--packs", type=_positive_int, default=1, help="52-card packs in the hopper (default 1)")
    parser.add_argument("--deck", metavar="CARDS", help="hopper order, first dealt first, e.g. 'AS,KH,2C'")
    parser.add_argument("--seed", type=int, help="seed for boot ids, shuffles and faults")
    parser.add_argument("--speed", type=_positive, default=1.0, help="mechanics run this many times faster")
    parser.add_argument("--drop", type=_probability, default=0.0, help="probability a byte is dropped")
    parser.add_argument("--corrupt", type=_probability, default=0.0, help="probability a byte is corrupted")
    parser.add_argument("--duplicate", type=_probability, default=0.0, help="probability a frame is sent twice")
    parser.add_argument("--delay-ms", type=_non_negative_float, default=0.0, help="delay every frame from the device")
    parser.add_argument("--reboot-every", type=_non_negative, default=0, help="reboot after every N cards dealt")
    parser.add_argument(
        "--slowdown",
        type=_positive,
        default=1.0,
        help="the mechanics take this many times what the machine states (a worn feed wheel, a weak supply)",
    )
    parser.add_argument("--jam-every", type=_non_negative, default=0, help="jam on every Nth feed")
    parser.add_argument("--log", metavar="FILE", help="append JSON Lines of what the machine physically did")


def run(args: argparse.Namespace) -> int:
    if args.deck:
        try:
            deck = [Card.parse(t) for t in args.deck.replace(" ", ",").split(",") if t]
        except ValueError as exc:
            print(f"dealer-sim: --deck: {exc}", file=sys.stderr)
            return 2
    else:
        deck = multi_pack(args.packs)
        if args.seed is not None:
            deck = shuffled(deck, args.seed)
    try:
        sim = Simulator(
            seats=args.seats,
            card_reader=args.card_reader,
            deck=deck,
            seed=args.seed,
            speed=args.speed,
            faults=Faults(args.drop, args.corrupt, args.duplicate, args.delay_ms),
            reboot_every=args.reboot_every,
            jam_every=args.jam_every,
            slowdown=args.slowdown,
            log=args.log,
        )
    except (BridgeError, ValueError, OSError) as exc:
        print(f"dealer-sim: {exc}", file=sys.stderr)
        return 2
    try:
        server = serve_tcp(sim, args.tcp) if args.tcp is not None else serve_pty(sim, link=args.link)
    except (BridgeError, ValueError, OSError) as exc:
        sim.close()
        print(f"dealer-sim: {exc}", file=sys.stderr)
        return 2
    print(server.url, flush=True)
    print(
        f"dealer-sim: {args.seats} seats, {len(deck)} cards, speed x{args.speed}; Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
