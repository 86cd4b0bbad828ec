"""Fault benchmark of the dealer link: deals of 1-52 cards at normal mechanical speed through a garbled
wire, checked card by card against the simulator's log of what it physically dealt.

    .venv/bin/python benchmarks/bench_dealer_faults.py [--deals 1000] [--speed 1] [--seed 1] [--jobs N] [--out FILE]

The simulator runs as `cardtable dealer-sim --tcp 0` in its own process, as a board behind ser2net would,
``--jobs N`` of them each with its own host process, the deals dealt in turn to each (the same deals for any N),
with 5% of bytes corrupted, 5% dropped and 1% of frames duplicated in both directions (`--clean` for
none). For every deal the host's result must say exactly what the log says went out: its target, its
cards in order, and how many; a deal the host could not account for counts as unknown. Targets: every
card reaches its target exactly once, no request is acted on twice, and no deal is unknown.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path

from firmware_bridge.backends import serial_backend
from firmware_bridge.dealer import Dealer, DealInterrupted
from firmware_bridge.errors import BridgeError
from firmware_bridge.link import LinkStats
from firmware_bridge.messages import MsgType

TARGETS = ["seat:1", "seat:2", "seat:3", "seat:4", "layout", "widow", "stock"]
GARBLED = ["--corrupt", "0.05", "--drop", "0.05", "--duplicate", "0.01"]


@dataclass
class DealRecord:
    number: int  # the deal's place in the run's plan, from 1
    target: str
    count: int
    seconds: float
    limit_s: float
    code: str  # the result's ErrorCode name, or "UNKNOWN" when the host could not account for it
    reported: list[str]  # the cards the host says went out, in order ("?" for an unread card)
    reason: str = ""


@dataclass
class Summary:
    deals: int
    cards_asked: int
    cards_dealt: int
    speed: float
    wire: str
    seconds: float
    ok: int
    failed_with_count: dict[str, int]
    unknown: int
    exact: int  # deals whose result equals the log: target, cards in order, count
    wrong: list[str] = field(default_factory=list)
    requests_acted_on_twice: int = 0
    median_deal_s: float = 0.0
    max_over_limit_s: float = 0.0
    retries: int = 0
    polls: int = 0
    crc_errors: int = 0
    bad_frames: int = 0
    copies: int = 1  # the most copies of a command frame any host ended up sending
    jobs: int = 1
    wrong_count: int = 0  # all of them; ``wrong`` lists the first 20


def start_sim(args: argparse.Namespace, packs: int, seed: int, log: Path) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "table.cli", "dealer-sim", "--tcp", "0", "--seats", "4", "--card-reader"]
    cmd += ["--packs", str(packs), "--seed", str(seed), "--speed", str(args.speed), "--log", str(log)]
    cmd += [] if args.clean else GARBLED
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


Plan = list[tuple[int, str, int]]  # (deal number, target, cards)


def plan_deals(deals: int, seed: int) -> Plan:
    """The deals of a run, numbered from 1; the same for any number of jobs."""
    rng = random.Random(seed)
    return [(i, rng.choice(TARGETS), rng.randint(1, 52)) for i in range(1, deals + 1)]


def run(args: argparse.Namespace) -> tuple[Summary, list[DealRecord]]:
    """The deals split between ``args.jobs`` simulators (every jobs-th deal to each, so that each gets as many
    cards on average), each with its own host in its own process, its results judged against its own
    simulator's log; the summaries added up. Wall time is the whole run's."""
    plan = plan_deals(args.deals, args.seed)
    slices = [plan[j :: args.jobs] for j in range(args.jobs)]
    start = time.monotonic()
    if args.jobs == 1:
        parts = [run_slice(args, 0, plan)]
    else:
        with ProcessPoolExecutor(max_workers=args.jobs, mp_context=get_context("spawn")) as pool:
            parts = list(pool.map(run_slice, [args] * args.jobs, range(args.jobs), slices))
    elapsed = time.monotonic() - start
    records = sorted((r for _, rs in parts for r in rs), key=lambda r: r.number)
    return _merge(args, [s for s, _ in parts], records, elapsed), records


def run_slice(args: argparse.Namespace, job: int, plan: Plan) -> tuple[Summary, list[DealRecord]]:
    """``plan``'s deals through one simulator process (seeded ``args.seed + job``), judged against its log."""
    asked = sum(n for _, _, n in plan)
    records: list[DealRecord] = []
    tag = f"[job {job + 1}/{args.jobs}] " if args.jobs > 1 else ""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "truth.jsonl"
        proc, url = start_sim(args, asked // 52 + 2, args.seed + job, log)
        start = time.monotonic()
        try:
            with Dealer(serial_backend(url), timeout=args.timeout) as dealer:
                for k, (i, target, count) in enumerate(plan, start=1):
                    t0 = time.monotonic()
                    try:
                        result = dealer.deal(target, count)
                        code, cards, reason = result.code.name, [_name(c) for c in result.cards], result.reason
                    except DealInterrupted as exc:
                        code, cards, reason = "UNKNOWN", [_name(d.card) for d in exc.dealt], str(exc)
                    except BridgeError as exc:
                        code, cards, reason = "UNKNOWN", [], f"{type(exc).__name__}: {exc}"
                    # a host from before the time caps (PYTHONPATH to an older tree, for a before-and-after) has none
                    limit = dealer.limit(MsgType.DEAL, count) if hasattr(dealer, "limit") else float("nan")
                    records.append(DealRecord(i, target, count, time.monotonic() - t0, limit, code, cards, reason))
                    if code != "OK":
                        print(f"{tag}deal {i} ({count} to {target}): {code}, {len(cards)} cards: {reason}", flush=True)
                    if k % args.every == 0 or k == len(plan):
                        done = sum(r.count for r in records)
                        print(
                            f"{tag}{k}/{len(plan)} deals, {done} cards asked, {time.monotonic() - start:.0f} s; "
                            f"not ok: {sum(r.code != 'OK' for r in records)}",
                            flush=True,
                        )
                stats = dealer.stats
                copies = dealer.link.copies
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        elapsed = time.monotonic() - start
        truth = [json.loads(line) for line in log.read_text().splitlines()]
    return _judge(args, records, truth, elapsed, stats, copies), records


def _name(card: object) -> str:
    return "?" if card is None else str(card)


def _judge(
    args: argparse.Namespace,
    records: list[DealRecord],
    truth: list[dict[str, object]],
    elapsed: float,
    stats: LinkStats,
    copies: int,
) -> Summary:
    """Each result against the log. The log's deal lines come in groups, one per request id, in the order
    of the deals; a deal that sent no card out has no group."""
    dealt = [t for t in truth if t["action"] == "deal"]
    groups: list[list[dict[str, object]]] = []
    for t in dealt:
        if groups and groups[-1][0]["request"] == t["request"]:
            groups[-1].append(t)
        else:
            groups.append([t])
    per_request = Counter(group[0]["request"] for group in groups)
    wrong: list[str] = []
    exact = 0
    g = 0
    for r in records:
        i = r.number
        group = groups[g] if g < len(groups) else []
        if r.code == "UNKNOWN":
            took = bool(group) and all(t["target"] == r.target for t in group)
            g += took
            went = len(group) if took else 0
            wrong.append(f"deal {i} ({r.count} to {r.target}): the host does not know ({r.reason}); the log: {went}")
            continue
        if not r.reported:  # the host says no card went out: the next group belongs to a later deal
            exact += 1
            continue
        g += 1
        logged = [str(t["card"]) for t in group]
        whole = r.code != "OK" or len(r.reported) == r.count
        if whole and logged == r.reported and all(t["target"] == r.target for t in group):
            exact += 1
        else:
            wrong.append(f"deal {i} ({r.count} to {r.target}): the host {r.code} {r.reported}, the log {logged}")
    if g != len(groups):
        wrong.append(f"{len(groups) - g} groups of cards in the log that no result accounts for")
    over = [r.seconds - r.limit_s for r in records]
    return Summary(
        deals=len(records),
        cards_asked=sum(r.count for r in records),
        cards_dealt=len(dealt),
        speed=args.speed,
        wire="clean" if args.clean else " ".join(GARBLED),
        seconds=round(elapsed, 1),
        ok=sum(r.code == "OK" for r in records),
        failed_with_count=dict(Counter(r.code for r in records if r.code not in ("OK", "UNKNOWN"))),
        unknown=sum(r.code == "UNKNOWN" for r in records),
        exact=exact,
        wrong=wrong,
        requests_acted_on_twice=sum(n > 1 for n in per_request.values()),
        median_deal_s=round(statistics.median(r.seconds for r in records), 2),
        max_over_limit_s=round(max(over), 2) if over else 0.0,
        retries=stats.retries,
        polls=stats.polls,
        crc_errors=stats.crc_errors,
        bad_frames=stats.bad_frames,
        copies=copies,
    )


def _merge(args: argparse.Namespace, parts: list[Summary], records: list[DealRecord], elapsed: float) -> Summary:
    """One summary of the jobs' summaries: counts added, medians and maxima over all deals, wall time the run's."""
    failed: Counter[str] = Counter()
    for p in parts:
        failed.update(p.failed_with_count)
    wrong = [f"job {j + 1}: {w}" if len(parts) > 1 else w for j, p in enumerate(parts) for w in p.wrong]
    over = [r.seconds - r.limit_s for r in records]
    return Summary(
        deals=sum(p.deals for p in parts),
        cards_asked=sum(p.cards_asked for p in parts),
        cards_dealt=sum(p.cards_dealt for p in parts),
        speed=args.speed,
        wire=parts[0].wire,
        seconds=round(elapsed, 1),
        ok=sum(p.ok for p in parts),
        failed_with_count=dict(failed),
        unknown=sum(p.unknown for p in parts),
        exact=sum(p.exact for p in parts),
        wrong=wrong[:20],
        wrong_count=len(wrong),
        requests_acted_on_twice=sum(p.requests_acted_on_twice for p in parts),
        median_deal_s=round(statistics.median(r.seconds for r in records), 2) if records else 0.0,
        max_over_limit_s=round(max(over), 2) if over else 0.0,
        retries=sum(p.retries for p in parts),
        polls=sum(p.polls for p in parts),
        crc_errors=sum(p.crc_errors for p in parts),
        bad_frames=sum(p.bad_frames for p in parts),
        copies=max(p.copies for p in parts),
        jobs=len(parts),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--speed", type=float, default=1.0, help="mechanics this many times faster (1: normal)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=2.0, help="the host's timeout (silence, and margin)")
    parser.add_argument("--clean", action="store_true", help="no faults on the wire")
    parser.add_argument("--every", type=int, default=50, help="print progress every N deals (of each job)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="simulators (each its own process, with its own host process) sharing the deals; the run waits "
        "mostly on mechanical time, so N jobs take about 1/N of the wall time",
    )
    parser.add_argument("--out", type=Path, help="write the summary and every deal as JSON")
    args = parser.parse_args()
    if not 1 <= args.jobs <= args.deals:
        parser.error(f"--jobs must be from 1 to --deals ({args.deals}), got {args.jobs}")
    summary, records = run(args)
    print(json.dumps(asdict(summary), indent=1))
    if args.out is not None:
        args.out.write_text(json.dumps({"summary": asdict(summary), "deals": [asdict(r) for r in records]}) + "\n")
    ok = (
        summary.exact == summary.deals
        and summary.unknown == 0
        and summary.requests_acted_on_twice == 0
        and not summary.wrong
    )
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
