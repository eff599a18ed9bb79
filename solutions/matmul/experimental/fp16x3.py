# fp32 matmul from THREE fp16 Tensor-Core products ("fp16x3", after Ootomo &
# Yokota 2022): x * 2^s = hi + lo * 2^-11 with hi, lo in fp16 (11 + 11 bits),
#   A@B = 2^-(sa+sb) * (A_hi B_hi + (A_hi B_lo + A_lo B_hi) * 2^-11)   (+ ~2^-24).
# Teaches: fp16 has 3 more mantissa bits than bf16, so two pieces suffice (half
# the products of bf16x6), but only 5 exponent bits: power-of-two scales, one per
# row of A (sa) and per column of B (sb), found by an atomic-max pass, keep values
# in fp16's range, and lo is stored times 2^11. Accurate to fp32 level except for
# elements below ~2^-30 of the largest |value| in their row of A / column of B
# (fp16 underflow); bf16x6 has no such limit.
import torch
import triton
import triton.language as tl

K_PAD = 64      # reduction padded with zeros to a multiple of every BLOCK_K


@triton.jit
def _scale_exponent(amax_bits):
    # s such that max|x| * 2^s lies in [2^14, 2^15): below fp16's 65504.
    e = ((amax_bits >> 23) & 0xFF) - 127        # floor(log2(max|x|))
    return tl.minimum(tl.maximum(14 - e, -126), 126)


@triton.jit
def _pow2(s):
    # 2^s as an fp32, exactly, for -126 <= s <= 127 (built from its bits).
    return ((s + 127) << 23).to(tl.float32, bitcast=True)


@triton.jit
def absmax_kernel(
    x_ptr, amax_ptr, R, C, stride_xr,
    PER_ROW: tl.constexpr,          # max over each row (A) or each column (B)
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.abs(tl.load(x_ptr + rows.to(tl.int64)[:, None] * stride_xr + cols[None, :], mask=mask, other=0.0))
    # Non-negative floats compare like their bit patterns read as integers.
    if PER_ROW:
        tl.atomic_max(amax_ptr + rows, tl.max(x, axis=1).to(tl.int32, bitcast=True), mask=rows < R)
    else:
        tl.atomic_max(amax_ptr + cols, tl.max(x, axis=0).to(tl.int32, bitcast=True), mask=cols < C)


@triton.jit
def split_fp16x2_kernel(
    x_ptr, amax_ptr, out_ptr,
    R, C, stride_xr,
    Rp, Cp, plane,                  # padded shape of one piece; plane = Rp * Cp
    PER_ROW: tl.constexpr,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    rows64 = rows.to(tl.int64)[:, None]
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows64 * stride_xr + cols[None, :], mask=inside, other=0.0)

    if PER_ROW:
        scale = _pow2(_scale_exponent(tl.load(amax_ptr + rows, mask=rows < R, other=0)))[:, None]
    else:
        scale = _pow2(_scale_exponent(tl.load(amax_ptr + cols, mask=cols < C, other=0)))[None, :]
    xs = x * scale                                          # exact: a power of two
    hi = xs.to(tl.float16)
    lo = ((xs - hi.to(tl.float32)) * 2048.0).to(tl.float16)  # the subtraction is exact

    dst = out_ptr + rows64 * Cp + cols[None, :]
    in_buffer = (rows[:, None] < Rp) & (cols[None, :] < Cp)
    tl.store(dst, hi, mask=in_buffer)
    tl.store(dst + plane, lo, mask=in_buffer)


def split_fp16x2(x, amax, rows_padded: int, cols_padded: int, per_row: bool) -> torch.Tensor:
    # amax: zeros, one int32 per row (per_row) or per column of x; filled here.
    R, C = x.shape
    BLOCK_R, BLOCK_C = 32, 128
    absmax_kernel[(triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))](
        x, amax, R, C, x.stride(0), PER_ROW=per_row, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
    out = torch.empty((2, rows_padded, cols_padded), dtype=torch.float16, device=x.device)
    grid = (triton.cdiv(rows_padded, BLOCK_R), triton.cdiv(cols_padded, BLOCK_C))
    split_fp16x2_kernel[grid](
        x, amax, out, R, C, x.stride(0), rows_padded, cols_padded, rows_padded * cols_padded,
        PER_ROW=per_row, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    return out


def get_configs():
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    ]


# Kernel names: C[M, N] = A[M, K] @ B[K, N]; K is the padded reduction.
@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_fp16x3_kernel(
    a_ptr, b_ptr, c_ptr,            # a: 2 x M x K fp16 (hi, lo), b: 2 x K x Np fp16
    amax_a_ptr, amax_b_ptr,         # per row of A / per column of B: bits of max|x|
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

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M      # wrapped rows/cols: masked at the store
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % Np
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am.to(tl.int64)[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k.to(tl.int64)[:, None] * Np + offs_bn[None, :]
    k_tiles = K // BLOCK_K

    # The two cross terms first, in units of 2^-11: t = 0: A_hi B_lo, t = 1: A_lo B_hi.
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, 2 * k_tiles):
        t = step // k_tiles
        kk = step - t * k_tiles
        a = tl.load(a_ptrs + (t.to(tl.int64) * a_plane + kk * BLOCK_K))
        b = tl.load(b_ptrs + ((1 - t).to(tl.int64) * b_plane + kk.to(tl.int64) * BLOCK_K * Np))
        acc = tl.dot(a, b, acc)
    acc = acc * (1.0 / 2048.0)
    # Then the big term A_hi B_hi.
    for _ in range(0, k_tiles):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * Np

    # Undo the scalings 2^sa (row) and 2^sb (column), half of the exponent at a
    # time so that nothing overflows where the result does not.
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    sa = _scale_exponent(tl.load(amax_a_ptr + offs_cm, mask=offs_cm < M, other=0))
    sb = _scale_exponent(tl.load(amax_b_ptr + offs_cn, mask=offs_cn < N, other=0))
    s = sa[:, None] + sb[None, :]
    half = s // 2
    acc = acc * _pow2(-half) * _pow2(half - s)

    c_ptrs = c_ptr + offs_cm.to(tl.int64)[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # Problem: A is M x N, B is N x K, C is M x K (N is the reduction).
    Kp = triton.cdiv(N, K_PAD) * K_PAD
    Np = triton.cdiv(K, 16) * 16
    amax = torch.zeros(M + K, dtype=torch.int32, device=A.device)
    a2 = split_fp16x2(A, amax[:M], M, Kp, per_row=True)         # 2 x M x Kp
    b2 = split_fp16x2(B, amax[M:], Kp, Np, per_row=False)       # 2 x Kp x Np
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_fp16x3_kernel[grid](
        a2, b2, C, amax[:M], amax[M:],
        M, K, Kp, Np,
        M * Kp, Kp * Np,
        C.stride(0),
    )
