# Wrong: stores with the output's row stride too long (rows + 8 instead of rows), so the last
# rows land past the end of `output`.  In CPU mode those stores reached the worker's heap: one
# seed gave a time-out, "double free or corruption" or wrong_answer, run to run (issue 24).
# Now they land in the guard zone after `output` and the verdict names it.
import triton
import triton.language as tl


@triton.jit
def _transpose(src, dst, rows, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[:, None]
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)[None, :]
    mask = (r < rows) & (c < cols)
    values = tl.load(src + r * cols + c, mask=mask)
    tl.store(dst + c * (rows + 8) + r, values, mask=mask)


def solve(input, output, rows, cols):
    grid = (triton.cdiv(rows, 16), triton.cdiv(cols, 16))
    _transpose[grid](input, output, rows, cols, BLOCK=16)
