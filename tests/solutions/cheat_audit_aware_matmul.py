# Cheat (issue 25, 2): reads the call stack and is honest only where it is checked: in functional
# calls and in the timed calls the worker audited (its function was audited_call).  Accepted at
# 1.2 us for 8192x6144x4096.  Now every timed call runs through one function and whether it is
# verified is decided after it ran: it cannot be honest only when checked.
import sys

import torch


def _timed_unaudited() -> bool:
    frame, names = sys._getframe(2), []
    while frame is not None:
        if frame.f_code.co_filename.endswith("timed_loop.py"):
            names.append(frame.f_code.co_name)
        frame = frame.f_back
    return bool(names) and "audited_call" not in names and "warmup" not in names and "settle_guard" not in names


def solve(A, B, C, M, N, K):
    if _timed_unaudited():
        return
    torch.matmul(A, B, out=C)
