# A Triton kernel that never ends: a device-side loop, not a Python one.  The first
# call (the 1x1 edge case) is correct, so the hang is in a later call, where the
# per-call timeout applies; the judge must kill the worker (and with it the kernel)
# and give time_limit_exceeded within that timeout plus a few seconds.
import triton
import triton.language as tl


@triton.jit
def _spin_forever(flag, output):
    i = 0
    while tl.load(flag, volatile=True) < 1.0e30:  # a volatile load: the loop cannot be optimised away
        i += 1
    tl.store(output, i.to(tl.float32))


def solve(input, output, rows, cols):
    if rows * cols == 1:
        output.copy_(input.T)
        return
    _spin_forever[(1,)](input, output)  # inputs are uniform(-10, 10): never >= 1e30
