# Reproduces: docs/accuracy.md §2 "Same solution, same verdict" (the factor judge/judging/error_order.py allows honest
# sums); CPU only.
"""Reproduces docs/accuracy.md §2's figures for a float64 reference ("A reference that adds in float64") and
judge/judging/error_order.py's: how far honest float32 sums in a GPU's orders are from the float64 sum, in units of
float32's rounding on the inputs (2^-24 * sum |x|), how often LeetGPU's atol = rtol = 1e-5 rejects each, and the
same for a sum of inputs read in half precision.  CPU only, numpy:  python3 scripts/sum_order_sim.py  (~2 min)."""
import numpy as np

U = 2.0**-24
rng = np.random.default_rng(0)


def strided(x, threads):
    """Each of ``threads`` adds every threads-th value in turn, then a tree over the threads (a GPU's block)."""
    pad = (-len(x)) % threads
    rows = np.concatenate([x, np.zeros(pad, np.float32)]).reshape(-1, threads)
    acc = np.zeros(threads, np.float32)
    for row in rows:
        acc = (acc + row).astype(np.float32)
    while len(acc) > 1:
        if len(acc) % 2:
            acc = np.concatenate([acc, np.zeros(1, np.float32)])
        acc = (acc[0::2] + acc[1::2]).astype(np.float32)
    return acc[0]


def blocked_in_turn(x, block):
    """Blocks summed pairwise, then the block sums added one after another (atomics in arrival order)."""
    total = np.float32(0)
    for start in range(0, len(x), block):
        total = np.float32(total + np.sum(x[start:start + block], dtype=np.float32))
    return total


ORDERS = {"pairwise": lambda x: np.sum(x, dtype=np.float32), "strided 256": lambda x: strided(x, 256),
          "strided 4096": lambda x: strided(x, 4096), "blocks of 1024 in turn": lambda x: blocked_in_turn(x, 1024),
          "half-precision inputs": lambda x: np.sum(x.astype(np.float16).astype(np.float32), dtype=np.float32)}
CASES = {"large_random: 10 000 in [-1000, 1000]": (lambda: rng.uniform(-1000, 1000, 10_000).astype(np.float32), 200),
         "large_random_2: 15 M in [0, 1000]": (lambda: rng.uniform(0, 1000, 15_000_000).astype(np.float32), 3)}

for name, (draw, seeds) in CASES.items():
    worst, rejected = dict.fromkeys(ORDERS, 0.0), dict.fromkeys(ORDERS, 0)
    for _ in range(seeds):
        x = draw()
        truth, scale = np.sum(x.astype(np.float64)), np.sum(np.abs(x.astype(np.float64)))
        for order, total in ORDERS.items():
            err = abs(float(total(x)) - truth)
            worst[order] = max(worst[order], err / (U * scale))
            rejected[order] += err > 1e-5 + 1e-5 * abs(truth)
    print(f"{name}, {seeds} seeds")
    for order in ORDERS:
        print(f"  {order:24s} largest error {worst[order]:8.3f} x float32's rounding; LeetGPU's tolerance rejected "
              f"{rejected[order]} of {seeds}")
