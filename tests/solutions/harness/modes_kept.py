# Class 6: the contents of a judge list whose identity alone was watched (timed_loop._MODES_KEPT): a torch function
# mode of the solution's added to it, so the judge kept it active after solve() returned, and it wrote the outputs
# inside the judge's own reads of them, after the clock.
import torch
from torch.overrides import TorchFunctionMode

_pending = []


class _Finisher(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        while _pending:
            source, target = _pending.pop()
            with torch._C.DisableTorchFunction():
                target.copy_(source.T)
        return func(*args, **(kwargs or {}))


try:
    from judge.timer import timed_loop

    mode = _Finisher()
    torch._C._push_on_torch_function_stack(mode)
    timed_loop._MODES_KEPT[0].append((mode, type(mode).__torch_function__))
except Exception:  # noqa: BLE001
    pass


def solve(input, output, rows, cols):
    _pending.append((input, output))  # finished later, by the mode, inside the judge's code
