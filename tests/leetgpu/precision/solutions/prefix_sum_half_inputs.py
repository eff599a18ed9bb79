"""A prefix sum that reads its inputs rounded to half precision: the blocked scan of prefix_sum_blocked.py
otherwise.  Its error is hundreds of times the reference's: a lower precision, not another order of
additions, and the judge must reject it even where it explains a tolerance failure by the order (issue 39)."""
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def block_scan(x, y, totals, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    values = tl.load(x + offs, mask=mask, other=0.0).to(tl.float16).to(tl.float32)
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
        offsets = torch.cumsum(totals, 0) - totals
        add_offsets[(blocks,)](output, offsets, N, BLOCK=BLOCK)
