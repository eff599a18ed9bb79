# Red team of issue 46 (an honest tool, not an attack): torch.compile inside solve(), in CPU mode (inductor's C++
# backend, in the sandbox, its cache in the worker's Triton cache).  Seen twice: accepted, all 11 tests (55 s: the
# compiles of each new size).  Not refused by the harness; too slow for a test.
import torch

@torch.compile(dynamic=False)
def _t(x):
    return x.t().contiguous()

def solve(input, output, rows, cols):
    output.copy_(_t(input))
