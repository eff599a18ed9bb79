# Correct, and its first call spends 3 s "compiling": it signals Triton's compile
# hooks around a sleep, as Triton does around a real compile on a GPU (the
# interpreter compiles nothing).  The judge must not count those 3 s against the
# per-call timeout.
import time

import triton
import triton.language as tl

_compiled = False


def _compile_hooks():
    try:
        from triton import knobs

        return knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook
    except (ImportError, AttributeError):  # triton < 3.4
        from triton.runtime.jit import JITFunction

        return JITFunction.cache_hook, JITFunction.compiled_hook


@triton.jit
def _k(x, y, rows, cols, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    c = tl.program_id(1) * B + tl.arange(0, B)
    tile = tl.load(x + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
    tl.store(y + c[:, None] * rows + r[None, :], tl.trans(tile), mask=(c[:, None] < cols) & (r[None, :] < rows))


def solve(input, output, rows, cols):
    global _compiled
    if not _compiled:
        before, after = _compile_hooks()
        before()
        time.sleep(3.0)
        after()
        _compiled = True
    _k[(triton.cdiv(rows, 16), triton.cdiv(cols, 16))](input, output, rows, cols, B=16)
