import triton
import triton.language as tl


@triton.jit
def _k(x, y, rows, cols, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    c = tl.program_id(1) * B + tl.arange(0, B)
    tile = tl.load(x + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
    tl.store(y + c[:, None] * rows + r[None, :], tl.trans(tile), mask=(c[:, None] < cols) & (r[None, :] < rows))


def solve(input, output, rows, cols):
    _k[(triton.cdiv(rows, 16), triton.cdiv(cols, 16))](input, output, rows, cols, B=16)
