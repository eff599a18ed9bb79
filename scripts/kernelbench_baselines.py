# Reproduces: docs/kernelbench.md, "Numbers beside the paper's" (torch eager on every level-1 problem); run by
# scripts/kernelbench_gpu.sh.
"""Time the torch-eager reference of every KernelBench problem of a level with the judge's timer, beside
KernelBench's published baseline (results/timing/H100_Modal/baseline_time_torch.json) and beside KernelBench's
own method run here (docs/kernelbench.md, "Numbers beside the paper's").  GPU only.

    python scripts/kernelbench_baselines.py CHECKOUT [--level 1] [--json OUT.json] [--markdown OUT.md]

CHECKOUT is a clone of github.com/ScalingIntelligence/KernelBench (the folder that holds KernelBench/ and
results/).  For each problem, in this process (the reference is trusted code: no worker is needed to time it):

- the judge's timer (judge/timer/timed_loop.py): every call on inputs get_inputs() draws afresh from its own
  seed (untimed), the launch guard's kernel, which also flushes the L2, CUDA events around the call on the
  timer's stream, a device-wide synchronize and the host clock, whose excess over the events the audit
  compares with the device's calibrated latency (a flagged call counts the host clock's time); at least 10
  calls, then until --budget seconds or 100 calls; the median;
- KernelBench's own method, as its timing.py's time_execution_with_cuda_event does it: the same inputs every
  trial, 3 warm-up calls, a 256 MiB fill to thrash the L2 before each trial, events on the current stream,
  the mean of --kb-trials trials after one discarded.

The table: our median, KernelBench's method here, KernelBench's published H100 mean, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from judge.challenge.kernelbench import find_problems, load_problem  # noqa: E402
from judge.timer.cover import Cover  # noqa: E402
from judge.timer.flush import flush_buffer  # noqa: E402
from judge.timer.timed_loop import LaunchGuard, measured_call, settle_guard  # noqa: E402
from judge.timing.audit import Audit, audited_sample, disagrees  # noqa: E402
from judge.timing.peaks import get_peaks  # noqa: E402
from judge.timing.stats import Stats  # noqa: E402
from judge.judging.runner import environment  # noqa: E402


def our_timer(problem, model, device: str, budget_s: float, overhead_ms: float | None) -> dict:
    """Median of the judge's timed calls, each on fresh inputs; the calls the audit flagged."""
    seeds = iter(range(10_000, 10_000_000))
    state = SimpleNamespace(inputs=None)
    session = SimpleNamespace(solve=lambda: model(*state.inputs), clock=time.perf_counter, spec=None)
    host_us = []
    for i in range(4):  # warm-up; the first call may load kernels
        state.inputs = problem.inputs(next(seeds), device)
        torch.cuda.synchronize()
        start = time.perf_counter()
        session.solve()
        host_us.append((time.perf_counter() - start) * 1e6)
        torch.cuda.synchronize()
    guard = LaunchGuard.measure(Cover(flush_buffer(device)), host_us[1:])
    settle_guard(session, [], guard, calls=3)
    samples, flagged, started = [], 0, time.perf_counter()
    while len(samples) < 10 or (time.perf_counter() - started < budget_s and len(samples) < 100):
        state.inputs = None
        state.inputs = problem.inputs(next(seeds), device)  # untimed, as the worker's draws are
        call = measured_call(session, [], guard)
        if guard.absorb(call):
            continue  # a sample that held host time: dropped, the guard grown (as in a benchmark)
        audit = Audit(call.host_ms, call.event_ms, call.tail_ms)
        flagged += disagrees(audit, overhead_ms, guard.holds_gpu)
        samples.append(audited_sample(audit, overhead_ms, guard.holds_gpu))
    stats = Stats(samples)
    return {"median_ms": stats.median, "ci_ms": [stats.ci_low, stats.ci_high], "calls": stats.n, "flagged": flagged}


def kernelbench_method(problem, model, device: str, trials: int) -> float:
    """KernelBench's time_execution_with_cuda_event, re-done here: the same inputs, an L2 thrash, the mean."""
    inputs = problem.inputs(42, device)
    for _ in range(3):
        model(*inputs)
        torch.cuda.synchronize()
    times = []
    for trial in range(trials + 1):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dummy = torch.empty((32, 1024, 1024), dtype=torch.int64, device=device)
        dummy.fill_(42)
        del dummy
        start.record()
        model(*inputs)
        end.record()
        torch.cuda.synchronize()
        if trial:
            times.append(start.elapsed_time(end))
    return sum(times) / len(times)


