# Hostile (issue 40's red team, carried over to YAML specs): a garbage-collector callback that runs inside the
# judge's code between the draw of a call's inputs and the call (the collector runs at almost every allocation:
# threshold 1), finds the freshly drawn input among the young objects and computes the answer there, untimed;
# solve() then only copies it.  The worker keeps the collector off, and its callbacks as they were before the
# solution loaded, from the draw until solve() starts: the callback never sees this call's inputs, and solve(),
# with no answer ready, writes zeros (wrong on purpose, so a leak shows as an accepted run).
import gc
import json

import torch

STASH = {}
ARMED = []
_loads = json.loads


def _request_arrived(*args, **kwargs):
    """The worker parses each request with json.loads: from here on this call's window is open, and what the
    callback sees is the call's own; only what it saw between the calls, before the request, would be a leak."""
    ARMED.clear()
    return _loads(*args, **kwargs)


json.loads = _request_arrived


def _peek(phase, info):
    if not ARMED or phase != "start":
        return
    for obj in gc.get_objects(0):
        if type(obj) is torch.Tensor and obj.dim() == 2 and obj.dtype == torch.float32 and obj.numel():
            STASH[obj.data_ptr()] = obj.T.clone()


def solve(input, output, rows, cols):
    ARMED.clear()  # from here on this call's own allocations must not stash anything
    answer = STASH.pop(input.data_ptr(), None)
    STASH.clear()
    if answer is not None and tuple(answer.shape) == tuple(output.shape):
        output.copy_(answer)
    else:
        output.zero_()
    if _peek not in gc.callbacks:
        gc.callbacks.append(_peek)
    gc.set_threshold(1)
    gc.enable()
    ARMED.append(True)
