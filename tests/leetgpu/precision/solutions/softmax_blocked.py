"""An honest blocked float32 softmax of one vector (issue 39), for LeetGPU's medium/5_softmax: each program
finds its block's maximum and its sum of exp(x - that maximum); torch combines the blocks' partials (the
global maximum, the total rescaled to it); a second kernel writes exp(x - max) / total."""
import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def block_stats(x, maxima, sums, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x + offs, mask=offs < n, other=-float("inf"))
    top = tl.max(values, axis=0)
    tl.store(maxima + tl.program_id(0), top)
    tl.store(sums + tl.program_id(0), tl.sum(tl.exp(values - top), axis=0))


@triton.jit
def normalise(x, y, top, total, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    values = tl.load(x + offs, mask=mask, other=0.0)
    tl.store(y + offs, tl.exp(values - tl.load(top)) / tl.load(total), mask=mask)


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    blocks = triton.cdiv(N, BLOCK)
    maxima = torch.empty(blocks, device=input.device, dtype=torch.float32)
    sums = torch.empty(blocks, device=input.device, dtype=torch.float32)
    block_stats[(blocks,)](input, maxima, sums, N, BLOCK=BLOCK)
    top = maxima.max().reshape(1)
    total = (sums * torch.exp(maxima - top)).sum().reshape(1)
    normalise[(blocks,)](input, output, top, total, N, BLOCK=BLOCK)
