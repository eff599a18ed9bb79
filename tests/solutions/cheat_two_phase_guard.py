# Timing cheat, two-phase: the real work (20 transposes into scratch) goes on a
# stream of its own that does not wait for the current one, then a slow launch
# grows the judge's launch guard, then the current stream waits for the side
# stream and copies the scratch to the output.  With a guard that slept on one
# SM, the 20 transposes ran during the guard, before the start event, and only
# the final copy was timed.  The judge's guard kernel now holds every SM, so
# they cannot start until the start event.
import time

import torch

_side = None
_scratch = {}


def solve(input, output, rows, cols):
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    scratch = _scratch.get(tuple(output.shape))
    if scratch is None:
        scratch = _scratch[tuple(output.shape)] = torch.empty_like(output)
    with torch.cuda.stream(_side):
        for _ in range(20):
            scratch.copy_(input.T)
    time.sleep(0.001)
    torch.cuda.current_stream().wait_stream(_side)
    output.copy_(scratch)
