"""CPU mode runs solutions that name the GPU: ``device="cuda"`` means the judge's device.

LeetGPU answers allocate scratch space by name (``torch.zeros(n, device="cuda")``,
``x.cuda()``, ``x.to("cuda")``); on a machine without a GPU torch raises "Torch not
compiled with CUDA enabled" and a correct solution fails.  While the worker judges in
CPU mode, a torch function mode (the mechanism behind ``torch.set_default_device``)
rewrites every CUDA device a torch function is given to the CPU and counts how often,
so the run can say so (judging/runner.py adds the note).  On a GPU nothing is rewritten:
"cuda" is already the judged device (the worker sets it current).
"""

from __future__ import annotations

import re

import torch
from torch.overrides import TorchFunctionMode

__all__ = ["CudaOnCpu"]

_CUDA_NAME = re.compile(r"cuda(:\d+)?")
_MOVES = {torch.Tensor.to, torch.Tensor.cuda}  # the methods whose positional arguments may name a device


def _is_cuda(value) -> bool:
    if isinstance(value, torch.device):
        return value.type == "cuda"
    if isinstance(value, int) and not isinstance(value, bool):
        return True  # a bare index (device=0, x.to(0)) names a CUDA device
    return isinstance(value, str) and _CUDA_NAME.fullmatch(value) is not None


class CudaOnCpu(TorchFunctionMode):
    """Every CUDA device given to a torch function becomes the CPU; ``count`` says how many were."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:  # x.cuda(): the tensor stays where it is, on the CPU
            self.count += 1
            return args[0]
        if _is_cuda(kwargs.get("device")):
            kwargs["device"] = "cpu"
            self.count += 1
        if func in _MOVES and any(_is_cuda(a) for a in args[1:]):  # x.to("cuda"), x.to(torch.device("cuda"))
            args = tuple("cpu" if i and _is_cuda(a) else a for i, a in enumerate(args))
            self.count += 1
        return func(*args, **kwargs)
