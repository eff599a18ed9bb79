# 3xTF32 with the split done once, up front: a prologue writes A = A_hi + A_lo
# and B = B_hi + B_lo (each part exactly representable in TF32), and the main
# kernel runs ONE plain TF32 GEMM over a three-times-longer reduction:
#   A@B ~= A_lo B_hi + A_hi B_lo + A_hi B_hi     (dropped A_lo B_lo ~ 2^-22).
# Teaches: the "tf32x3" of ../tf32x3.py without splitting inside the hot loop,
# and why B is stored transposed: TF32 Tensor-Core instructions (wgmma) read
# 32-bit operands from shared memory only in K-major order.
import torch
import triton
import triton.language as tl

K_PAD = 64      # reduction padded with zeros to a multiple of every BLOCK_K


@triton.jit
def _round_to_tf32(x):
    # Keep the top 10 of fp32's 23 mantissa bits, rounding to nearest (ties
    # away from zero), like the GPU's cvt.rna.tf32.f32.
    bits = x.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x1000) >> 13) << 13
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def split_tf32x2_kernel(
    x_ptr, out_ptr,
    R, C, stride_xr,
    Rp, Cp, plane,                  # padded rows/cols of one part; plane = Rp * Cp
    TRANSPOSE: tl.constexpr,        # write part[c, r] instead of part[r, c]
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows.to(tl.int64)[:, None] * stride_xr + cols[None, :], mask=inside, other=0.0)

    hi = _round_to_tf32(x)
    lo = _round_to_tf32(x - hi)     # x - hi is exact (13 bits); rounding it costs < 2^-22 |x|

    if TRANSPOSE:
        dst = out_ptr + cols.to(tl.int64)[None, :] * Rp + rows[:, None]
    else:
        dst = out_ptr + rows.to(tl.int64)[:, None] * Cp + cols[None, :]
    in_buffer = (rows[:, None] < Rp) & (cols[None, :] < Cp)
    tl.store(dst, hi, mask=in_buffer)
    tl.store(dst + plane, lo, mask=in_buffer)


def split_tf32x2(x: torch.Tensor, rows_padded: int, cols_padded: int, transpose: bool) -> torch.Tensor:
    R, C = x.shape
    shape = (2, cols_padded, rows_padded) if transpose else (2, rows_padded, cols_padded)
    out = torch.empty(shape, dtype=torch.float32, device=x.device)
    BLOCK_R, BLOCK_C = (64, 64) if transpose else (32, 128)
    grid = (triton.cdiv(rows_padded, BLOCK_R), triton.cdiv(cols_padded, BLOCK_C))
    split_tf32x2_kernel[grid](
        x, out, R, C, x.stride(0), rows_padded, cols_padded, rows_padded * cols_padded,
        TRANSPOSE=transpose, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    return out


def get_configs():
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
    ]


# Kernel names: C[M, N] = A[M, K] @ B[K, N]; K is the padded reduction.
# a: 2 x M x K (hi, lo), bt: 2 x Np x K (B_hi^T, B_lo^T), both fp32 holding TF32 values.
@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_tf32x3_presplit_kernel(
    a_ptr, bt_ptr, c_ptr,
    M, N, K, Np,
    a_plane, b_plane,
    stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
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

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M      # wrapped rows: masked at the store
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % Np
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am.to(tl.int64)[:, None] * K + offs_k[None, :]
    bt_ptrs = bt_ptr + offs_bn.to(tl.int64)[:, None] * K + offs_k[None, :]

    # Terms, smallest first: t = 0: A_lo B_hi, t = 1: A_hi B_lo, t = 2: A_hi B_hi.
    k_tiles = K // BLOCK_K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, 3 * k_tiles):
        t = step // k_tiles
        kk = (step - t * k_tiles) * BLOCK_K
        i = tl.where(t == 0, 1, 0)          # which part of A
        j = tl.where(t == 1, 1, 0)          # which part of B
        a = tl.load(a_ptrs + (i.to(tl.int64) * a_plane + kk))
        bt = tl.load(bt_ptrs + (j.to(tl.int64) * b_plane + kk))
        acc = tl.dot(a, tl.trans(bt), acc, input_precision="tf32")   # exact TF32 inputs

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm.to(tl.int64)[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # Problem: A is M x N, B is N x K, C is M x K (N is the reduction).
    Kp = triton.cdiv(N, K_PAD) * K_PAD
    Np = triton.cdiv(K, 16) * 16
    a2 = split_tf32x2(A, M, Kp, transpose=False)            # 2 x M x Kp
    bt2 = split_tf32x2(B, Kp, Np, transpose=True)           # 2 x Np x Kp
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_tf32x3_presplit_kernel[grid](
        a2, bt2, C,
        M, K, Kp, Np,
        M * Kp, Np * Kp,
        C.stride(0),
    )
