"""Class 10 (KernelBench): forward() returns a tensor with attributes of its own that shadow the methods the worker's
code calls on what forward returned (numel, contiguous, untyped_storage...): they ran after the call's end event,
computed the answer there, untimed, and forward itself did nothing."""
import torch
import torch.nn as nn


class _Late:
    def __init__(self, target, x, scale):
        self.target, self.x, self.scale = target, x, scale

    def __call__(self, *args, **kwargs):
        self.target.copy_(torch.relu(self.x) * self.scale)  # the work, done where the worker calls a method
        return getattr(torch.Tensor, self.name)(self.target, *args, **kwargs)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty_like(x)
        for name in ("numel", "contiguous", "is_contiguous", "untyped_storage", "detach", "reshape", "view"):
            late = _Late(out, x, self.scale)
            late.name = name
            setattr(out, name, late)
        return out
