# Hostile: the reference-counting finalizer of hostile_window_weakref_finalize.py on a LeetGPU folder, whose
# inputs the judge ships.  solve() hangs a weakref.finalize on the A it is given; the worker drops the previous
# call's tensors as it seals the next call's shipped inputs (Session.shipped_arguments -> seal replaces
# self.sealed), so the finalizer runs there, finds the fresh arguments on the stack and computes A @ B, untimed;
# solve() only copies it, else writes zeros (wrong on purpose): a leak shows as accepted cases.
import sys
import weakref

import torch

READY = {}


def _peek():
    frame = sys._getframe(1)
    while frame is not None:
        args = frame.f_locals.get("args")
        if frame.f_code.co_name == "seal" and isinstance(args, list) and len(args) >= 3:
            a, b = args[0], args[1]
            if type(a) is torch.Tensor and type(b) is torch.Tensor and a.dim() == b.dim() == 2:
                READY[a.data_ptr()] = (a.clone(), a @ b)
            return
        frame = frame.f_back


def solve(A, B, C, M, N, K):
    seen = READY.pop(A.data_ptr(), None)
    READY.clear()
    if seen is not None and seen[1].shape == C.shape and torch.equal(seen[0], A):
        C.copy_(seen[1])
    else:
        C.zero_()
    weakref.finalize(A, _peek)
