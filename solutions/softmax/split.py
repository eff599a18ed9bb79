# Softmax of a vector over many programs: partial (max, sum) per block, then
# every program combines the partials itself and writes its block.
#
# Teaches: splitting a reduction whose result every output needs. Pass 1:
# program b computes m_b = max of its block and s_b = sum exp(x - m_b), and
# stores the pair. Pass 2: each program loads all the pairs (at most a few
# hundred), combines them into the global M = max m_b and
# S = sum s_b * exp(m_b - M) -- the same rescaling as an online softmax -- and
# writes exp(x - M) / S for its block. No atomics, no third launch, and the
# input is read twice, the output written once.
import torch
import triton
import triton.language as tl


@triton.jit
def block_stats_kernel(input_ptr, max_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(input_ptr + offs, mask=offs < n, other=float("-inf"))
    block_max = tl.max(x, axis=0)            # finite: every block has >= 1 element
    tl.store(max_ptr + pid, block_max)
    tl.store(sum_ptr + pid, tl.sum(tl.exp(x - block_max), axis=0))


@triton.jit
def normalize_kernel(input_ptr, output_ptr, max_ptr, sum_ptr, n, num_blocks,
                     BLOCK: tl.constexpr, STATS_BLOCK: tl.constexpr):
    stats = tl.arange(0, STATS_BLOCK)
    block_max = tl.load(max_ptr + stats, mask=stats < num_blocks, other=float("-inf"))
    block_sum = tl.load(sum_ptr + stats, mask=stats < num_blocks, other=0.0)
    big_m = tl.max(block_max, axis=0)
    total = tl.sum(block_sum * tl.exp(block_max - big_m), axis=0)

    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(input_ptr + offs, mask=mask, other=float("-inf"))
    tl.store(output_ptr + offs, tl.exp(x - big_m) / total, mask=mask)


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    BLOCK = 4096
    num_blocks = triton.cdiv(N, BLOCK)          # <= 123 for N <= 500,000
    block_max = torch.empty(num_blocks, dtype=torch.float32, device=input.device)
    block_sum = torch.empty(num_blocks, dtype=torch.float32, device=input.device)
    block_stats_kernel[(num_blocks,)](input, block_max, block_sum, N, BLOCK=BLOCK)
    normalize_kernel[(num_blocks,)](input, output, block_max, block_sum, N, num_blocks,
                                    BLOCK=BLOCK, STATS_BLOCK=max(16, triton.next_power_of_2(num_blocks)))
