"""A garbage-collector callback that runs inside the judge's code between the draw of a call's inputs and the call
(the collector runs at almost every allocation: threshold 1), finds the freshly drawn input among the young
objects and computes the answer there, untimed; forward then returns it.  The worker keeps the collector off, and
its callbacks as they were before the solution loaded, from the draw until forward runs: the callback never sees
this call's inputs, and forward, with no answer ready, returns zeros (wrong on purpose, so a leak would show as
an accepted run)."""
import gc

import torch
import torch.nn as nn

STASH = {}
ARMED = []


def _peek(phase, info):
    if not ARMED or phase != "start":
        return
    for obj in gc.get_objects(0):
        if type(obj) is torch.Tensor and obj.dim() == 2 and obj.shape[0] == 64 and obj.data_ptr() not in ARMED:
            STASH[obj.data_ptr()] = torch.relu(obj) * 2.0


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()

    def forward(self, x):
        answer = STASH.pop(x.data_ptr(), None)
        STASH.clear()
        ARMED[:] = [x.data_ptr()]
        if _peek not in gc.callbacks:
            gc.callbacks.append(_peek)
        gc.set_threshold(1)
        gc.enable()
        return answer if answer is not None else torch.zeros_like(x)
