"""Every kind of Dealer call, each timed against the longest it may take: what the fuzzing test and
benchmarks/fuzz_dealer.py make of a session against a device that answers at random.

A call may take as long as the device says its work takes (``Dealer.limit``, from the timing the host
believes: a lying device can state up to ``MOST_BELIEVED``), so "bounded" means within that cap, not within
a fixed number of seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.dealer import Dealer
from firmware_bridge.errors import BridgeError
from firmware_bridge.messages import MsgType

SLACK_S = 5.0
"""Added to every call's allowance: a loaded machine's scheduling delays."""


@dataclass(frozen=True)
class CallTime:
    name: str
    seconds: float
    allowed: float
    outcome: str  # "returned" or the BridgeError's class and message

    @property
    def overran(self) -> bool:
        return self.seconds > self.allowed

    def __str__(self) -> str:
        return f"{self.name} {self.seconds:.1f} s (allowed {self.allowed:.1f} s): {self.outcome}"[:300]


def allowed_s(dealer: Dealer, mtype: MsgType, count: int = 0) -> float:
    """The longest a call may take: its own cap (``Dealer.limit``), a recovery that may come first (HELLO,
    CONFIG, HOME with its cap, STATUS), settling after each of the two is given up (a STOP and the question
    what became of it, ``settle_s``), a few more timeouts for the short requests, and ``SLACK_S``."""
    caps = dealer.limit(mtype, count) + dealer.limit(MsgType.HOME)
    return caps + 2 * dealer.settle_s + 8 * dealer.timeout + SLACK_S


def every_call(dealer: Dealer) -> list[CallTime]:
    """Deal, LED, status, shuffle and a face-up deal, each timed; a BridgeError is an outcome, any other
    exception goes to the caller. The allowance is taken before and after the call (a HELLO_INFO met on the
    way may change the timing the host believes), the larger kept."""
    calls: list[tuple[str, MsgType, int, Callable[[], object]]] = [
        ("deal seat:1 2", MsgType.DEAL, 2, lambda: dealer.deal("seat:1", 2)),
        ("set_led", MsgType.LED, 0, lambda: dealer.set_led(1, (1, 2, 3))),
        ("status", MsgType.STATUS, 0, dealer.status),
        ("shuffle", MsgType.SHUFFLE, 0, dealer.shuffle),
        ("deal layout 1 up", MsgType.DEAL, 1, lambda: dealer.deal("layout", 1, face="up")),
    ]
    times: list[CallTime] = []
    for name, mtype, count, call in calls:
        before = allowed_s(dealer, mtype, count)
        start = time.monotonic()
        outcome = "returned"
        try:
            call()
        except BridgeError as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        took = time.monotonic() - start
        times.append(CallTime(name, took, max(before, allowed_s(dealer, mtype, count)), outcome))
    return times
