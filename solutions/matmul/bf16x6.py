# Matrix multiplication with fp32 accuracy on bf16 Tensor Cores: "bf16x6".
#
# Teaches: emulating a wide number format with products of narrow ones. Every
# fp32 value is split EXACTLY into three bf16 pieces, x = x0 + x1 + x2 (8 + 8 + 8
# significant bits), by a cheap prologue kernel. The product is then
#   A@B = A2B0 + A1B1 + A0B2  +  A1B0 + A0B1  +  A0B0      (+ terms below 2^-24)
# six bf16 products with an fp32 accumulator, smallest terms first. Written as
# ONE plain bf16 GEMM over a six-times-longer reduction, it runs at Tensor-Core
# speed and stays as accurate as fp32: 96-115 TFLOP/s on an H200 at
# 8192x6144x4096, 1.9-2.3x cuBLAS fp32 (docs/results.md).
import torch
import triton
import triton.language as tl

# The split buffers pad the reduction dimension to a multiple of this (>= every
# BLOCK_K below) with zeros, so the main loop never needs a mask.
K_PAD = 64


# ---------------------------------------------------------------------------
# Prologue: x (R x C fp32) -> out (3 x Rp x Cp bf16), out[0] + out[1] + out[2] == x.
# Rows >= R and columns >= C of each piece are zero padding.
# ---------------------------------------------------------------------------
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

    # Each subtraction is exact in fp32: what is left after rounding to 8 bits
    # lies on x's own grid of 24 bits, and after two pieces at most 8 bits remain,
    # so x2 holds the rest exactly (round-to-nearest or truncation alike; only
    # |x| < ~1e-33 loses bits, where x2 would be below bf16's normal range).
    x0 = x.to(tl.bfloat16)
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


# ---------------------------------------------------------------------------
# Main kernel: C[M, N] = sum over the six (i, j) of A_i[M, K] @ B_j[K, N].
# Usual GEMM names inside: N = output columns, K = (padded) reduction length.
# ---------------------------------------------------------------------------
def get_configs():
    # The first entry is expected to be best on H100/H200 (the standard Hopper
    # bf16 GEMM tile); it is also the one used under the CPU interpreter.
    return [
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
    ]


@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_bf16x6_kernel(
    a_ptr, b_ptr, c_ptr,            # a: 3 x M x K bf16, b: 3 x K x Np bf16, c: M x N fp32
    M, N, K, Np,                    # K is a multiple of BLOCK_K; Np >= N, a multiple of 16
    a_plane, b_plane,               # elements from one piece to the next
    stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    UPCAST: tl.constexpr,           # True under the CPU interpreter (see solve)
):
    # Grouped ordering: consecutive program ids walk down a column of GROUP_M
    # tiles before moving one tile to the right, so they share A rows and B
    # columns in L2.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Rows past M and columns past Np wrap around to valid memory: their
    # results land in rows/columns of C that the final store masks off. So the
    # loop below needs no masks at all (the K padding is zeros).
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % Np
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am.to(tl.int64)[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k.to(tl.int64)[:, None] * Np + offs_bn[None, :]

    # One loop over 6 * (K / BLOCK_K) steps: steps [t*k_tiles, (t+1)*k_tiles)
    # compute term t. Terms in increasing size, so the small ones are summed
    # while the accumulator is still small:
    #   t:       0     1     2     3     4     5
    #   (i, j): (2,0) (1,1) (0,2) (1,0) (0,1) (0,0)      -> A_i @ B_j
    k_tiles = K // BLOCK_K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, 6 * k_tiles):
        t = step // k_tiles
        kk = step - t * k_tiles
        i = tl.where(t < 3, 2 - t, tl.where(t < 5, 4 - t, 0))
        j = tl.where(t < 3, t, tl.where(t < 5, t - 3, 0))
        a = tl.load(a_ptrs + (i.to(tl.int64) * a_plane + kk * BLOCK_K))
        b = tl.load(b_ptrs + (j.to(tl.int64) * b_plane + kk.to(tl.int64) * BLOCK_K * Np))
        if UPCAST:
            # Triton's CPU interpreter cannot multiply bf16 tensors. A product of
            # two bf16 values is exact in fp32, so fp32 gives the same numbers.
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc)     # bf16 x bf16 -> fp32 on the Tensor Cores

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm.to(tl.int64)[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # The problem's names: A is M x N, B is N x K, C is M x K (N is the reduction).
    Kp = triton.cdiv(N, K_PAD) * K_PAD          # padded reduction length
    Np = triton.cdiv(K, 16) * 16                # padded B row: 32-byte aligned rows
    a3 = split_bf16x3(A, M, Kp)                 # 3 x M x Kp
    b3 = split_bf16x3(B, Kp, Np)                # 3 x Kp x Np
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_bf16x6_kernel[grid](
        a3, b3, C,
        M, K, Kp, Np,                           # kernel (M, N, K) = problem (M, K, padded N)
        M * Kp, Kp * Np,
        C.stride(0),
        UPCAST=A.device.type == "cpu",
    )
