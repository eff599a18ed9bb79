# Reproduces: docs/timing.md §10 "Which time" (the judge against do_bench, with clocks) and docs/benchmarks.md, "A
# sealed judge and trusted times" (Fidelity).
"""Why do the judge's medians and do_bench's differ on an H100?  (docs/timing.md, "Which time")

For each kernel, interleaved rounds of:

- ``judge``: the judge's own timed loop (bench_case in a worker: fresh inputs, launch guard, flush,
  one call, device-wide synchronize, per call);
- ``do_bench``: triton.testing.do_bench(return_mode="median"): the same inputs every call, a 256 MB
  ``zero_()`` flush, calls queued back to back, one synchronize at the end;
- ``synced``: do_bench's flush and events but a synchronize after every call (the GPU idles while
  the host launches the next);
- ``gapped``: as ``synced`` plus an idle gap after each call as long as the judge's own per-call
  overhead (the judge's wall per call less its kernel time);

with the SM and memory clocks, power and temperature sampled by nvidia-smi every 20 ms inside each
window, and the judge's duty cycle (kernel time over wall time).  Prints JSON lines and a table.

    python scripts/fidelity_clocks.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from timing_proof import judge_median, widened_spec  # noqa: E402
from judge.challenge.tensors import make_arguments  # noqa: E402

KERNELS = [
    ("transpose 8192²", "transpose", "solutions/transpose/tuned.py", {"rows": 8192, "cols": 8192}),
    ("copy 4096²", "copy", "solutions/copy/tuned.py", {"N": 4096}),
    ("matmul 8192×6144×4096 tf32x3", "matmul", "solutions/matmul/tf32x3.py", {"M": 8192, "N": 6144, "K": 4096}),
]


class Sampler:
    """nvidia-smi's clocks, power and temperature every 20 ms, with this host's time of each line."""

    FIELDS = "clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active"

    def __init__(self):
        self.rows: list[tuple[float, list[str]]] = []
        probe = subprocess.run(["nvidia-smi", f"--query-gpu={self.FIELDS}", "--format=csv,noheader,nounits"],
                               capture_output=True, text=True)
        if probe.returncode != 0:  # an older driver: the reasons field had another name
            self.FIELDS = self.FIELDS.replace("clocks_event_reasons", "clocks_throttle_reasons")
        self.proc = subprocess.Popen(["nvidia-smi", f"--query-gpu={self.FIELDS}", "--format=csv,noheader,nounits",
                                      "-lms", "20"], stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.rows.append((time.time(), [x.strip() for x in line.split(",")]))

    def window(self, t0: float, t1: float) -> dict:
        rows = [r for t, r in self.rows if t0 <= t <= t1]

        def mean(i):
            vals = [float(r[i]) for r in rows if len(r) > i and r[i].replace(".", "", 1).isdigit()]
            return round(sum(vals) / len(vals), 1) if vals else None

        reasons = sorted({r[4] for r in rows if len(r) > 4})
        return {"samples": len(rows), "sm_mhz": mean(0), "mem_mhz": mean(1), "power_w": mean(2),
                "temp_c": mean(3), "event_reasons": reasons[:4]}

    def stop(self):
        self.proc.terminate()


def load(solution: str):
    spec = importlib.util.spec_from_file_location("fid_solution", ROOT / solution)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def synced_median(fn, flush, calls: int, gap_s: float = 0.0) -> float:
    times = []
    for _ in range(calls):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.zero_()
        begin.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(begin.elapsed_time(end))
        if gap_s:
            time.sleep(gap_s)
    times.sort()
    return times[len(times) // 2]


def measure(sampler, label, challenge, solution, params, round_index) -> dict:
    spec = widened_spec(challenge, params)
    row = {"kernel": label, "round": round_index}
    t0 = time.time()
    judged = judge_median(spec, solution, params, seed=1 + round_index, budget=2.0)
    t1 = time.time()
    wall_ms = judged["phases_s"]["elapsed_s"] * 1e3 - judged["phases_s"]["verifying_s"] * 1e3
    kernel_ms = sum(judged["samples_ms"])
    row["judge"] = {"median_ms": judged["median_ms"], "calls": judged["calls"],
                    "duty_cycle": round(kernel_ms / wall_ms, 3) if wall_ms > 0 else None,
                    "overhead_per_call_ms": round((wall_ms - kernel_ms) / max(1, judged["calls"]), 4),
                    **sampler.window(t0, t1)}
    module = load(solution)
    args = make_arguments(spec, params, seed=123, device="cuda")
    fn = lambda: module.solve(*args)  # noqa: E731
    flush = torch.empty(256 * 1024**2 // 4, dtype=torch.int32, device="cuda")
    t0 = time.time()
    bench = triton.testing.do_bench(fn, warmup=100, rep=1000, return_mode="median")
    t1 = time.time()
    row["do_bench"] = {"median_ms": bench, **sampler.window(t0, t1)}
    calls = max(10, min(2000, int(1000 / max(bench, 1e-3))))
    t0 = time.time()
    row["synced"] = {"median_ms": synced_median(fn, flush, calls), **sampler.window(t0, time.time())}
    gap = max(0.0, row["judge"]["overhead_per_call_ms"] / 1e3)
    t0 = time.time()
    row["gapped"] = {"median_ms": synced_median(fn, flush, max(10, min(calls, int(2.0 / (bench / 1e3 + gap)))), gap),
                     "gap_ms": round(gap * 1e3, 4), **sampler.window(t0, time.time())}
    for key in ("do_bench", "synced", "gapped"):
        row[key]["judge_vs_this_pct"] = round(100 * (judged["median_ms"] / row[key]["median_ms"] - 1), 2)
    torch.cuda.empty_cache()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sampler = Sampler()
    time.sleep(0.5)
    rows = []
    try:
        for round_index in range(args.rounds):
            for kernel in KERNELS:
                row = measure(sampler, *kernel, round_index)
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        sampler.stop()
    print("| kernel | round | judge ms (duty, SM MHz, W) | do_bench ms (SM MHz, W) | synced ms | gapped ms | judge vs do_bench / synced / gapped |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        j, d, s, g = r["judge"], r["do_bench"], r["synced"], r["gapped"]
        print(f"| {r['kernel']} | {r['round']} | {j['median_ms']:.4f} ({j['duty_cycle']}, {j['sm_mhz']}, {j['power_w']}) "
              f"| {d['median_ms']:.4f} ({d['sm_mhz']}, {d['power_w']}) | {s['median_ms']:.4f} ({s['sm_mhz']}) "
              f"| {g['median_ms']:.4f} ({g['sm_mhz']}) | {d['judge_vs_this_pct']:+.2f} / {s['judge_vs_this_pct']:+.2f} / "
              f"{g['judge_vs_this_pct']:+.2f} % |")


if __name__ == "__main__":
    main()
