"""Stand-in LeetGPU vector add (tests/leetgpu), in the shape of LeetGPU's Triton starter."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, N: int):
    add_kernel[(triton.cdiv(N, 1024),)](a, b, c, N, BLOCK=1024)
