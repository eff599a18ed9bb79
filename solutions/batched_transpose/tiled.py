# Batched matrix transpose: 2-D tiles, and a third grid axis for the batch.
#
# Teaches: 3-D grids and batch offsets. Program (i, j, b) moves tile (i, j) of
# matrix b: the matrix starts at b * rows * cols in both tensors (computed in
# int64, so large batches cannot overflow 32-bit offsets), and inside it the
# tile is a plain 2-D transpose: masked loads along input rows, tl.trans, and
# masked stores along output rows, both coalesced. Nothing here depends on the
# element type, so the same code serves fp32 and fp16 (batched_transpose_fp16);
# with 2-byte elements a 64x64 tile moves as many bytes as a 32x45 fp32 one.
import torch
import triton
import triton.language as tl


@triton.jit
def batched_transpose_kernel(input_ptr, output_ptr, rows, cols, TILE: tl.constexpr):
    pid_r = tl.program_id(0)                    # tile of input rows
    pid_c = tl.program_id(1)                    # tile of input columns
    b = tl.program_id(2).to(tl.int64)           # which matrix of the batch
    src = input_ptr + b * rows * cols
    dst = output_ptr + b * rows * cols

    offs_r = pid_r * TILE + tl.arange(0, TILE)
    offs_c = pid_c * TILE + tl.arange(0, TILE)
    in_mask = (offs_r[:, None] < rows) & (offs_c[None, :] < cols)
    tile = tl.load(src + offs_r[:, None] * cols + offs_c[None, :], mask=in_mask)
    out_mask = (offs_c[:, None] < cols) & (offs_r[None, :] < rows)
    tl.store(dst + offs_c[:, None] * rows + offs_r[None, :], tl.trans(tile), mask=out_mask)


def solve(input: torch.Tensor, output: torch.Tensor, batch: int, rows: int, cols: int):
    TILE = 64 if input.element_size() <= 2 else 32
    grid = (triton.cdiv(rows, TILE), triton.cdiv(cols, TILE), batch)
    batched_transpose_kernel[grid](input, output, rows, cols, TILE=TILE, num_warps=4)
