# A CUDA fault: stores far outside the output (an illegal memory access on GPU).
import triton
import triton.language as tl


@triton.jit
def _k(y, far):
    offs = far + tl.arange(0, 16)
    tl.store(y + offs, tl.zeros((16,), dtype=tl.float32))


def solve(input, output, rows, cols):
    _k[(1,)](output, 1 << 40)
