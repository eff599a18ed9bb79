# Reproduces: docs/timing.md §10 "Which time" (where do_bench's 2-3 % on the copy comes from) and its table in
# docs/benchmarks.md, "A sealed judge and trusted times".
"""Why does do_bench read a memory-bound copy 2-3 % slower than the judge?  (docs/timing.md §10)

The same tuned copy (4096², fp32) and transpose (8192²), same inputs, timed with CUDA events around
each call after a 256 MB flush, in interleaved rounds of these loops:

- ``queued``: do_bench's own loop: ``flush.zero_()``, event, call, event, never synchronized;
- ``queued_read``: as queued, but the flush reads the buffer (``flush.sum()``), leaving clean lines;
- ``queued_spin``: as queued, plus a 20 µs spin kernel between the zero-fill and the start event;
- ``synced``: as queued, plus a synchronize after each call (the GPU idles while the host launches);
- ``synced_spin``: as synced, plus the 20 µs spin before the start event (the judge's order: flush,
  launch guard, call).

If only the zero-fill's dirty lines mattered, ``queued_read`` would match ``synced``; if the
memory system still draining the fill when the call starts matters, the spin closes the gap.

    python scripts/copy_queue.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.challenge.spec import load_spec  # noqa: E402
from judge.challenge.tensors import make_arguments  # noqa: E402

KERNELS = [
    ("copy 4096²", "copy", "solutions/copy/tuned.py", {"N": 4096}),
    ("transpose 8192²", "transpose", "solutions/transpose/tuned.py", {"rows": 8192, "cols": 8192}),
]
SPIN_CYCLES = 40_000  # ~20 µs at 1.98 GHz


def load(solution: str):
    spec = importlib.util.spec_from_file_location("cq_solution", ROOT / solution)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def loop(fn, flush, calls: int, *, read=False, spin=False, sync=False) -> float:
    """Median event time (ms) of `calls` calls, each after the given flush/spin/sync pattern."""
    pairs = []
    sink = torch.empty((), device="cuda", dtype=torch.int64)
    for _ in range(calls):
        if read:
            torch.sum(flush, dim=0, out=sink)
        else:
            flush.zero_()
        if spin:
            torch.cuda._sleep(SPIN_CYCLES)
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        fn()
        end.record()
        pairs.append((begin, end))
        if sync:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return statistics.median(b.elapsed_time(e) for b, e in pairs)


MODES = {
    "queued": {},
    "queued_read": {"read": True},
    "queued_spin": {"spin": True},
    "synced": {"sync": True},
    "synced_spin": {"sync": True, "spin": True},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    flush = torch.empty(256 * 1024**2 // 4, dtype=torch.int32, device="cuda")
    print("| kernel | round | " + " | ".join(f"{m} ms" for m in MODES) + " | queued vs synced |")
    print("|---|---|" + "---|" * len(MODES) + "---|")
    for label, challenge, solution, params in KERNELS:
        spec = load_spec(ROOT / "challenges" / f"{challenge}.yaml")
        arguments = make_arguments(spec, params, seed=123, device="cuda")
        module = load(solution)
        fn = lambda: module.solve(*arguments)  # noqa: E731
        loop(fn, flush, 50)  # compile and warm
        for round_index in range(args.rounds):
            medians = {mode: loop(fn, flush, 400, **kwargs) for mode, kwargs in MODES.items()}
            ratio = 100 * (medians["queued"] / medians["synced"] - 1)
            print(f"| {label} | {round_index} | " + " | ".join(f"{v:.4f}" for v in medians.values())
                  + f" | {ratio:+.2f} % |", flush=True)


if __name__ == "__main__":
    main()
