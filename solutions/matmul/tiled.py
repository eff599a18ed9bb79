# Matrix multiplication, first tiled version: C = A @ B in fp32.
#
# Teaches: the basic Triton GEMM. Each program owns one 64x64 tile of C, walks
# the reduction dimension 32 at a time, loads an A tile and a B tile (masked at
# the ragged edges, zero-filled so they add nothing), and accumulates tl.dot
# results in fp32. input_precision="ieee" keeps full fp32 accuracy (no TF32),
# so the dot runs on CUDA-core FMAs: correct and far faster than naive, but
# fixed tiles and no tuning leave it well below cuBLAS.
import torch
import triton
import triton.language as tl


# Inside the kernel we use the usual GEMM names: C[M, N] = A[M, K] @ B[K, N],
# i.e. N is the number of output columns and K is the reduction dimension.
@triton.jit
def matmul_tiled_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)        # which block of C rows
    pid_n = tl.program_id(1)        # which block of C columns

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)

    # Pointers to the first BLOCK_M x BLOCK_K tile of A and BLOCK_K x BLOCK_N tile of B.
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K    # how much of the reduction dim is still ahead
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # The problem's names: A is M x N, B is N x K, C is M x K.
    # Kernel's names:      M rows, N_out = K output columns, K_red = N reduction.
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(K, BLOCK_N))
    matmul_tiled_kernel[grid](
        A, B, C,
        M, K, N,                    # kernel (M, N, K) = problem (M, K, N)
        A.stride(0), A.stride(1),
        B.stride(0), B.stride(1),
        C.stride(0), C.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
    )
