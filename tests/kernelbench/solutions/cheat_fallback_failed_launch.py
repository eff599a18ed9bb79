"""The fallback of cheat_fallback.py behind a launch that fails inside Triton (the BLOCK constexpr is missing):
Triton's run is entered, so the worker counts a launch of the solution's own although none ran."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        try:
            relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel())
        except Exception:
            return torch.relu(x)
        return out
