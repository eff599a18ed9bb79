# Correct tiled transpose behind @triton.autotune (must work in CPU mode too).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"B": 16}, num_warps=4), triton.Config({"B": 32}, num_warps=4)],
                 key=["rows", "cols"])
@triton.jit
def _k(x, y, rows, cols, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    c = tl.program_id(1) * B + tl.arange(0, B)
    tile = tl.load(x + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
    tl.store(y + c[:, None] * rows + r[None, :], tl.trans(tile), mask=(c[:, None] < cols) & (r[None, :] < rows))


def solve(input, output, rows, cols):
    grid = lambda meta: (triton.cdiv(rows, meta["B"]), triton.cdiv(cols, meta["B"]))  # noqa: E731
    _k[grid](input, output, rows, cols)
