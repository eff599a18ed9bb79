# Wrong, as three published LeetGPU reductions are: every program adds its block's sum into
# output[0] with tl.atomic_add, but nothing zeroes output first.  Outputs start as poison
# (torch.empty on LeetGPU), so the sum is garbage; with output.zero_() first it is right.
import torch
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(input_ptr, output_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    values = tl.load(input_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(output_ptr, tl.sum(values, axis=0))


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    BLOCK_SIZE = 1024
    block_sum_kernel[(triton.cdiv(N, BLOCK_SIZE),)](input, output, N, BLOCK_SIZE=BLOCK_SIZE)
