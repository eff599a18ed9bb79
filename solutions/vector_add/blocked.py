# Vector addition: one program per block of BLOCK_SIZE elements.
#
# Teaches: the basic Triton pattern. tl.program_id says which block this
# program owns, tl.arange makes the offsets of its elements, and a mask turns
# off the lanes past N in the last, partial block (N is rarely a multiple of
# the block size: try N = 1 or 1025). The grid has triton.cdiv(N, BLOCK_SIZE)
# programs. Memory-bound: a good kernel runs near the device's copy bandwidth.
import torch
import triton
import triton.language as tl


@triton.jit
def vector_add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n                     # the last block may be partial
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, N: int):
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(N, BLOCK_SIZE),)
    vector_add_kernel[grid](A, B, C, N, BLOCK_SIZE=BLOCK_SIZE)
