"""Long fuzz run of the dealer protocol, with counts: the frame decoder on random bytes, every payload decoder
on random payloads, the firmware core (as the simulator runs it) on random command frames, and the host
(`Dealer` over a pseudo-terminal) against a device that answers every command with random well-formed
frames. An exception other than the package's own is a traceback; a host call past the longest it may take is
a hang: its cap from the timing the device stated (a lying device may state up to the host's most believed
times, 10 s a card, 30 s a move, 120 s a shuffle), a recovery before it, settling, and 5 s of slack
(tests/firmware_bridge/host_calls.py), as is a whole session past ``--bound``. The first few are shown; each
host case draws from its own generator, so ``--case N`` replays one.

    .venv/bin/python benchmarks/fuzz_dealer.py [--seed 1] [--bytes 20000] [--payloads 50000]
        [--device 3000] [--host 200] [--bound 600] [--case N]

Targets: 0 tracebacks, 0 hangs, no request acted on twice, one final reply per action.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "firmware_bridge"))  # the scripted fake device of the tests

from fake_device import BOOT, FakeDevice, standard  # noqa: E402
from host_calls import every_call  # noqa: E402

from firmware_bridge.dealer import Dealer  # noqa: E402
from firmware_bridge.errors import BridgeError, FrameError  # noqa: E402
from firmware_bridge.firmware import proto  # noqa: E402
from firmware_bridge.framing import MAX_PAYLOAD, Frame, Packetizer  # noqa: E402
from firmware_bridge.messages import (  # noqa: E402
    ACTIONS,
    CardDealt,
    DealRequest,
    ErrorCode,
    Failed,
    HelloInfo,
    LedRequest,
    MsgType,
    Query,
    RequestState,
    StatusInfo,
    Timing,
    decode_codes,
    describe,
)
from firmware_bridge.simulator import Simulator  # noqa: E402


@dataclass
class Tally:
    cases: int = 0
    tracebacks: int = 0
    hangs: int = 0
    violations: int = 0
    seconds: float = 0.0
    slowest: float = 0.0  # the longest case, in seconds (host sessions)
    examples: list[str] = field(default_factory=list)

    def note(self, kind: str, text: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {text}")


def random_bytes(rng: random.Random, most: int) -> bytes:
    return rng.randbytes(rng.randint(0, most))


def frame_bytes(rng: random.Random) -> bytes:
    """Random bytes, valid frames, valid frames with one byte changed, and runs of delimiters."""
    kind = rng.random()
    if kind < 0.4:
        return random_bytes(rng, 200)
    frame = Frame(rng.randrange(256), rng.randrange(0x10000), rng.randrange(0x10000), random_bytes(rng, MAX_PAYLOAD))
    wire = bytearray(frame.encode())
    if kind < 0.8:
        wire[rng.randrange(len(wire))] ^= rng.randrange(1, 256)
    return bytes(wire) * rng.randint(1, 3)


def fuzz_framing(rng: random.Random, n: int, tally: Tally) -> None:
    host, device = Packetizer(), proto.Deframer()
    for _ in range(n):
        data = frame_bytes(rng)
        tally.cases += 1
        try:
            for frame in host.data_received(data):
                assert isinstance(frame, Frame)
            device.feed(data)
        except Exception:
            tally.note("tracebacks", traceback.format_exc(limit=3))


DECODERS: list[Callable[[bytes], object]] = [
    DealRequest.decode,
    LedRequest.decode,
    HelloInfo.decode,
    StatusInfo.decode,
    CardDealt.decode,
    Failed.decode,
    Query.decode,
    RequestState.decode,
    lambda p: decode_codes(p, "DONE"),
]


def fuzz_payloads(rng: random.Random, n: int, tally: Tally) -> None:
    for _ in range(n):
        payload = random_bytes(rng, MAX_PAYLOAD)
        tally.cases += 1
        for decode in DECODERS:
            try:
                decode(payload)
            except FrameError:
                pass
            except Exception:
                tally.note("tracebacks", traceback.format_exc(limit=3))
        try:
            describe(rng.randrange(256), payload)
        except Exception:
            tally.note("tracebacks", traceback.format_exc(limit=3))


def command(rng: random.Random, boot: int) -> Frame:
    commands = [int(t) for t in MsgType if t < 0x80]
    mtype = rng.choice(commands) if rng.random() < 0.9 else rng.randrange(256)
    roll = rng.random()
    if roll < 0.4:
        payload = bytes([rng.randrange(6), rng.randrange(7), rng.randrange(60), rng.randrange(3)])
    elif roll < 0.6:
        payload = Query(rng.randrange(60), rng.randrange(60), rng.randrange(10)).encode()
    else:
        payload = random_bytes(rng, 10)
    request = rng.randrange(1, 60) if rng.random() < 0.8 else rng.randrange(0x10000)
    return Frame(mtype, request, rng.choice([boot, boot, 0, rng.randrange(0x10000)]), payload)


def fuzz_device(rng: random.Random, n: int, tally: Tally) -> None:
    """The firmware core the simulator runs: random commands, then the invariants."""
    for _ in range(n):
        tally.cases += 1
        sim = Simulator(seats=4, speed=50, card_reader=True, seed=rng.randrange(1000))
        out: list[bytes] = []
        try:
            core = sim._boot(out.append, 0)
            now = 0
            core.receive(Frame(MsgType.HOME, 0xFFFF, core.boot_id).encode(), now)
            reads: set[int] = set()
            for _ in range(rng.randint(1, 60)):
                frame = command(rng, core.boot_id)
                if frame.type not in ACTIONS:
                    reads.add(frame.request)
                core.receive(frame.encode(), now)
                end = now + rng.randrange(300)
                while now < end:
                    now += max(1, min(core.tick(now), end - now))
        except Exception:
            tally.note("tracebacks", traceback.format_exc(limit=3))
            continue
        finals: dict[int, set[bytes]] = {}
        for reply in Packetizer().data_received(b"".join(out)):
            stale = reply.type == MsgType.FAILED and reply.payload[:1] == bytes([ErrorCode.STALE_REQUEST])
            if reply.type in (MsgType.DONE, MsgType.FAILED) and reply.request not in reads and not stale:
                finals.setdefault(reply.request, set()).add(reply.encode())
        if any(len(sent) > 1 for sent in finals.values()):
            tally.note("violations", "two different final replies to one action")
        runs = [d["request"] for d in sim.deals()]
        starts = Counter(r for i, r in enumerate(runs) if i == 0 or runs[i - 1] != r)
        if any(c > 1 for c in starts.values()):
            tally.note("violations", f"a request dealt in two runs: {starts.most_common(1)}")


def host_session(answer: Callable[[Frame], list[Frame]], errors: list[str], trace: list[str]) -> None:
    """Open a Dealer on the scripted device and make every kind of call; note what should not happen (a call
    past the longest it may take from the timing the host believes: a hang), and in ``trace`` each call."""
    try:
        with FakeDevice(answer, heartbeat_s=0.05) as device:
            start = time.monotonic()
            try:
                dealer = Dealer.open(device.url, timeout=0.25, settle_s=0.5)
            except BridgeError as exc:
                trace.append(f"open {time.monotonic() - start:.1f} s: {type(exc).__name__}: {exc}")
                return
            trace.append(f"open {time.monotonic() - start:.1f} s, timing believed {dealer.timing}")
            try:
                for call in every_call(dealer):
                    trace.append(str(call))
                    if call.overran:
                        errors.append(f"hangs: {call}")
                if not dealer.link._thread.is_alive():
                    errors.append("violations: the link's reader thread died")
            finally:
                dealer.close()
    except Exception:
        errors.append("tracebacks: " + traceback.format_exc(limit=4))


def fuzz_host(seed: int, n: int, tally: Tally, bound_s: float, only: int | None = None) -> None:
    """A Dealer over a pty against a device whose first answers are random well-formed frames. Each case draws
    from its own generator (seeded by the run's seed and the case's number), so that ``--case N`` replays one."""
    for case in range(n) if only is None else [only]:
        rng = random.Random(f"{seed}/{case}")
        tally.cases += 1
        same = rng.random()  # how often a scripted frame carries the request id of the command it answers
        script = [
            [
                (
                    Frame(
                        rng.choice([int(t) for t in MsgType]) if rng.random() < 0.8 else rng.randrange(256),
                        rng.randrange(0x10000),
                        rng.choice([BOOT, BOOT, rng.randrange(0x10000)]),
                        random_bytes(rng, MAX_PAYLOAD),
                    ),
                    rng.random() < same,
                )
                for _ in range(rng.randint(0, 4))
            ]
            for _ in range(rng.randint(1, 12))
        ]

        def answer(frame: Frame, script: list[list[tuple[Frame, bool]]] = script) -> list[Frame]:
            if script:
                return [
                    Frame(f.type, frame.request if echo else f.request, f.boot, f.payload) for f, echo in script.pop(0)
                ]
            if frame.type == MsgType.HELLO:
                info = HelloInfo(1, (1, 1, 0), True, 4, 4, answers_query=True, timing=Timing(20, 20, 20))
                return [Frame(MsgType.HELLO_INFO, frame.request, BOOT, info.encode())]
            return standard(frame) or []

        errors: list[str] = []
        trace: list[str] = []
        worker = threading.Thread(target=host_session, args=(answer, errors, trace), daemon=True)
        start = time.monotonic()
        worker.start()
        worker.join(bound_s)
        if worker.is_alive():
            worker.join()
            took = time.monotonic() - start
            tally.note("hangs", f"host case {case} past {bound_s:g} s ({took:.0f} s):\n" + "\n".join(trace))
        took = time.monotonic() - start
        tally.slowest = max(tally.slowest, took)
        for error in errors:
            kind, _, text = error.partition(": ")
            tally.note(kind, text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bytes", type=int, default=20000, help="chunks of bytes to both frame decoders")
    parser.add_argument("--payloads", type=int, default=50000, help="random payloads to every payload decoder")
    parser.add_argument("--device", type=int, default=3000, help="random command sequences to the firmware core")
    parser.add_argument("--host", type=int, default=200, help="host sessions against a random-answering device")
    parser.add_argument(
        "--bound",
        type=float,
        default=600.0,
        help="seconds a whole host session may take (each call is also held to the longest it may take from the "
        "timing the device stated: tests/firmware_bridge/host_calls.py)",
    )
    parser.add_argument("--case", type=int, default=None, help="run only this host case (with --host, the seed)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ok = True
    runs: list[tuple[str, Callable[[Tally], None]]] = [
        ("frame decoders (host and firmware)", lambda t: fuzz_framing(rng, args.bytes, t)),
        ("payload decoders", lambda t: fuzz_payloads(rng, args.payloads, t)),
        ("firmware core", lambda t: fuzz_device(rng, args.device, t)),
        ("host sessions over a pty", lambda t: fuzz_host(args.seed, args.host, t, args.bound, args.case)),
    ]
    for name, fuzz in runs:
        tally = Tally()
        start = time.monotonic()
        fuzz(tally)
        tally.seconds = time.monotonic() - start
        print(
            f"{name}: {tally.cases} cases, {tally.tracebacks} tracebacks, {tally.hangs} hangs, "
            f"{tally.violations} violations, {tally.seconds:.0f} s"
            + (f", slowest case {tally.slowest:.1f} s" if tally.slowest else ""),
            flush=True,
        )
        for example in tally.examples:
            print("   ", example.replace("\n", "\n    "))
        ok = ok and not (tally.tracebacks or tally.hangs or tally.violations)
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
