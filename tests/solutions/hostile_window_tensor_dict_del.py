# Hostile (red team of the draw window, judge/worker/draw_window.py): a __del__ run by reference counting.  solve()
# hangs an object of its own on the input tensor it is given (``input.__dict__``, a plain attribute); the judge
# drops its last reference to that tensor while it draws the *next* call's inputs (Session.seal replaces
# self.sealed), the tensor's __dict__ goes with it and the object's __del__ runs inside the draw: it walks the
# stack to the frame that holds the fresh arguments and computes their answer there, untimed; solve() only copies
# it.  solve() writes zeros when no answer is ready (wrong on purpose): a leak shows as accepted cases.
import sys

import torch

STASH = {}


class _Tail:
    def __del__(self):
        frame = sys._getframe(1)
        while frame is not None:
            args = frame.f_locals.get("args")
            if isinstance(args, list) and any(isinstance(a, torch.Tensor) for a in args):
                for obj in args:
                    if type(obj) is torch.Tensor and obj.dim() == 2 and obj.dtype == torch.float32 and obj.numel():
                        STASH[obj.data_ptr()] = obj.T.clone()
                        return
            frame = frame.f_back


def solve(input, output, rows, cols):
    answer = STASH.pop(input.data_ptr(), None)
    STASH.clear()
    if answer is not None and tuple(answer.shape) == tuple(output.shape):
        output.copy_(answer)
    else:
        output.zero_()
    input.judge_leftover = _Tail()
