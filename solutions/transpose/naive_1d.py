# Matrix transpose, naive 1-D version: one program per element.
#
# Teaches: the simplest possible Triton kernel -- a 1-D grid of rows*cols
# programs, each computing its (row, col) from tl.program_id(0) and moving a
# single float. Expect it to be very slow: every program does 4 bytes of work,
# so launch/scheduling overhead dominates and memory bandwidth is barely used.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_naive_1d_kernel(input_ptr, output_ptr, rows, cols):
    pid = tl.program_id(0)          # 0 .. rows*cols - 1
    row = pid // cols
    col = pid % cols
    value = tl.load(input_ptr + row * cols + col)    # input[row, col]
    tl.store(output_ptr + col * rows + row, value)   # output[col, row]


def solve(input: torch.Tensor, output: torch.Tensor, rows: int, cols: int):
    grid = (rows * cols,)
    transpose_naive_1d_kernel[grid](input, output, rows, cols)
