# Vector addition for LeetGPU's easy/1_vector_add: its Triton starter, filled in.
#
# Teaches: the masked block kernel (one program per 1024 elements, a mask for
# the tail) and that LeetGPU's solve() gets its arguments positionally.
# Judge it with a checkout of github.com/AlphaGPU/leetgpu-challenges:
#   judge run .leetgpu/challenges/easy/1_vector_add solutions/leetgpu/1_vector_add.py
import torch
import triton
import triton.language as tl


@triton.jit
def vector_add_kernel(a, b, c, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(c + offs, tl.load(a + offs, mask=mask) + tl.load(b + offs, mask=mask), mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, N: int):
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(N, BLOCK_SIZE),)
    vector_add_kernel[grid](a, b, c, N, BLOCK_SIZE)
