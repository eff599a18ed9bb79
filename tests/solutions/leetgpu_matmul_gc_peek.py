# Hostile: the YAML spec's gc-callback attack (hostile_gc_precompute.py) on a LeetGPU folder, whose inputs the
# judge ships to the worker: a garbage-collector callback copies every young 2-D float tensor it finds between
# the arrival of a call's inputs and the call.  solve() answers only when the callback saw this call's A, values
# and all (the leak), else writes zeros: a closed window makes every case wrong.
import gc
import json

import torch

SEEN = {}
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
            SEEN[obj.data_ptr()] = obj.clone()


def solve(A, B, C, M, N, K):
    ARMED.clear()
    seen = SEEN.get(A.data_ptr())
    if seen is not None and seen.shape == A.shape and torch.equal(seen, A):
        C.copy_(A @ B)
    else:
        C.zero_()
    SEEN.clear()
    if _peek not in gc.callbacks:
        gc.callbacks.append(_peek)
    gc.set_threshold(1)
    gc.enable()
    ARMED.append(True)
