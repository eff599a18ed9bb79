# bf16x6, organised per K step: load the three pieces of an A tile and of a B
# tile once, then issue all six bf16 products (the same fp32 emulation as
# ../bf16x6.py, which instead loops over one product at a time).
#
# Teaches: several tl.dot calls per loop iteration, and a second accumulator
# that keeps the five small terms apart from the big A0B0 term, so rounding the
# big sum is not repeated six times per step. Costs SMEM (6 tiles per stage).
import torch
import triton
import triton.language as tl

K_PAD = 64      # reduction padded with zeros to a multiple of every BLOCK_K


@triton.jit
def split_bf16x3_kernel(
    x_ptr, out_ptr,
    R, C, stride_xr,
    Rp, Cp, plane,                  # padded shape of one piece; plane = Rp * Cp
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    rows64 = rows.to(tl.int64)[:, None]
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows64 * stride_xr + cols[None, :], mask=inside, other=0.0)
    x0 = x.to(tl.bfloat16)                      # x == x0 + x1 + x2 exactly
    r1 = x - x0.to(tl.float32)
    x1 = r1.to(tl.bfloat16)
    x2 = (r1 - x1.to(tl.float32)).to(tl.bfloat16)
    dst = out_ptr + rows64 * Cp + cols[None, :]
    in_buffer = (rows[:, None] < Rp) & (cols[None, :] < Cp)
    tl.store(dst, x0, mask=in_buffer)
    tl.store(dst + plane, x1, mask=in_buffer)
    tl.store(dst + plane + plane, x2, mask=in_buffer)


def split_bf16x3(x: torch.Tensor, rows_padded: int, cols_padded: int) -> torch.Tensor:
    R, C = x.shape
    out = torch.empty((3, rows_padded, cols_padded), dtype=torch.bfloat16, device=x.device)
    BLOCK_R, BLOCK_C = 32, 128
    grid = (triton.cdiv(rows_padded, BLOCK_R), triton.cdiv(cols_padded, BLOCK_C))
    split_bf16x3_kernel[grid](
        x, out, R, C, x.stride(0), rows_padded, cols_padded, rows_padded * cols_padded,
        BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    return out


def get_configs():
    # Two 128x128 fp32 accumulators = 128 registers per thread with 8 warps;
    # six tiles per pipeline stage: 48 KiB at BLOCK_K=32, 96 KiB at 64.
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=2, num_warps=8),
    ]


@triton.jit
def _mma(a, b, acc, UPCAST: tl.constexpr):
    if UPCAST:      # the CPU interpreter cannot multiply bf16; bf16 products are exact in fp32
        return tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    else:
        return tl.dot(a, b, acc)


# Kernel names: C[M, N] = A[M, K] @ B[K, N], K = padded reduction.
@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_bf16x6_multidot_kernel(
    a_ptr, b_ptr, c_ptr,            # a: 3 x M x K bf16, b: 3 x K x Np bf16, c: M x N fp32
    M, N, K, Np,
    a_plane, b_plane,
    stride_cm,
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
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % Np
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am.to(tl.int64)[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k.to(tl.int64)[:, None] * Np + offs_bn[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)         # A0 @ B0
    acc_small = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)   # the five terms below 2^-8
    for k in range(0, K // BLOCK_K):
        a0 = tl.load(a_ptrs)
        a1 = tl.load(a_ptrs + a_plane)
        a2 = tl.load(a_ptrs + a_plane + a_plane)
        b0 = tl.load(b_ptrs)
        b1 = tl.load(b_ptrs + b_plane)
        b2 = tl.load(b_ptrs + b_plane + b_plane)
        # Each of these dots feeds the next one's accumulator; Triton (3.9 at
        # least) then waits for one to finish before issuing the next, so the
        # Tensor Cores idle between them: the cost of this organisation.
        acc_small = _mma(a2, b0, acc_small, UPCAST)
        acc_small = _mma(a1, b1, acc_small, UPCAST)
        acc_small = _mma(a0, b2, acc_small, UPCAST)
        acc_small = _mma(a1, b0, acc_small, UPCAST)
        acc_small = _mma(a0, b1, acc_small, UPCAST)
        acc = _mma(a0, b0, acc, UPCAST)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * Np
    acc += acc_small

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm.to(tl.int64)[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # Problem: A is M x N, B is N x K, C is M x K (N is the reduction).
    Kp = triton.cdiv(N, K_PAD) * K_PAD
    Np = triton.cdiv(K, 16) * 16
    a3 = split_bf16x3(A, M, Kp)                 # 3 x M x Kp
    b3 = split_bf16x3(B, Kp, Np)                # 3 x Kp x Np
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_bf16x6_multidot_kernel[grid](
        a3, b3, C,
        M, K, Kp, Np,
        M * Kp, Kp * Np,
        C.stride(0),
        UPCAST=A.device.type == "cpu",
    )
