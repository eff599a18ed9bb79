# Matrix multiplication on Tensor Cores with fp32 accuracy: "3xTF32".
#
# Teaches: input_precision="tf32x3". Each fp32 operand is split into a TF32
# "big" part and a TF32 "small" remainder, and the dot is computed as
# big*big + big*small + small*big on the TF32 Tensor Cores -- three fast
# Tensor-Core products instead of slow fp32 FMAs, with accuracy close to fp32.
# Same grouped + autotuned kernel as grouped_autotuned.py, with Hopper-sized tiles.
# Measured on an H200 at 8192x6144x4096: 6.98-7.07 ms, ~58 TFLOP/s, 1.15x cuBLAS
# fp32 (docs/results.md); bf16x6.py goes further with bf16 Tensor Cores.
import torch
import triton
import triton.language as tl


def get_configs():
    # 128x128 tiles with 8 warps (two Hopper warpgroups) fit in registers; larger
    # tiles (128x256, 256x128) spill because of the operand splitting.
    # The first entry is the config expected to be best on H100/H200; it is
    # also the one used where autotuning is unavailable (CPU interpreter).
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 16, "GROUP_M": 8}, num_stages=6, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ]


# Inside the kernel we use the usual GEMM names: C[M, N] = A[M, K] @ B[K, N],
# i.e. N is the number of output columns and K is the reduction dimension.
@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_tf32x3_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # Grouped ordering: consecutive program ids walk down a column of GROUP_M
    # tiles before moving one tile to the right.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)   # last group may be short
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32x3")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # The problem's names: A is M x N, B is N x K, C is M x K.
    # Kernel's names:      M rows, N_out = K output columns, K_red = N reduction.
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_tf32x3_kernel[grid](
        A, B, C,
        M, K, N,                    # kernel (M, N, K) = problem (M, K, N)
        A.stride(0), A.stride(1),
        B.stride(0), B.stride(1),
        C.stride(0), C.stride(1),
    )
