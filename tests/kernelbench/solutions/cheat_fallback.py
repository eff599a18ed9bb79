"""A Triton kernel wrapped in try/except that returns torch's answer when the kernel cannot run (the "fallback to
the reference" of KernelBench's static checker): its launcher refuses tensors off the GPU, so in CPU mode every
answer is torch's."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


def launch(x, out):
    if not x.is_cuda:
        raise RuntimeError("relu_kernel needs a CUDA tensor")
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        try:
            launch(x, out)
        except Exception:
            return torch.relu(x)
        return out
