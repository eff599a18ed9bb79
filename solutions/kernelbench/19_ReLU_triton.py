# ReLU for KernelBench's level1/19_ReLU, in Triton.
#
# Teaches: a KernelBench solution (class ModelNew, forward returns a new tensor) and 64-bit offsets, since the
# input holds 1.6 G elements.
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/19_ReLU.py solutions/kernelbench/19_ReLU_triton.py
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
        return out
