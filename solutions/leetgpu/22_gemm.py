# GEMM for LeetGPU's medium/22_gemm: C = alpha * (A @ B) + beta * C in float16.
#
# Teaches: a tiled Triton matmul with float32 accumulation (tl.dot) and an
# inout tensor read before it is written.
# Judge it with a checkout of github.com/AlphaGPU/leetgpu-challenges:
#   judge run .leetgpu/challenges/medium/22_gemm solutions/leetgpu/22_gemm.py
import torch
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a, b, c, M, N, K, alpha, beta,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        ks = start + tl.arange(0, BLOCK_K)
        a_tile = tl.load(a + rows[:, None] * K + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b_tile = tl.load(b + ks[:, None] * N + cols[None, :], mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(a_tile, b_tile)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    c_ptrs = c + rows[:, None] * N + cols[None, :]
    previous = tl.load(c_ptrs, mask=mask, other=0.0).to(tl.float32)
    tl.store(c_ptrs, (alpha * acc + beta * previous).to(tl.float16), mask=mask)


# a, b, c are tensors on the GPU
def solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, M: int, N: int, K: int, alpha: float, beta: float):
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    gemm_kernel[grid](a, b, c, M, N, K, alpha, beta, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
