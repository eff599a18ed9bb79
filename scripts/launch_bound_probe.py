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

    python scripts/launch_bound_probe.py [--rows 63 --cols 72] [--rounds 4]
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

from judge.catalog import load_challenge  # noqa: E402
from judge.tensors import make_arguments  # noqa: E402
from judge.timing.bench import flush_buffer  # noqa: E402

CALLS = 400
BATCH = 50


def load_solve(path: Path):
    module_spec = importlib.util.spec_from_file_location("probe_solution", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.solve


def sync_loop(solve, make_args, flush, fresh: bool) -> list[float]:
    times, args = [], make_args(0)
    for i in range(CALLS):
        if fresh:
            args = make_args(i)
        torch.cuda.synchronize()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.zero_()
        begin.record()
        solve(*args)
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    return times


def queued_loop(solve, make_args, flush, fresh: bool) -> list[float]:
    times, same = [], make_args(0)
    for start in range(0, CALLS, BATCH):
        sets = [make_args(start + i) if fresh else same for i in range(BATCH)]
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(BATCH)]
        torch.cuda.synchronize()
        for args, (begin, end) in zip(sets, events):
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
    if options.out:
        Path(options.out, "launch_bound_probe.json").write_text(json.dumps(
            {"device": torch.cuda.get_device_name(), "params": params, "results": summary}, indent=2))


if __name__ == "__main__":
    main()
