# In CPU mode the judge's worker runs with a torch function mode of its own (cpu_device.CudaOnCpu): this
# patches that mode's class hook so it finishes the output inside the judge's code after solve().  Red team 27.
import torch

PENDING = []

if torch._C._len_torch_function_stack():
    mode = torch._C._get_function_stack_at(0)
    original = type(mode).__torch_function__

    def finishing(self, func, types, args=(), kwargs=None):
        while PENDING:
            inp, out = PENDING.pop()
            out.copy_(inp.T)
        return original(self, func, types, args, kwargs)

    type(mode).__torch_function__ = finishing


def solve(input, output, rows, cols):
    PENDING.append((input, output))
