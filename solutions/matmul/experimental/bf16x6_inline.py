# bf16x6 without a prologue: each K step loads fp32 tiles of A and B, splits
# them into three bf16 pieces in registers (x = x0 + x1 + x2 exactly) and issues
# the six bf16 products. Same arithmetic as ../bf16x6.py.
#
# Teaches: the trade-off of fusing the split into the GEMM: no extra pass over
# memory and no scratch buffers, but fp32 tiles (twice the bytes) in the
# pipeline and split/convert work inside the hot loop; the pieces have to be
# written back to shared memory before the Tensor Cores can read them.
import torch
import triton
import triton.language as tl


def get_configs():
    # Two 128x128 fp32 accumulators (A0B0, and the five smaller terms) fit in
    # registers with 8 warps; bigger tiles would spill.
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 16, "GROUP_M": 8}, num_stages=4, num_warps=8),
    ]


@triton.jit
def _split3(x):
    x0 = x.to(tl.bfloat16)                      # x == x0 + x1 + x2 exactly
    r1 = x - x0.to(tl.float32)
    x1 = r1.to(tl.bfloat16)
    x2 = (r1 - x1.to(tl.float32)).to(tl.bfloat16)
    return x0, x1, x2


@triton.jit
def _mma(a, b, acc, UPCAST: tl.constexpr):
    if UPCAST:      # the CPU interpreter cannot multiply bf16; bf16 products are exact in fp32
        return tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    else:
        return tl.dot(a, b, acc)


# Kernel names: C[M, N] = A[M, K] @ B[K, N]; K is the reduction.
@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_bf16x6_inline_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_bk, stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    UPCAST: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M      # wrapped rows/cols: masked at the store
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am.to(tl.int64)[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k.to(tl.int64)[:, None] * stride_bk + offs_bn[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)         # A0 @ B0
    acc_small = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)   # the five terms below 2^-8
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        a0, a1, a2 = _split3(a)
        b0, b1, b2 = _split3(b)
        # Chained dots on one accumulator: Triton waits for each before the next.
        acc_small = _mma(a2, b0, acc_small, UPCAST)
        acc_small = _mma(a1, b1, acc_small, UPCAST)
        acc_small = _mma(a0, b2, acc_small, UPCAST)
        acc_small = _mma(a1, b0, acc_small, UPCAST)
        acc_small = _mma(a0, b1, acc_small, UPCAST)
        acc = _mma(a0, b0, acc, UPCAST)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    acc += acc_small

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm.to(tl.int64)[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # Problem: A is M x N, B is N x K, C is M x K (N is the reduction).
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_bf16x6_inline_kernel[grid](
        A, B, C,
        M, K, N,                    # kernel (M, N, K) = problem (M, K, N)
        A.stride(0), B.stride(0), C.stride(0),
        UPCAST=A.device.type == "cpu",
    )
