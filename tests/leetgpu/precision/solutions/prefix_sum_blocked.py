"""An honest blocked float32 prefix sum (issue 39): each program scans its block with tl.cumsum and
writes the block's total; torch.cumsum scans the totals; a second kernel adds each block's offset.
Correct in exact arithmetic; its float32 rounding is that of a different order of additions than the
reference's.  For LeetGPU's medium/16_prefix_sum (and tests/leetgpu/precision/medium/1_tree_scan)."""
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def block_scan(x, y, totals, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    values = tl.load(x + offs, mask=mask, other=0.0)
    tl.store(y + offs, tl.cumsum(values, axis=0), mask=mask)
    tl.store(totals + pid, tl.sum(values, axis=0))


@triton.jit
def add_offsets(y, offsets, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y + offs, tl.load(y + offs, mask=mask) + tl.load(offsets + pid), mask=mask)


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    blocks = triton.cdiv(N, BLOCK)
    totals = torch.empty(blocks, device=input.device, dtype=torch.float32)
    block_scan[(blocks,)](input, output, totals, N, BLOCK=BLOCK)
    if blocks > 1:
        offsets = torch.cumsum(totals, 0) - totals  # exclusive: what every block before it adds up to
        add_offsets[(blocks,)](output, offsets, N, BLOCK=BLOCK)
