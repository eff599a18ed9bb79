# Sum of a vector: each program sums one block, then adds it into the output
# with an atomic add.
#
# Teaches: tl.sum (a tree reduction inside a program), masked loads with
# other=0.0 so the padding lanes add nothing, and tl.atomic_add to combine
# the blocks' partial sums. Two consequences worth knowing:
# - the output arrives holding garbage (the judge fills it with NaN), so it
#   must be zeroed before the atomics add into it;
# - atomics land in whatever order the hardware runs the programs, so the
#   result can change in the last bits from run to run. The judge accepts
#   any order of fp32 summation (a 'summation' tolerance), so this passes.
import torch
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(input_ptr, output_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    values = tl.load(input_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(output_ptr, tl.sum(values, axis=0))


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    BLOCK_SIZE = 4096
    output.zero_()                          # the atomics accumulate into it
    grid = (triton.cdiv(N, BLOCK_SIZE),)
    block_sum_kernel[grid](input, output, N, BLOCK_SIZE=BLOCK_SIZE)
