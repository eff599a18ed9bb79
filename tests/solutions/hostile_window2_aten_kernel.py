# Hostile (red team 2 of the draw window, judge/worker/draw_window.py): a Python kernel registered with
# torch.library for aten::copy_ on the AutogradCPU dispatch key (torch's dispatcher, in C: no callable of
# torch's namespaces changes, so DrawWindow's _Callables sees nothing).  The YAML draw copies each drawn input
# into its guarded buffer (tensors.placed: ``alloc(...).copy_(values)``), which dispatches to this kernel: it
# keeps the fresh input's answer (its transpose), untimed, then does the copy.  solve() only copies the answer,
# else writes zeros (wrong on purpose): a leak shows as accepted cases.
import torch

READY = []
STATE = {"in_solve": False, "busy": False}

_lib = torch.library.Library("aten", "IMPL")
_BELOW = torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradCPU)


def _copy_(self, src, non_blocking=False):
    if not STATE["in_solve"] and not STATE["busy"] and src.dim() == 2 and src.dtype == torch.float32:
        STATE["busy"] = True
        try:
            with torch._C._ExcludeDispatchKeyGuard(_BELOW):
                READY.append(src.detach().t().contiguous())
        finally:
            STATE["busy"] = False
    with torch._C._ExcludeDispatchKeyGuard(_BELOW):
        return torch.ops.aten.copy_.default(self, src, non_blocking)


_lib.impl("copy_", _copy_, "AutogradCPU")


def solve(input, output, rows, cols):
    STATE["in_solve"] = True
    try:
        ready = list(READY)
        READY.clear()
        answer = next((a for a in ready if a.shape == output.shape and torch.equal(a.t(), input)), None)
        if answer is not None:
            output.copy_(answer)
        else:
            output.zero_()
    finally:
        STATE["in_solve"] = False
