"""Firmware bridge benchmark: round trips and command rate over a pty, and 1,000 deals through a
clean and a garbled wire, checked against the simulator's log of what it physically dealt.

    .venv/bin/python benchmarks/bench_bridge.py [--deals 1000] [--speed 10] [--commands 2000]

The simulator runs as `cardtable dealer-sim` in its own process, as a board would.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from firmware_bridge.backends import serial_backend
from firmware_bridge.dealer import Dealer


def start_sim(*extra: str, log: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "table.cli", "dealer-sim", "--pty", *extra]
    if log is not None:
        cmd += ["--log", str(log)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=10)


def round_trips(commands: int) -> dict[str, float]:
    proc, url = start_sim("--seats", "4", "--speed", "1000")
    try:
        with Dealer(serial_backend(url)) as dealer:
            for _ in range(50):  # warm up
                dealer.status()
            times = []
            start = time.perf_counter()
            for i in range(commands):
                t0 = time.perf_counter()
                if i % 2:
                    dealer.status()
                else:
                    dealer.set_led(i % 4 + 1, (i % 256, 0, 0))
                times.append(time.perf_counter() - t0)
            elapsed = time.perf_counter() - start
    finally:
        stop(proc)
    times.sort()
    return {
        "commands": commands,
        "commands_per_s": commands / elapsed,
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * len(times))] * 1000,
        "max_ms": times[-1] * 1000,
    }


def deals(n: int, speed: float, faults: list[str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "truth.jsonl"
        packs = n // 52 + 1
        proc, url = start_sim(
            "--seats",
            "4",
            "--card-reader",
            "--packs",
            str(packs),
            "--seed",
            "7",
            "--speed",
            str(speed),
            *faults,
            log=log,
        )
        targets = [f"seat:{i % 4 + 1}" if i % 7 else "layout" for i in range(n)]
        reported: list[str] = []
        try:
            with Dealer(serial_backend(url)) as dealer:
                start = time.perf_counter()
                for target in targets:
                    reported += [str(c) for c in dealer.deal(target).check().cards]
                elapsed = time.perf_counter() - start
                stats = dealer.stats
        finally:
            stop(proc)
        truth = [json.loads(line) for line in log.read_text().splitlines()]
    dealt = [t for t in truth if t["action"] == "deal"]
    requests = [t["request"] for t in dealt]
    return {
        "deals": n,
        "speed": speed,
        "faults": " ".join(faults) or "none",
        "deals_per_s": n / elapsed,
        "targets_exact_in_order": [t["target"] for t in dealt] == targets,
        "cards_match_truth": reported == [t["card"] for t in dealt],
        "none_twice": len(set(requests)) == len(requests),
        "retries": stats.retries,
        "polls": stats.polls,
        "crc_errors": stats.crc_errors,
        "bad_frames": stats.bad_frames,
        "final_copies": dealer.link.copies,
    }


def reboots(cards: int = 120, garbled: bool = False) -> dict[str, float]:
    """A board that reboots after every 7 cards, mid-deal: how fast the host notices, and nothing twice."""
    from firmware_bridge.dealer import LinkEvent
    from firmware_bridge.messages import ErrorCode
    from firmware_bridge.sim_backends import sim_backend
    from firmware_bridge.simulator import Faults, Simulator
    from table.cards import multi_pack

    faults = Faults(drop=0.05, corrupt=0.05, duplicate=0.01) if garbled else Faults()
    sim = Simulator(seats=4, speed=10, card_reader=True, deck=multi_pack(3), reboot_every=7, seed=3, faults=faults)
    seen: list[float] = []
    failed = 0
    with Dealer(sim_backend(sim)) as dealer:
        dealer.add_listener(
            lambda e: seen.append(time.monotonic()) if isinstance(e, LinkEvent) and e.state == "rebooted" else None
        )
        dealt = 0
        while dealt < cards:
            result = dealer.deal(f"seat:{dealt % 4 + 1}", 3)
            dealt += 3 if result.ok else len(result.dealt) + 1
            failed += result.code is ErrorCode.DEVICE_REBOOTED
    booted = [sim._t0 + r["t"] for r in sim.truth if r["action"] == "reboot"]
    latencies = [s - b for b, s in zip(booted, seen, strict=False)]
    requests = [r["request"] for r in sim.deals()]
    return {
        "reboots": len(booted),
        "failed_with_reason": failed,
        "max_detect_ms": max(latencies) * 1000,
        "median_detect_ms": statistics.median(latencies) * 1000,
        "max_cards_per_request": max(requests.count(r) for r in set(requests)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--speed", type=float, nargs="+", default=[10.0])
    parser.add_argument("--commands", type=int, default=2000)
    args = parser.parse_args()
    rt = round_trips(args.commands)
    print(
        f"fault-free pty: {rt['commands_per_s']:.0f} commands/s, round trip median {rt['median_ms']:.2f} ms, "
        f"p95 {rt['p95_ms']:.2f} ms, max {rt['max_ms']:.1f} ms ({rt['commands']} STATUS/LED commands)"
    )
    ok = rt["commands_per_s"] >= 500 and rt["median_ms"] < 2
    for wire in ("clean", "garbled"):
        rb = reboots(garbled=wire == "garbled")
        print(
            f"reboot every 7 cards (speed x10, {wire} wire): {rb['reboots']} reboots, {rb['failed_with_reason']} "
            f"deals failed with the reason, detected in median {rb['median_detect_ms']:.1f} ms, max "
            f"{rb['max_detect_ms']:.1f} ms; at most {rb['max_cards_per_request']} cards per 3-card request"
        )
        ok = ok and rb["max_detect_ms"] < 1000
        ok = ok and rb["max_cards_per_request"] <= 3 and rb["failed_with_reason"] == rb["reboots"]
    garbled = ["--corrupt", "0.05", "--drop", "0.05", "--duplicate", "0.01"]
    for speed in args.speed:
        clean = deals(args.deals, speed, [])
        bad = deals(args.deals, speed, garbled)
        ratio = float(bad["deals_per_s"]) / float(clean["deals_per_s"])  # type: ignore[arg-type]
        for r in (clean, bad):
            print(
                f"speed x{speed:g} faults {r['faults']}: {r['deals_per_s']:.1f} deals/s; exact targets in order "
                f"{r['targets_exact_in_order']}, cards match truth {r['cards_match_truth']}, none twice "
                f"{r['none_twice']}; retries {r['retries']}, polls {r['polls']}, CRC errors {r['crc_errors']}, "
                f"bad frames "
                f"{r['bad_frames']}, copies {r['final_copies']}"
            )
        # The throughput target is judged where a card takes 20 ms or more (x10 and slower): faster than
        # that no friction feeder deals, and the retry timer, not the mechanics, sets the pace.
        judged = speed <= 10
        print(
            f"speed x{speed:g}: garbled/clean throughput {ratio:.2f}"
            + ("" if judged else " (not judged: mechanics faster than any real feeder)")
        )
        ok = ok and all(
            bool(r[k]) for r in (clean, bad) for k in ("targets_exact_in_order", "cards_match_truth", "none_twice")
        )
        ok = ok and (ratio >= 0.5 or not judged)
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
