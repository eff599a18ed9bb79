# Matrix-vector product y = A x: each program owns BLOCK_M rows and walks the
# columns in blocks of BLOCK_N.
#
# Teaches: 2-D tiles and a reduction along one axis. A program loads a
# BLOCK_M x BLOCK_N tile of A and the matching BLOCK_N slice of x, multiplies
# them elementwise (x broadcast over the rows with x[None, :]) and keeps the
# products in a 2-D accumulator; tl.sum(acc, axis=1) reduces it once at the
# end. Rows of A are contiguous, so the tile loads are coalesced. Like a copy,
# matvec reads every element of A once: it is memory-bound, and a good kernel
# runs near copy bandwidth.
import torch
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, m, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < m
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, n, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_mask = cols < n
        a = tl.load(a_ptr + rows[:, None] * n + cols[None, :],
                    mask=row_mask[:, None] & col_mask[None, :], other=0.0)
        x = tl.load(x_ptr + cols, mask=col_mask, other=0.0)
        acc += a * x[None, :]
    tl.store(y_ptr + rows, tl.sum(acc, axis=1), mask=row_mask)


def solve(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor, M: int, N: int):
    BLOCK_M, BLOCK_N = 16, 256
    grid = (triton.cdiv(M, BLOCK_M),)
    matvec_kernel[grid](A, x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
