"""Red team of the draw window (judge/worker/draw_window.py) in KernelBench mode: a finalizer run by reference
counting, not by the collector.  forward hangs a weakref.finalize on the x it is given; the worker drops the
previous call's tensors while it seals the next call's draw (Session.seal replaces self.sealed), so the finalizer
runs there, after the problem's get_inputs and the check of torch's functions, finds the fresh arguments on the
stack and computes the answer, untimed; forward then returns it.  With no answer ready forward returns zeros
(wrong on purpose): a leak shows as accepted trials after the first."""
import sys
import weakref

import torch
import torch.nn as nn

STASH = {}
SCALE = []


def _peek():
    frame = sys._getframe(1)
    while frame is not None:
        args = frame.f_locals.get("args")
        if frame.f_code.co_name == "seal" and isinstance(args, list) and args:
            x = args[0]
            if type(x) is torch.Tensor and x.dim() == 2 and x.numel():
                STASH[x.data_ptr()] = torch.relu(x) * SCALE[0]
            return
        frame = frame.f_back


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        SCALE[:] = [scale]

    def forward(self, x):
        answer = STASH.pop(x.data_ptr(), None)
        STASH.clear()
        weakref.finalize(x, _peek)
        return answer if answer is not None and answer.shape == x.shape else torch.zeros_like(x)
