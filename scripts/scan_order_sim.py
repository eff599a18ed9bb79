# Reproduces: docs/accuracy.md §2 "Same solution, same verdict" ("Why 30": judge/judging/error_order.py's factor,
# asserted by tests/test_exact_math.py); CPU only.
"""How far apart are honest float32 prefix sums?  (issue 39; the result is in docs/accuracy.md)

On the CPU, with float32 arithmetic done as a GPU orders it: a Hillis-Steele tree scan (log2 N rounds of
additions, as a GPU's in-block scan) and blocked scans (a sequential scan of each block, the blocks' totals
scanned sequentially, each block's offset added), blocks of 256, 1024 and 4096, on LeetGPU's
medium/16_prefix_sum data (uniform(-100, 100)), against a float64 scan.  Per seed and size: each order's
largest absolute error against the float64 answer, the ratios between honest orders' largest errors (what
judging/error_order.py's factor of 10 must cover), and the same blocked scan on inputs read in half
precision (what it must not).

    python scripts/scan_order_sim.py [--seeds 30]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch


def tree(x: torch.Tensor) -> torch.Tensor:
    y, step = x.clone(), 1
    while step < y.numel():
        y = torch.cat([y[:step], y[step:] + y[:-step]])
        step *= 2
    return y


def blocked(x: torch.Tensor, block: int) -> torch.Tensor:
    values = x.numpy()
    scans = [np.cumsum(values[s:s + block], dtype=np.float32) for s in range(0, values.size, block)]
    totals = np.array([s[-1] for s in scans], dtype=np.float32)
    offsets = np.concatenate([[0.0], np.cumsum(totals, dtype=np.float32)[:-1]]).astype(np.float32)
    return torch.from_numpy(np.concatenate([s + o for s, o in zip(scans, offsets)]))


def largest(a: torch.Tensor, truth: torch.Tensor) -> float:
    return float((a.double() - truth).abs().max())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=30)
    args = parser.parse_args()
    for n in (1000, 4096, 20000, 250000):
        ratios, half = [], []
        for seed in range(args.seeds if n < 100000 else max(1, args.seeds // 4)):
            x = torch.empty(n).uniform_(-100, 100, generator=torch.Generator().manual_seed(seed))
            truth = torch.cumsum(x.double(), 0)
            honest = [tree(x)] + [blocked(x, b) for b in (256, 1024, 4096)]
            errors = [largest(a, truth) for a in honest]
            ratios += [a / b for a in errors for b in errors if a is not b and b > 0]
            half.append(largest(blocked(x.half().float(), 1024), truth) / max(errors))
        print(f"N={n}: {len(ratios)} ratios between honest orders' largest errors: max {max(ratios):.2f}, "
              f"median {np.median(ratios):.2f}; half-precision inputs / the worst honest order: "
              f"min {min(half):.0f}, max {max(half):.0f}")


if __name__ == "__main__":
    main()
