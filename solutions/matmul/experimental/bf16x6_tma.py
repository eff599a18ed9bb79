# bf16x6 with TMA loads: the same six-bf16-product fp32 emulation as
# ../bf16x6.py, but the main loop reads its tiles through tensor descriptors
# (Hopper's Tensor Memory Accelerator) instead of per-thread pointer loads.
#
# Teaches: host-side triton.tools.tensor_descriptor.TensorDescriptor with an
# autotune pre_hook that sets the block shape per config; pre-transposed
# (K-major) B, the layout tutorial 09 uses; out-of-range tiles zero-filled by TMA.
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

K_PAD = 64      # reduction padded with zeros to a multiple of every BLOCK_K


@triton.jit
def split_bf16x3_kernel(
    x_ptr, out_ptr,
    R, C, stride_xr,
    Rp, Cp, plane,                  # padded rows/cols of one piece; plane = Rp * Cp
    TRANSPOSE: tl.constexpr,        # write piece[c, r] instead of piece[r, c]
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    inside = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows.to(tl.int64)[:, None] * stride_xr + cols[None, :], mask=inside, other=0.0)

    x0 = x.to(tl.bfloat16)                      # x == x0 + x1 + x2 exactly
    r1 = x - x0.to(tl.float32)
    x1 = r1.to(tl.bfloat16)
    x2 = (r1 - x1.to(tl.float32)).to(tl.bfloat16)

    if TRANSPOSE:
        dst = out_ptr + cols.to(tl.int64)[None, :] * Rp + rows[:, None]
    else:
        dst = out_ptr + rows.to(tl.int64)[:, None] * Cp + cols[None, :]
    in_buffer = (rows[:, None] < Rp) & (cols[None, :] < Cp)
    tl.store(dst, x0, mask=in_buffer)
    tl.store(dst + plane, x1, mask=in_buffer)
    tl.store(dst + plane + plane, x2, mask=in_buffer)


def split_bf16x3(x: torch.Tensor, rows_padded: int, cols_padded: int, transpose: bool) -> torch.Tensor:
    R, C = x.shape
    shape = (3, cols_padded, rows_padded) if transpose else (3, rows_padded, cols_padded)
    out = torch.empty(shape, dtype=torch.bfloat16, device=x.device)
    BLOCK_R, BLOCK_C = (64, 64) if transpose else (32, 128)
    grid = (triton.cdiv(rows_padded, BLOCK_R), triton.cdiv(cols_padded, BLOCK_C))
    split_bf16x3_kernel[grid](
        x, out, R, C, x.stride(0), rows_padded, cols_padded, rows_padded * cols_padded,
        TRANSPOSE=transpose, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4,
    )
    return out


def set_block_shapes(nargs):
    # Runs before every launch of a config: a descriptor's box is the tile size.
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_N"], nargs["BLOCK_K"]]


def get_configs():
    cfg = lambda bm, bn, bk, stages: triton.Config(
        {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
        num_stages=stages, num_warps=8, pre_hook=set_block_shapes)
    return [cfg(128, 256, 64, 3), cfg(128, 256, 64, 4), cfg(256, 128, 64, 3), cfg(128, 128, 64, 4)]


# Kernel names: C[M, N] = sum_(i,j) A_i[M, K] @ B_j[K, N]; K is the padded reduction.
# a_desc views the pieces as one (3*M) x K matrix, b_desc (B transposed) as (3*Np) x K.
@triton.autotune(configs=get_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_bf16x6_tma_kernel(
    a_desc, b_desc, c_ptr,
    M, N, K, Np,
    stride_cm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    UPCAST: tl.constexpr,           # True under the CPU interpreter
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
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N

    # A tile rows past M read the next piece (or TMA's zero fill past the end):
    # they only feed C rows >= M, which the store masks off. Same for B columns.
    k_tiles = K // BLOCK_K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, 6 * k_tiles):
        t = step // k_tiles                      # term t: A_i @ B_j, smallest first
        kk = (step - t * k_tiles) * BLOCK_K
        i = tl.where(t < 3, 2 - t, tl.where(t < 5, 4 - t, 0))
        j = tl.where(t < 3, t, tl.where(t < 5, t - 3, 0))
        a = a_desc.load([i * M + off_m, kk])
        b = b_desc.load([j * Np + off_n, kk])
        if UPCAST:      # the CPU interpreter cannot multiply bf16; bf16 products are exact in fp32
            acc = tl.dot(a.to(tl.float32), tl.trans(b.to(tl.float32)), acc, input_precision="ieee")
        else:
            acc = tl.dot(a, tl.trans(b), acc)

    offs_cm = off_m + tl.arange(0, BLOCK_M)
    offs_cn = off_n + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm.to(tl.int64)[:, None] * stride_cm + offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def solve(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, M: int, N: int, K: int):
    # Problem: A is M x N, B is N x K, C is M x K (N is the reduction).
    Kp = triton.cdiv(N, K_PAD) * K_PAD
    Np = triton.cdiv(K, 16) * 16
    a3 = split_bf16x3(A, M, Kp, transpose=False)            # 3 x M x Kp
    b3t = split_bf16x3(B, Kp, Np, transpose=True)           # 3 x Np x Kp  (B pieces transposed)
    first = get_configs()[0].kwargs                         # placeholder box; the pre_hook sets it
    a_desc = TensorDescriptor.from_tensor(a3.view(3 * M, Kp), [first["BLOCK_M"], first["BLOCK_K"]])
    b_desc = TensorDescriptor.from_tensor(b3t.view(3 * Np, Kp), [first["BLOCK_N"], first["BLOCK_K"]])
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    matmul_bf16x6_tma_kernel[grid](
        a_desc, b_desc, C,
        M, K, Kp, Np,
        C.stride(0),
        UPCAST=A.device.type == "cpu",
    )
