# Row-wise softmax: one program per row, with a fast path for short rows.
#
# Teaches: mapping independent rows to programs, and two ways to handle a row:
# - a row that fits in one block (N <= 2048 here) is loaded once into
#   registers: max, exp, sum and divide without touching memory again;
# - a longer row is walked in blocks with an "online" softmax: every lane keeps
#   a running maximum m and a running sum s of exp(x - m), rescaled by
#   exp(m - m_new) when the maximum grows; a second walk writes the outputs.
# Masked lanes load -inf (exp(-inf) = 0); the tl.where avoids -inf - -inf = NaN
# in lanes that have not seen data yet.
import torch
import triton
import triton.language as tl


@triton.jit
def short_rows_kernel(input_ptr, output_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(input_ptr + row * n + offs, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(output_ptr + row * n + offs, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def long_rows_kernel(input_ptr, output_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        x = tl.load(input_ptr + row * n + start + offs, mask=start + offs < n, other=float("-inf"))
        m_new = tl.maximum(m, x)
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.exp(x - shift)
        m = m_new
    big_m = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - big_m), axis=0)
    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(input_ptr + row * n + start + offs, mask=mask, other=float("-inf"))
        tl.store(output_ptr + row * n + start + offs, tl.exp(x - big_m) / total, mask=mask)


def solve(input: torch.Tensor, output: torch.Tensor, M: int, N: int):
    if N <= 2048:
        block = max(16, triton.next_power_of_2(N))
        short_rows_kernel[(M,)](input, output, N, BLOCK=block, num_warps=4 if block <= 1024 else 8)
    else:
        long_rows_kernel[(M,)](input, output, N, BLOCK=2048, num_warps=8)
