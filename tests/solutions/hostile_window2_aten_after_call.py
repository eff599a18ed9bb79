# Hostile (red team 2, after solve() returns): a Python kernel registered with torch.library for aten::detach on
# the AutogradCPU dispatch key (torch's dispatcher, in C: DrawWindow's _Callables and the session's checks see no
# change).  solve() writes nothing and returns at once; the judge reads the output back after the clock
# (tensors.raw_bytes: ``tensor.detach()...``, from Session.send_tensors), which runs the kernel: it writes the
# answer into the output there, untimed.  Without the leak the output keeps the judge's poison (wrong): a leak
# shows as accepted cases.
import torch

PENDING = {}
BUSY = []

_lib = torch.library.Library("aten", "IMPL")
_BELOW = torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradCPU)


def _detach(self):
    with torch._C._ExcludeDispatchKeyGuard(_BELOW):
        if not BUSY and PENDING.get("output") is not None and self.data_ptr() == PENDING["output"].data_ptr():
            BUSY.append(1)
            try:
                output, source = PENDING.pop("output"), PENDING.pop("input")
                output.copy_(source.t())
            finally:
                BUSY.clear()
        return torch.ops.aten.detach.default(self)


_lib.impl("detach", _detach, "AutogradCPU")


def solve(input, output, rows, cols):
    PENDING["input"], PENDING["output"] = input, output
