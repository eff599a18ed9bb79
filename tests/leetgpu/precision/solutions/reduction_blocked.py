"""An honest blocked float32 reduction (issue 39), for LeetGPU's medium/4_reduction: each program sums its
block with tl.sum into a partial; one program then sums the partials, a block at a time, in float32."""
import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def partial_sums(x, partials, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(partials + tl.program_id(0), tl.sum(tl.load(x + offs, mask=offs < n, other=0.0), axis=0))


@triton.jit
def final_sum(partials, out, count, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, count, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partials + offs, mask=offs < count, other=0.0)
    tl.store(out, tl.sum(acc, axis=0))


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    blocks = triton.cdiv(N, BLOCK)
    partials = torch.empty(blocks, device=input.device, dtype=torch.float32)
    partial_sums[(blocks,)](input, partials, N, BLOCK=BLOCK)
    final_sum[(1,)](partials, output, blocks, BLOCK=1024)
