# Matrix transpose, naive 2-D version: one program per element on a 2-D grid.
#
# Teaches: launching a 2-D grid and reading (row, col) straight from
# tl.program_id(0) and tl.program_id(1), instead of dividing a flat index.
# Performance is just as poor as the 1-D version: each program still moves a
# single float, so the GPU spends its time launching programs, not copying.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_naive_2d_kernel(input_ptr, output_ptr, rows, cols):
    row = tl.program_id(0)          # 0 .. rows - 1
    col = tl.program_id(1)          # 0 .. cols - 1
    value = tl.load(input_ptr + row * cols + col)    # input[row, col]
    tl.store(output_ptr + col * rows + row, value)   # output[col, row]


def solve(input: torch.Tensor, output: torch.Tensor, rows: int, cols: int):
    # Grid axis 1 is limited to 65535 programs; cols <= 8192 fits.
    grid = (rows, cols)
    transpose_naive_2d_kernel[grid](input, output, rows, cols)
