# Hostile (red team of the draw window, judge/worker/draw_window.py): a cache of the judge's own, poisoned.  The
# guard zones' canary is kept per device in guarded._CANARIES, a dict in a module the worker fingerprints
# (integrity.Fingerprint compares the module's globals by identity: the dict is the same object, its contents are
# not looked at).  solve() puts a torch subclass with the same bytes in its place; every guarded buffer the next
# draw allocates slices it (guarded._Guarded: ``self.canary[:front]``) in tensors.placed's frame, right after the
# input's values were drawn, so the subclass's __torch_function__ runs inside the draw: it computes the answer
# there, untimed, and solve() only copies it.  solve() writes zeros when no answer is ready (wrong on purpose):
# a leak shows as accepted cases.
import sys

import torch
from torch._C import DisableTorchFunctionSubclass

READY = []


class _Canary(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_name == "placed":
                values = frame.f_locals.get("values")
                if type(values) is torch.Tensor and values.dim() == 2 and values.dtype == torch.float32:
                    with DisableTorchFunctionSubclass():
                        READY.append(values.T.clone())
                break
            frame = frame.f_back
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


def solve(input, output, rows, cols):
    ready = list(READY)
    READY.clear()
    answer = next((a for a in ready if a.shape == output.shape and torch.equal(a.T, input)), None)
    if answer is not None:
        output.copy_(answer)
    else:
        output.zero_()
    module = sys.modules.get("judge.worker.guarded") or __import__("judge.worker.arguments", fromlist=["_CANARIES"])
    canaries = module._CANARIES  # the harness's canary lives in the judge's process: this one is never used
    for device, canary in list(canaries.items()):
        if type(canary) is torch.Tensor:
            canaries[device] = canary.as_subclass(_Canary)
