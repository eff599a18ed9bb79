"""Which calls of a launch-bound case read slow, and why? (GPU only)

The 2026-11-21 diagnosis (research/tiny_diag.py) ruled out the SM clock: the
63x72 transpose read a 4.3 µs median in some runs and 6.8-7.9 µs in others
(p90 26-39 µs) at a steady 1980 MHz.  This probe times the case with the
worker's own loop (guard, flush, events around solve) and records, for every
call, what the events cannot see:

- ``lead_us``: host time from launching the guard to solve() returning, i.e.
  how long the host needed to queue everything up to the kernel;
- ``cover_us``: GPU time of guard + flush (an event before the guard to the
  start event), i.e. how long the GPU was kept busy meanwhile.

When lead > cover the start event fired before the kernel was queued and the
sample includes host latency.  Each mode runs a few rounds of many calls and
prints one JSON line per round: ``no_guard`` (the flush alone), ``judge``
(bench.measured_call with the judge's guard, exposed samples dropped), the
latter also with nvidia-smi polling the GPU every 20 ms.  (The first version of
this probe, run 2026-11-21, also had the guard as it was then: sized from
solve()'s host time alone and mis-calibrated, it covered ~75 µs.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "research"))

from judge.challenge.spec import parse_spec  # noqa: E402
from judge.challenge.tensors import make_arguments  # noqa: E402
from judge.timer import timed_loop as bench  # noqa: E402
from judge.timer.cover import Cover  # noqa: E402
from judge.timer.flush import flush_buffer  # noqa: E402
from judge.worker.loader import load_solve  # noqa: E402
from tiny_diag import PARAMS, SOLUTION, spec_text  # noqa: E402


def cpu_now() -> int:
    return int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[36])


def one_call(solve, args, flush, guard) -> dict:
    before, begin, end = (torch.cuda.Event(enable_timing=True) for _ in range(3))
    start = time.perf_counter()
    before.record()
    guard()
    flush.zero_()
    begin.record()
    solve(*args)
    lead = time.perf_counter() - start
    end.record()
    end.synchronize()
    return {"event_us": begin.elapsed_time(end) * 1e3, "lead_us": lead * 1e6,
            "cover_us": before.elapsed_time(begin) * 1e3}


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def round_summary(mode: str, calls: list[dict], cpus: list[int]) -> dict:
    event = [c["event_us"] for c in calls]
    fast = pct(event, 0.1)
    slow = [c for c in calls if c["event_us"] > 1.5 * fast]
    exposed = [c for c in calls if c["lead_us"] > c["cover_us"]]
    both = [c for c in slow if c["lead_us"] > c["cover_us"]]
    return {"mode": mode, "calls": len(calls), "median_us": round(pct(event, 0.5), 2),
            "p10_us": round(fast, 2), "p90_us": round(pct(event, 0.9), 2),
            "slow_frac": round(len(slow) / len(calls), 3), "exposed_frac": round(len(exposed) / len(calls), 3),
            "slow_and_exposed": len(both), "slow": len(slow),
            "lead_p50_us": round(pct([c["lead_us"] for c in calls], 0.5), 1),
            "lead_p99_us": round(pct([c["lead_us"] for c in calls], 0.99), 1),
            "cover_p50_us": round(pct([c["cover_us"] for c in calls], 0.5), 1),
            "slow_lead_p50_us": round(pct([c["lead_us"] for c in slow], 0.5), 1) if slow else None,
            "slow_cover_p50_us": round(pct([c["cover_us"] for c in slow], 0.5), 1) if slow else None,
            "cpus": len(set(cpus))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--calls", type=int, default=1500)
    opts = parser.parse_args()
    spec = parse_spec(spec_text(8192), str(ROOT / "challenges/transpose.yaml"))
    solve = load_solve(str(ROOT / SOLUTION), 4, [p.name for p in spec.parameters])
    flush = flush_buffer("cuda")
    cover = Cover(flush)
    host_us = []
    for i in range(50):  # warm-up, as bench.warmup
        args = make_arguments(spec, PARAMS, i, "cuda")
        torch.cuda.synchronize()
        t = time.perf_counter()
        solve(*args)
        host_us.append((time.perf_counter() - t) * 1e6)
    torch.cuda.synchronize()
    measured = bench.LaunchGuard.measure(cover, host_us[1:])
    print(json.dumps({"guard_us": measured.us, "guard_holds_gpu": measured.holds_gpu,
                      "host_warmup_p50_us": sorted(host_us)[25]}), flush=True)
    session = SimpleNamespace(solve=solve, clock=time.perf_counter, spec=spec)
    for mode, smi in (("no_guard", False), ("judge", False), ("judge+smi", True), ("no_guard", False)):
        poller = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader", "-lms", "20"],
                                  stdout=subprocess.DEVNULL) if smi else None
        try:
            for _ in range(opts.rounds):
                print(json.dumps(one_round(mode, session, spec, cover, host_us[1:], opts.calls)), flush=True)
        finally:
            if poller:
                poller.terminate()


def one_round(mode: str, session, spec, cover, host_us: list[float], count: int) -> dict:
    """``no_guard``: the flush alone, as before the guard; ``judge``: bench.measured_call with the
    judge's own guard (measured, settled, grown on exposure, exposed samples dropped)."""
    calls, cpus, dropped = [], [], 0
    flush = cover.flush
    guard = bench.LaunchGuard.measure(cover, host_us) if mode.startswith("judge") else None
    if guard is not None:
        bench.settle_guard(session, make_arguments(spec, PARAMS, 999, "cuda"), guard)
    for i in range(count):
        args = make_arguments(spec, PARAMS, 1000 + i, "cuda")
        if guard is None:
            calls.append(one_call(session.solve, args, flush, lambda: None))
        else:
            call = bench.measured_call(session, args, guard)
            if guard.absorb(call):
                dropped += 1
                continue
            calls.append({"event_us": call.event_ms * 1e3, "lead_us": call.lead_us, "cover_us": call.cover_us})
        cpus.append(cpu_now())
    summary = round_summary(mode, calls, cpus)
    if guard is not None:
        summary.update(dropped=dropped, guard_us=round(guard.us, 1))
    return summary


if __name__ == "__main__":
    main()
