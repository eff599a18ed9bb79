# Matrix transpose, tiled: each program moves one 32x32 tile.
#
# Teaches: block-level programming. A program loads a whole tile with tl.arange
# offsets and a mask for the ragged edges, flips it in registers with tl.trans,
# and stores it. Reads walk along input rows and writes walk along output rows,
# so both sides are coalesced (Triton shuffles the tile through shared memory).
# Expect a large speed-up over the naive kernels, within reach of copy bandwidth.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_tiled_kernel(input_ptr, output_ptr, rows, cols, BLOCK: tl.constexpr):
    pid_r = tl.program_id(0)        # which block of input rows
    pid_c = tl.program_id(1)        # which block of input columns

    offs_r = pid_r * BLOCK + tl.arange(0, BLOCK)     # input row indices
    offs_c = pid_c * BLOCK + tl.arange(0, BLOCK)     # input column indices

    # Load the BLOCK x BLOCK tile input[offs_r, offs_c].
    in_mask = (offs_r[:, None] < rows) & (offs_c[None, :] < cols)
    tile = tl.load(input_ptr + offs_r[:, None] * cols + offs_c[None, :], mask=in_mask)

    # output[offs_c, offs_r] = tile.T ; rows of the output tile are contiguous.
    out_mask = (offs_c[:, None] < cols) & (offs_r[None, :] < rows)
    tl.store(output_ptr + offs_c[:, None] * rows + offs_r[None, :], tl.trans(tile), mask=out_mask)


def solve(input: torch.Tensor, output: torch.Tensor, rows: int, cols: int):
    BLOCK = 32
    grid = (triton.cdiv(rows, BLOCK), triton.cdiv(cols, BLOCK))
    transpose_tiled_kernel[grid](input, output, rows, cols, BLOCK=BLOCK)
