# Abuse (issue 24, 7): lifts the worker's share of the GPU's memory and reserves all that is free:
# the judge's own reference then ran out of memory and the judge exited 3 with no verdict.  Now the
# share is set back after every call and a worker over it is a runtime error; and the judge's own
# out-of-memory while checking is the solution's runtime error.
import torch

_hoard = []


def solve(input, output, rows, cols):
    output.copy_(input.T)
    torch.cuda.set_per_process_memory_fraction(1.0)
    free, _ = torch.cuda.mem_get_info()
    try:
        _hoard.append(torch.empty(int(free * 0.98) // 4, dtype=torch.float32, device="cuda"))
    except torch.cuda.OutOfMemoryError:
        pass
