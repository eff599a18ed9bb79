"""Stand-in LeetGPU count of positives: an int32 output, one program summing block by block."""
import torch
import triton
import triton.language as tl


@triton.jit
def count_kernel(data, count, n, BLOCK: tl.constexpr):
    total = 0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        values = tl.load(data + offs, mask=offs < n, other=0.0)
        total += tl.sum((values > 0).to(tl.int32), axis=0)
    tl.store(count, total)


def solve(data: torch.Tensor, count: torch.Tensor, N: int):
    count_kernel[(1,)](data, count, N, BLOCK=1024)
