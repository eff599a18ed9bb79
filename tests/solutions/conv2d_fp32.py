"""A plain fp32 2-D convolution in Triton (valid cross-correlation, F.conv2d's): each program computes a block
of output columns of one row, summing kernel_rows x kernel_cols products in fp32.  For LeetGPU's
medium/10_2d_convolution and tests/leetgpu/precision/medium/3_conv2d (issue 39: exact, unlike cuDNN's default
TF32 reference)."""
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d(x, w, y, cols, out_cols, krows, kcols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = c < out_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, krows):
        for j in range(0, kcols):
            acc += tl.load(x + (r + i) * cols + c + j, mask=mask, other=0.0) * tl.load(w + i * kcols + j)
    tl.store(y + r * out_cols + c, acc, mask=mask)


def solve(input: torch.Tensor, kernel: torch.Tensor, output: torch.Tensor, input_rows: int, input_cols: int,
          kernel_rows: int, kernel_cols: int):
    out_rows, out_cols = input_rows - kernel_rows + 1, input_cols - kernel_cols + 1
    conv2d[(out_rows, triton.cdiv(out_cols, 128))](input, kernel, output, input_cols, out_cols, kernel_rows,
                                                   kernel_cols, BLOCK=128)
