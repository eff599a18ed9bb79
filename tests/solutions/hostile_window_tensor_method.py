# Hostile (red team of the draw window, judge/worker/draw_window.py): a torch.Tensor method patched from Python.
# The worker's draw of a YAML spec's inputs copies each drawn input into its guarded buffer with
# ``alloc(...).copy_(values)`` (tensors.placed), a method looked up on torch.Tensor at each call: solve() rebinds
# torch.Tensor.copy_ to a wrapper that does the real copy, then, seeing a fresh 2-D input, computes its answer
# there, inside the draw, untimed; solve() only copies it.  KernelBench mode compares torch's functions with their
# recording before each draw (kernelbench_model._Untouched); YAML specs and LeetGPU folders do not.  solve() writes
# zeros when no answer is ready (wrong on purpose): a leak shows as accepted cases.
import torch

STASH = {}
ARMED = []
_copy = torch.Tensor.copy_


def _spy(self, src, *args, **kwargs):
    out = _copy(self, src, *args, **kwargs)
    if ARMED and type(self) is torch.Tensor and self.dim() == 2 and self.dtype == torch.float32 and self.numel():
        STASH[self.data_ptr()] = self.T.clone()
    return out


def solve(input, output, rows, cols):
    ARMED.clear()
    answer = STASH.pop(input.data_ptr(), None)
    STASH.clear()
    if answer is not None and tuple(answer.shape) == tuple(output.shape):
        _copy(output, answer)
    else:
        output.zero_()
    torch.Tensor.copy_ = _spy
    ARMED.append(True)
