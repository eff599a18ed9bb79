# Matrix transpose, tuned: 64x64 tiles, 8 warps, 64-bit offsets.
#
# Teaches: the same tile-and-tl.trans idea as tiled.py, tuned for bandwidth.
# Bigger tiles give each program more bytes in flight; 8 warps keep enough loads
# outstanding to saturate HBM. Offsets are computed in int64 so rows*cols may
# exceed 2**31. When both sizes are multiples of 64 (EVEN) the masks are
# compiled out. Measured on an H200: 97% of the device-to-device copy
# bandwidth at 8192^2 and at 32768^2 (docs/results.md).
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_tuned_kernel(input_ptr, output_ptr, rows, cols,
                           BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid_r = tl.program_id(0).to(tl.int64)
    pid_c = tl.program_id(1).to(tl.int64)

    offs_r = pid_r * BLOCK + tl.arange(0, BLOCK)     # int64 input row indices
    offs_c = pid_c * BLOCK + tl.arange(0, BLOCK)     # int64 input column indices

    in_ptrs = input_ptr + offs_r[:, None] * cols + offs_c[None, :]
    out_ptrs = output_ptr + offs_c[:, None] * rows + offs_r[None, :]

    if EVEN:
        tile = tl.load(in_ptrs)
        tl.store(out_ptrs, tl.trans(tile))
    else:
        in_mask = (offs_r[:, None] < rows) & (offs_c[None, :] < cols)
        tile = tl.load(in_ptrs, mask=in_mask)
        out_mask = (offs_c[:, None] < cols) & (offs_r[None, :] < rows)
        tl.store(out_ptrs, tl.trans(tile), mask=out_mask)


def solve(input: torch.Tensor, output: torch.Tensor, rows: int, cols: int):
    BLOCK = 64
    even = rows % BLOCK == 0 and cols % BLOCK == 0
    grid = (triton.cdiv(rows, BLOCK), triton.cdiv(cols, BLOCK))
    transpose_tuned_kernel[grid](input, output, rows, cols,
                                 BLOCK=BLOCK, EVEN=even, num_warps=8)
