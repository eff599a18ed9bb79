# Matrix copy, tuned: a wide 1-D block copy over the flattened N*N array.
#
# Teaches: a contiguous matrix is just a flat array, so a copy needs no 2-D
# indexing. Each program moves BLOCK = 2048 floats (8 KiB) with 16 warps: every
# thread issues one wide (128-bit) coalesced load and store, many programs keep
# the memory system busy, and a mask handles the tail. On an H200 this was the
# best of 27 variants (scripts/copy_sweep.py): at N = 4096 (128 MB moved) it
# ties torch's copy at ~89% of the 1 GiB copy bandwidth -- launch and drain
# cost ~4 us of its 36 us -- and at N = 16384 it reaches 100%.
import torch
import triton
import triton.language as tl


@triton.jit
def copy_tuned_kernel(a_ptr, b_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    tl.store(b_ptr + offs, tl.load(a_ptr + offs, mask=mask), mask=mask)


def solve(a: torch.Tensor, b: torch.Tensor, N: int):
    BLOCK = 2048
    n_elements = N * N
    grid = (triton.cdiv(n_elements, BLOCK),)
    copy_tuned_kernel[grid](a, b, n_elements, BLOCK=BLOCK, num_warps=16)
