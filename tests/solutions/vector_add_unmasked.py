"""A Triton vector add whose loads have no mask: the last block reads past the end of A and B (its stores
are masked, so the answer is right).  `judge run --sanitize`'s memcheck names the line (issue 39)."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_unmasked(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = tl.load(a + offs) + tl.load(b + offs)  # no mask: past the end in the last block
    tl.store(c + offs, total, mask=offs < n)


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, N: int):
    add_unmasked[(triton.cdiv(N, 1024),)](A, B, C, N, BLOCK=1024)
