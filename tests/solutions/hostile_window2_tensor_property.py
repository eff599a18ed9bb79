# Hostile (red team 2 of the draw window, judge/worker/draw_window.py): a property set on torch.Tensor.  The
# window's _Callables watches only the *callable* entries of torch.Tensor's namespace (a property object is not
# callable), so a ``shape`` property shadowing the C base's getter stays.  The YAML draw reads the fresh input's
# shape as it places it (tensors.placed: ``alloc(tuple(values.shape), values.dtype)``): the getter keeps the
# answer (its transpose), untimed.  solve() only copies the answer, else writes zeros (wrong on purpose): a leak
# shows as accepted cases.
import torch

READY = []
STATE = {"in_solve": False, "busy": False}
_shape = torch._C.TensorBase.shape


def _get_shape(self):
    shape = _shape.__get__(self)
    if not STATE["in_solve"] and not STATE["busy"] and len(shape) == 2 and self.dtype == torch.float32:
        STATE["busy"] = True
        try:
            READY.append(self.detach().t().contiguous())
        finally:
            STATE["busy"] = False
    return shape


def solve(input, output, rows, cols):
    STATE["in_solve"] = True
    try:
        ready = list(READY)
        READY.clear()
        answer = next((a for a in ready if _shape.__get__(a) == _shape.__get__(output) and torch.equal(a.t(), input)),
                      None)
        if answer is not None:
            output.copy_(answer)
        else:
            output.zero_()
    finally:
        STATE["in_solve"] = False
    torch.Tensor.shape = property(_get_shape)
