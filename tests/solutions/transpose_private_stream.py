# Correct, but launches its Triton kernel on a private stream that it never joins to the
# current one (as a user might, to "overlap" work).  The rule (docs/security.md): the judge
# waits for the whole device after every call, so this is always accepted; its CUDA-event
# time misses the kernel, so its time is the host clock's (with a note).
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(src, dst, rows, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)[:, None]
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)[None, :]
    mask = (r < rows) & (c < cols)
    tile = tl.load(src + r * cols + c, mask=mask)
    tl.store(dst + c * rows + r, tile, mask=mask)


def solve(input, output, rows, cols):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        grid = (triton.cdiv(rows, 32), triton.cdiv(cols, 32))
        for _ in range(8):  # long enough that the race, when there was one, showed
            transpose_kernel[grid](input, output, rows, cols, BLOCK=32)
