# judge doctor's probe: a small Triton matmul for the built-in `matmul` challenge that calls the
# triton.language helpers a served interpreter once broke (tl.dot, tl.sum, tl.cdiv, tl.zeros): judged
# by `judge run` alone and through the judge server, it must be accepted both ways.
import torch
import triton
import triton.language as tl


@triton.jit
def _probe_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rows = pid_m * BLOCK + tl.arange(0, BLOCK)
    cols = pid_n * BLOCK + tl.arange(0, BLOCK)
    inner = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK)):
        ks = k * BLOCK + inner
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + cols[None, :], mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    # tl.sum of a row that is all zeros: nothing changes, but the helper runs in the probe's mode
    acc += tl.sum(tl.zeros((BLOCK, BLOCK), dtype=tl.float32), axis=1)[:, None]
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # The challenge's A is M x N and B is N x K: the reduction is over its N.
    block = 32
    _probe_kernel[(triton.cdiv(M, block), triton.cdiv(K, block))](A, B, C, M, K, N, BLOCK=block)
