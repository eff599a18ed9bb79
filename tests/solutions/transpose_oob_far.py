# Wrong: a store 64 MiB past the output (a pointer offset in elements where bytes were meant,
# say).  In CPU mode it must fault, the same way in every run, never land in the worker's heap.
import triton
import triton.language as tl


@triton.jit
def _far(src, dst, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + i + 16 * 1024 * 1024, tl.load(src + i, mask=i < n), mask=i < n)


def solve(input, output, rows, cols):
    _far[(triton.cdiv(rows * cols, 64),)](input, output, rows * cols, BLOCK=64)