def time_problem(path: Path, device: str, budget_s: float, trials: int, overhead_ms) -> dict:
    spec = load_problem(path)
    problem = spec.problem()
    with torch.no_grad():
        model = problem.reference_model(0, device)
        ours = our_timer(problem, model, device, budget_s, overhead_ms)
        kb_here = kernelbench_method(problem, model, device, trials)
    del model
    torch.cuda.empty_cache()
    return {"problem": path.name, "ours": ours, "kernelbench_method_ms": kb_here,
            "bytes": spec.bytes_formula}


def markdown(rows: list[dict], env: dict, published: str) -> str:
    lines = [f"GPU: {env.get('gpu')}, torch {env.get('torch')}, CUDA {env.get('cuda')}, driver {env.get('driver')}; "
             f"published: {published}", "",
             "| problem | ours (median, ms) | flagged | KernelBench's method here (mean, ms) | published H100 (mean, ms) | "
             "ours / method here | ours / published |", "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['problem']} | error: {row['error'][:80]} | | | | | |")
            continue
        ours, here, pub = row["ours"]["median_ms"], row["kernelbench_method_ms"], row.get("published_ms")
        lines.append(f"| {row['problem']} | {ours:.4g} | {row['ours']['flagged']} | {here:.4g} | "
                     f"{pub if pub is not None else '-'} | {ours / here:.2f} | "
                     f"{(ours / pub) if pub else float('nan'):.2f} |")
    ratios = [r["ours"]["median_ms"] / r["published_ms"] for r in rows if "error" not in r and r.get("published_ms")]
    method = [r["ours"]["median_ms"] / r["kernelbench_method_ms"] for r in rows if "error" not in r]
    if ratios:
        lines += ["", f"geometric mean of ours / published: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} "
                      f"({len(ratios)} problems); of ours / KernelBench's method here: "
                      f"{math.exp(sum(map(math.log, method)) / len(method)):.3f}"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--level", default="1")
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds of our timed calls a problem, at most")
    parser.add_argument("--kb-trials", type=int, default=20)
    parser.add_argument("--only", default="", help="a regular expression: the problems whose file names match")
    parser.add_argument("--deadline", type=float, default=0.0, help="seconds, then no more problems are started "
                        "(those left are listed as not reached) [default: none]")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("no CUDA GPU: the baselines are GPU times", file=sys.stderr)
        return 2
    torch.cuda.set_device(torch.device(args.device))
    env = environment(args.device)
    peaks = get_peaks(args.device, env)
    overhead = peaks.get("host_overhead_us")
    overhead_ms = overhead[1] / 1e3 if isinstance(overhead, list) and len(overhead) > 1 else None
    published_file = args.checkout / "results" / "timing" / "H100_Modal" / "baseline_time_torch.json"
    published = json.loads(published_file.read_text()).get(f"level{args.level}", {}) if published_file.is_file() else {}
    rows, left, begun = [], [], time.perf_counter()
    for path in find_problems(args.checkout / "KernelBench" / f"level{args.level}"):
        if args.only and not re.search(args.only, path.name):
            continue
        if args.deadline and time.perf_counter() - begun > args.deadline:
            left.append(path.name)
            continue
        started = time.perf_counter()
        try:
            row = time_problem(path, args.device, args.budget, args.kb_trials, overhead_ms)
        except Exception as exc:  # noqa: BLE001 - one problem's failure is a row, not the end of the table
            row = {"problem": path.name, "error": f"{type(exc).__name__}: {exc}"}
            torch.cuda.empty_cache()
        row["published_ms"] = (published.get(path.name) or {}).get("mean")
        row["wall_s"] = round(time.perf_counter() - started, 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            args.json.write_text(json.dumps({"environment": env, "rows": rows}, indent=1))
    text = markdown(rows, env, str(published_file.relative_to(args.checkout)) if published else "none found")
    if left:
        text += f"\nnot reached before --deadline {args.deadline:g} s: {len(left)} problems ({', '.join(left)})\n"
    if args.markdown:
        args.markdown.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
