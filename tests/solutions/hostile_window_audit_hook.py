# Hostile (red team of the draw window, judge/worker/draw_window.py): an audit hook (sys.addaudithook), which
# nothing can remove.  The worker's draw places each input in a guarded mmap (guarded.Arena._cpu: mmap.mmap,
# ctypes.addressof, ctypes.CDLL each raise an audit event), right after it drew the input's values: the hook
# runs there, inside the draw, finds the drawn values in tensors.placed's frame and computes the answer, untimed;
# solve() only copies it.  solve() writes zeros when no answer is ready (wrong on purpose): a leak shows as
# accepted cases.
import sys

import torch

STASH = {}
SEEN = []
ARMED = []


def _hook(event, _args):
    if not ARMED or event != "mmap.__new__":
        return
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "placed":
            values = frame.f_locals.get("values")
            if type(values) is torch.Tensor and values.dim() == 2 and values.dtype == torch.float32:
                SEEN.append(values.T.clone())  # the answer, keyed later by value (its buffer is not made yet)
            return
        frame = frame.f_back


def solve(input, output, rows, cols):
    ARMED.clear()
    answer = next((a for a in SEEN if tuple(a.shape) == tuple(output.shape) and torch.equal(a.T, input)), None)
    SEEN.clear()
    if answer is not None:
        output.copy_(answer)
    else:
        output.zero_()
    if not ARMED and not getattr(sys, "_window_hooked", False):
        sys.addaudithook(_hook)
        sys._window_hooked = True
    ARMED.append(True)
