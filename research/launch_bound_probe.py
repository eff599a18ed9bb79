"""Why does the judge time a launch-bound kernel faster than do_bench?  (issue 3)

Times one tiny kernel (the tuned transpose at 63x72) with several loops that
differ in one thing each, in rotating order over a few rounds so that clock
drift does not favour one:

    do_bench       triton.testing.do_bench(return_mode="median")
    sync_fresh     the judge's old loop: fresh inputs, flush, events, solve, synchronize
    sync_same      the same, on the same inputs every call
    queued_fresh   fresh input sets made beforehand; flush/events/solve enqueued
                   back to back, one synchronize per batch (as do_bench does)
    queued_same    the same, on the same inputs every call
    queued_same_N  batches of N calls (N = 2, 8, 400) instead of 50
    sync_deep      one call per synchronize, but queued behind a 100 us sleep
                   kernel so the launch is already waiting when the GPU gets to it
    sync_noflush / queued_noflush   without the L2 flush between calls

Then, as ground truth independent of CUDA events, the kernel's own duration
(CUPTI, through torch.profiler) in the sync and the queued loop.

    python research/launch_bound_probe.py [--rows 63 --cols 72] [--rounds 4]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.challenge.catalog import load_challenge  # noqa: E402
from judge.challenge.tensors import make_arguments  # noqa: E402
from judge.timer.flush import flush_buffer  # noqa: E402

CALLS = 400
BATCH = 50


def load_solve(path: Path):
    module_spec = importlib.util.spec_from_file_location("probe_solution", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.solve


def sync_loop(solve, make_args, flush, fresh: bool, deep: bool = False, calls: int = CALLS) -> list[float]:
    times, args = [], make_args(0)
    for i in range(calls):
        if fresh:
            args = make_args(i)
        torch.cuda.synchronize()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if deep:
            torch.cuda._sleep(200_000)  # about 100 us of GPU time: the launches below queue up behind it
        if flush is not None:
            flush.zero_()
        begin.record()
        solve(*args)
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    return times


def queued_loop(solve, make_args, flush, fresh: bool, batch: int = BATCH, calls: int = CALLS) -> list[float]:
    times, same = [], make_args(0)
    for start in range(0, calls, batch):
        sets = [make_args(start + i) if fresh else same for i in range(batch)]
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(batch)]
        torch.cuda.synchronize()
        for args, (begin, end) in zip(sets, events):
            if flush is not None:
                flush.zero_()
            begin.record()
            solve(*args)
            end.record()
        torch.cuda.synchronize()
        times += [begin.elapsed_time(end) for begin, end in events]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=63)
    parser.add_argument("--cols", type=int, default=72)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--solution", default="solutions/transpose/tuned.py")
    parser.add_argument("--out", default=None)
    options = parser.parse_args()
    spec = load_challenge("transpose")
    params = {"rows": options.rows, "cols": options.cols}
    solve = load_solve(ROOT / options.solution)
    flush = flush_buffer("cuda")

    def make_args(i):
        return make_arguments(spec, params, seed=1000 + i, device="cuda")

    fixed = make_args(0)
    methods = {
        "do_bench": lambda: [1e3 * triton.testing.do_bench(lambda: solve(*fixed), warmup=25, rep=200,
                                                           return_mode="median")],
        "sync_fresh": lambda: sync_loop(solve, make_args, flush, True),
        "sync_same": lambda: sync_loop(solve, make_args, flush, False),
        "queued_fresh": lambda: queued_loop(solve, make_args, flush, True),
        "queued_same": lambda: queued_loop(solve, make_args, flush, False),
        "queued_same_2": lambda: queued_loop(solve, make_args, flush, False, batch=2),
        "queued_same_8": lambda: queued_loop(solve, make_args, flush, False, batch=8),
        "queued_same_400": lambda: queued_loop(solve, make_args, flush, False, batch=400),
        "sync_deep": lambda: sync_loop(solve, make_args, flush, False, deep=True),
        "sync_noflush": lambda: sync_loop(solve, make_args, None, False),
        "queued_noflush": lambda: queued_loop(solve, make_args, None, False),
    }
    for method in methods.values():  # warm-up and JIT
        method()
    names = list(methods)
    results = {name: [] for name in names}
    for round_index in range(options.rounds):
        order = names[round_index % len(names):] + names[:round_index % len(names)]
        for name in order:
            times = methods[name]()
            median_us = statistics.median(times) * (1 if name == "do_bench" else 1e3)
            results[name].append(round(median_us, 3))
    summary = {name: {"median_of_rounds_us": statistics.median(v), "rounds_us": v} for name, v in results.items()}
    reference = summary["do_bench"]["median_of_rounds_us"]
    for name, row in summary.items():
        row["vs_do_bench_pct"] = round(100 * (row["median_of_rounds_us"] / reference - 1), 2)
        print(f"{name:<14} {row['median_of_rounds_us']:8.3f} us  {row['vs_do_bench_pct']:+6.2f} %  rounds {row['rounds_us']}")
    kernel_us = {name: cupti_kernel_us(loop) for name, loop in {
        "sync_same": lambda: sync_loop(solve, make_args, flush, False, calls=200),
        "queued_same": lambda: queued_loop(solve, make_args, flush, False, calls=200),
        "sync_deep": lambda: sync_loop(solve, make_args, flush, False, deep=True, calls=200),
    }.items()}
    print("kernel duration by CUPTI (us, median of calls):", kernel_us)
    if options.out:
        Path(options.out, "launch_bound_probe.json").write_text(json.dumps(
            {"device": torch.cuda.get_device_name(), "params": params, "results": summary,
             "cupti_kernel_us": kernel_us}, indent=2))


def cupti_kernel_us(loop) -> float | None:
    """The median duration of the solution's kernel as CUPTI saw it (no CUDA events involved)."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        loop()
    durations = [e.time_range.elapsed_us() for e in prof.events()
                 if e.device_type == DeviceType.CUDA and "transpose" in e.name]
    return round(statistics.median(durations), 3) if durations else None


if __name__ == "__main__":
    main()
