# Softmax of a vector with a single program and an "online" softmax.
#
# Teaches: the online softmax. Instead of one pass for the maximum and another
# for the sum of exponentials, keep a running maximum m and a running sum s of
# exp(x - m); when the maximum grows to m_new, rescale: s * exp(m - m_new).
# Here every lane of the block keeps its own (m, s) pair, and the lanes are
# combined once at the end; a second loop writes exp(x - M) / S.
# Masked lanes load -inf, whose exp is 0; the tl.where keeps a lane that has
# seen no data yet (m = -inf) from computing -inf - -inf = NaN.
# One program cannot use the whole GPU: see split.py for the fast version.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(input_ptr, output_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)   # running max, per lane
    s = tl.zeros([BLOCK], dtype=tl.float32)           # running sum of exp(x - m), per lane
    for start in range(0, n, BLOCK):
        x = tl.load(input_ptr + start + offs, mask=start + offs < n, other=float("-inf"))
        m_new = tl.maximum(m, x)
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - shift) + tl.exp(x - shift)
        m = m_new
    big_m = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - big_m), axis=0)
    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(input_ptr + start + offs, mask=mask, other=float("-inf"))
        tl.store(output_ptr + start + offs, tl.exp(x - big_m) / total, mask=mask)


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    softmax_kernel[(1,)](input, output, N, BLOCK=1024)
