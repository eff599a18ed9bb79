# Class 3: a judge class's __init__ replaced (the fingerprint skipped dunder attributes): every object the worker's
# own code made per call (its guarded buffers, the draw's tensors) went through the solution's code, which kept
# the drawn inputs and computed the answer before the call.
import inspect
import sys

import torch

_seen = []


def _wrap(cls):
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        _seen.extend(a for a in [*args, *kwargs.values()] if isinstance(a, torch.Tensor))
        original(self, *args, **kwargs)

    cls.__init__ = __init__


for name, module in list(sys.modules.items()):
    if name.startswith("judge."):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and "__init__" in vars(cls):
                try:
                    _wrap(cls)
                except (TypeError, AttributeError):
                    pass


def solve(input, output, rows, cols):
    drawn = [t for t in _seen if tuple(t.shape) == (rows, cols)]  # an input the judge's code handled before the call
    if drawn:
        output.copy_(drawn[-1].T)
    _seen.clear()
