"""An honest blocked float32 RMS normalisation of one vector (issue 39), for LeetGPU's
medium/50_rms_normalization: each program sums its block's squares; torch adds the partials; a second kernel
writes gamma * x / sqrt(mean of squares + eps) + beta."""
import torch
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def square_sums(x, partials, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    values = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.store(partials + tl.program_id(0), tl.sum(values * values, axis=0))


@triton.jit
def scale(x, y, rms, gamma, beta, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y + offs, gamma * (tl.load(x + offs, mask=mask, other=0.0) / tl.load(rms)) + beta, mask=mask)


def solve(input: torch.Tensor, gamma: float, beta: float, output: torch.Tensor, N: int, eps: float):
    blocks = triton.cdiv(N, BLOCK)
    partials = torch.empty(blocks, device=input.device, dtype=torch.float32)
    square_sums[(blocks,)](input, partials, N, BLOCK=BLOCK)
    rms = torch.sqrt(partials.sum() / N + eps).reshape(1)
    scale[(blocks,)](input, output, rms, gamma, beta, N, BLOCK=BLOCK)
