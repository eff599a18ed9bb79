# The tanh GELU of KernelBench's level1/88_MinGPTNewGelu, in Triton.
#
# Teaches: one elementwise pass for a chain of torch ops, and tanh(u) = 2 sigmoid(2u) - 1 where Triton has no
# tanh.
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/88_MinGPTNewGelu.py solutions/kernelbench/88_MinGPTNewGelu_triton.py
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, c, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    u = c * (x + 0.044715 * x * x * x)
    tanh = 2.0 * tl.sigmoid(2.0 * u) - 1.0
    tl.store(out_ptr + offsets, 0.5 * x * (1.0 + tanh), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 2048),)](x, out, n, math.sqrt(2.0 / math.pi), BLOCK=2048, num_warps=8)
        return out
