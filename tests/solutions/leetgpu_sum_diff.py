"""Stand-in LeetGPU sum and difference: two outputs of one kernel."""
import torch
import triton
import triton.language as tl


@triton.jit
def sum_diff_kernel(a, b, total, diff, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, y = tl.load(a + offs, mask=mask), tl.load(b + offs, mask=mask)
    tl.store(total + offs, x + y, mask=mask)
    tl.store(diff + offs, x - y, mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, total: torch.Tensor, diff: torch.Tensor, rows: int, cols: int):
    n = rows * cols
    sum_diff_kernel[(triton.cdiv(n, 1024),)](a, b, total, diff, n, BLOCK=1024)
