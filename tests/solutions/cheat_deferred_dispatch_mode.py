# As cheat_deferred_torch_mode.py, with a torch dispatch mode pushed inside solve() (it sees aten ops the
# judge's code runs after the call).  Red team 27.
import torch
from torch.utils._python_dispatch import TorchDispatchMode

PENDING = []


class Finisher(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        while PENDING:
            inp, out = PENDING.pop()
            out.copy_(inp.T)
        return func(*args, **(kwargs or {}))


def solve(input, output, rows, cols):
    PENDING.append((input, output))
    Finisher().__enter__()  # left active when solve() returns
