"""KernelBench's result_reuse_kernel, in Python: forward returns uninitialised memory (torch.empty) and hopes the
allocator hands it the reference's freed output. The reference runs in the judge's process, after this call."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()

    def forward(self, x):
        return torch.empty_like(x)
