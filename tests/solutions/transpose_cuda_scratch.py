# Correct: a Triton transpose into scratch space it allocates on the GPU by name, as many
# LeetGPU answers do (torch.zeros(..., device="cuda"), x.to("cuda"), x.cuda()), also at
# import time.  In CPU mode "cuda" is the judge's device, the CPU: accepted, with a note.
import torch
import triton
import triton.language as tl

ONE = torch.ones(1, device="cuda")


@triton.jit
def transpose_kernel(src, dst, rows, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[:, None]
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)[None, :]
    mask = (r < rows) & (c < cols)
    tile = tl.load(src + r * cols + c, mask=mask)
    tl.store(dst + c * rows + r, tile, mask=mask)


def solve(input, output, rows, cols):
    scratch = torch.zeros(cols, rows, dtype=input.dtype, device="cuda")
    grid = (triton.cdiv(rows, 16), triton.cdiv(cols, 16))
    transpose_kernel[grid](input.to("cuda"), scratch, rows, cols, BLOCK=16)
    output.copy_(scratch * ONE.cuda())
