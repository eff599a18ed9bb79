# Hostile (red team of the draw window, judge/worker/draw_window.py): a finalizer that runs by reference counting,
# not by the collector.  solve() hangs a weakref.finalize on the input tensor it is given; the judge drops its
# last reference to that tensor while it draws the *next* call's inputs (Session.seal replaces self.sealed), so
# the finalizer runs inside the draw, walks the stack to the frame that holds the fresh arguments and computes
# their answer there, untimed; solve() then only copies it.  Turning the collector off does not stop it.
# solve() writes zeros when no answer is ready (wrong on purpose): a leak shows as accepted cases after the first.
import sys
import weakref

import torch

STASH = {}
ARMED = []


def _fresh_arguments():
    frame = sys._getframe(1)
    while frame is not None:
        args = frame.f_locals.get("args")
        if isinstance(args, list) and any(isinstance(a, torch.Tensor) for a in args):
            return args
        frame = frame.f_back
    return []


def _peek():
    if not ARMED:
        return
    for obj in _fresh_arguments():
        if type(obj) is torch.Tensor and obj.dim() == 2 and obj.dtype == torch.float32 and obj.numel():
            STASH[obj.data_ptr()] = obj.T.clone()
            break  # the first: the input (the output is drawn after it, poisoned)


def solve(input, output, rows, cols):
    ARMED.clear()
    answer = STASH.pop(input.data_ptr(), None)
    STASH.clear()
    if answer is not None and tuple(answer.shape) == tuple(output.shape):
        output.copy_(answer)
    else:
        output.zero_()
    weakref.finalize(input, _peek)
    ARMED.append(True)
