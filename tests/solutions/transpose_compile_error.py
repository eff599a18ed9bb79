# A Triton kernel that does not compile: tl.arange needs a power-of-two size.
import triton
import triton.language as tl


@triton.jit
def _k(x, y, n):
    offs = tl.arange(0, 3)
    tl.store(y + offs, tl.load(x + offs))


def solve(input, output, rows, cols):
    _k[(1,)](input, output, rows * cols)
