# Matrix copy, naive: one program per element -- slow on purpose.
#
# Teaches: the smallest possible kernel (program id -> one load, one store) and
# why it is a bad idea. With N*N programs each moving 4 bytes, the GPU is
# bottlenecked on launching and retiring programs, not on memory; expect a
# small fraction of copy bandwidth. Compare with tuned.py.
import torch
import triton
import triton.language as tl


@triton.jit
def copy_naive_kernel(a_ptr, b_ptr):
    pid = tl.program_id(0)          # flat index 0 .. N*N - 1
    tl.store(b_ptr + pid, tl.load(a_ptr + pid))


def solve(a: torch.Tensor, b: torch.Tensor, N: int):
    grid = (N * N,)
    copy_naive_kernel[grid](a, b)
