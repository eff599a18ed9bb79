# Timing cheat: a slow launch (the judge's launch guard grows to cover it),
# then the real work on a stream of its own that never waits for the current
# one, so the work runs while the guard still sleeps, before the start event,
# where neither the events nor the host-clock audit see it.
import time

import torch

_side = None


def solve(input, output, rows, cols):
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    time.sleep(0.001)
    with torch.cuda.stream(_side):
        for _ in range(20):
            output.copy_(input.T)
