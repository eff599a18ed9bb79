# Sorting for LeetGPU's hard/15_sorting: an in-place ascending sort of N floats.
#
# Teaches: a bitonic network, one Triton launch per compare-exchange step over
# a power-of-two buffer padded with +inf (log2(n)^2 / 2 launches).
# Judge it with a checkout of github.com/AlphaGPU/leetgpu-challenges:
#   judge run .leetgpu/challenges/hard/15_sorting solutions/leetgpu/15_sorting.py
import torch
import triton
import triton.language as tl


@triton.jit
def compare_exchange(buf, size, j, k, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    partner = i ^ j
    active = (i < size) & (partner > i)
    x = tl.load(buf + i, mask=active)
    y = tl.load(buf + partner, mask=active)
    ascending = (i & k) == 0
    swap = (x > y) == ascending
    tl.store(buf + i, tl.where(swap, y, x), mask=active)
    tl.store(buf + partner, tl.where(swap, x, y), mask=active)


# data is a tensor on the GPU
def solve(data: torch.Tensor, N: int):
    if N <= 1:
        return
    size = triton.next_power_of_2(N)
    buf = torch.full((size,), float("inf"), dtype=data.dtype, device=data.device)
    buf[:N] = data
    BLOCK = 1024
    grid = (triton.cdiv(size, BLOCK),)
    k = 2
    while k <= size:
        j = k // 2
        while j >= 1:
            compare_exchange[grid](buf, size, j, k, BLOCK=BLOCK)
            j //= 2
        k *= 2
    data.copy_(buf[:N])
