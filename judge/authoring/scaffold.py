"""``judge new NAME``: the files of a new challenge, as text.

Pure text generation.  The spec is complete and valid for a placeholder
operation (ReLU, ``output[i] = max(input[i], 0)``), with a comment on every
field, so ``judge validate NAME.yaml`` and ``judge run NAME.yaml NAME.py``
work before the author changes anything; the solution file is a correct
Triton kernel for that placeholder.  docs/writing-a-challenge.md is the
reference for every field.
"""

from __future__ import annotations

__all__ = ["scaffold_files", "valid_name"]


def valid_name(name: str) -> bool:
    """The spec's own rule for names: letters, digits, '_' and '-'."""
    return bool(name) and all(c.isalnum() or c in "_-" for c in name)


def scaffold_files(name: str) -> dict[str, str]:
    """{file name: text} for a new challenge called ``name``."""
    return {f"{name}.yaml": spec_text(name), f"{name}.py": solution_text(name)}


def spec_text(name: str) -> str:
    return f'''# The '{name}' challenge.  Every field is described in
# docs/writing-a-challenge.md; check this file with:  judge validate {name}.yaml
# It starts as a working challenge for a placeholder operation (ReLU): change
# the statement, parameters, reference, tolerance and sizes to your own.
name: {name}
title: "TODO: a title for {name}"
difficulty: easy                 # easy, medium or hard
statement: |
  TODO: say what solve() must compute, in Markdown.  Placeholder: apply ReLU
  to a vector of `N` 32-bit floats, `output[i] = max(input[i], 0)`.

  - `solve()` writes the result into `output` and returns nothing.
  - The tensors are contiguous, on the GPU.

# solve()'s parameters, in order: tensors (dtype, shape as formulas of the
# size parameters, role in/out/inout, how inputs are drawn) and scalars.
parameters:
  - {{name: input, tensor: float32, shape: [N], role: in, init: {{dist: uniform, low: -10, high: 10}}}}
  - {{name: output, tensor: float32, shape: [N], role: out}}
  - {{name: N, scalar: int}}
# Each size parameter's range; generated tests cover the edges of the range.
sizes:
  N: [1, 100000000]
# Trusted torch code with solve()'s signature that writes the expected outputs.
reference: |
  def reference(input, output, N):
      torch.clamp(input, min=0, out=output)
# exact: bit-for-bit (data movement, one correctly rounded operation);
# close: |got - ref| <= atol + rtol * |ref|;  summation: for sums and dot
# products, |got - ref| <= atol + rtol * reference(|inputs|).
tolerance: {{kind: exact}}
tests:
  sizes:                         # explicit sizes, run after the generated ones
    - {{N: 1}}
    - {{N: 2}}
    - {{N: 3}}
    - {{N: 4}}
    - {{N: 1000}}
    - {{N: 1025}}
    - {{N: 1000000}}
  random: 3                      # seeded random sizes per run
benchmarks:                      # timed sizes on a GPU
  - {{name: 25M, N: 25000000}}
cost:                            # for speed-of-light percentages
  bytes: 2 * N * 4
  flops: N
  bound: memory
interpret:                       # the largest sizes in CPU mode (Triton's interpreter)
  max: {{N: 5000}}
example: {{N: 4}}                  # what 'judge show' runs the reference on
'''


def solution_text(name: str) -> str:
    return f'''# A solution of the '{name}' challenge (the placeholder ReLU for now).
#
# Judge it with:  judge run {name}.yaml {name}.py
# A challenge needs at least one solution that passes: keep this file in step
# with the spec as you change it.
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(input_ptr, output_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(input_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def solve(input: torch.Tensor, output: torch.Tensor, N: int):
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(N, BLOCK_SIZE),)
    relu_kernel[grid](input, output, N, BLOCK_SIZE=BLOCK_SIZE)
'''
