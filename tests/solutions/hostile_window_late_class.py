# Hostile (red team of the draw window; the "after solve() returns" side): the output's class swapped for a torch
# subclass.  solve() writes nothing itself; it sets ``output.__class__`` to a subclass whose __torch_function__
# runs at the first torch call the judge makes on that tensor after solve() returned: the seal's check
# (guarded.Seal.broken -> _identity -> tensor.untyped_storage()) in Session.check_call, after the clock stopped.
# There it writes the transpose into the output (the judge's own buffer, which the judge then sends), untimed.
# The seal compares storage, offset, shape, strides, dtype and device, not the Python class.  If the late write
# never runs, the output keeps zeros (wrong on purpose): a leak shows as accepted cases.
import torch
from torch._C import DisableTorchFunctionSubclass

PENDING = []


class _Late(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            while PENDING:
                source, target = PENDING.pop()
                target.copy_(source.T)
            return func(*args, **(kwargs or {}))


def solve(input, output, rows, cols):
    PENDING.clear()
    output.zero_()
    PENDING.append((input, output))
    output.__class__ = _Late
