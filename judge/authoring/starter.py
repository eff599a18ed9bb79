"""Starter solutions (``judge init``): Triton source with the right signature.

Pure text generation from a spec.  The starter imports, launches a kernel and
runs, but computes nothing: judged as is, it fails with "never written", which
is where a learner starts.
"""

from __future__ import annotations

from judge.challenge.spec_model import Scalar, Spec, Tensor


def starter_source(spec: Spec) -> str:
    tensors = [p for p in spec.parameters if isinstance(p, Tensor)]
    scalars = [p for p in spec.parameters if isinstance(p, Scalar)]
    outputs = [t for t in tensors if t.role != "in"]
    first_out = outputs[0]
    kernel_args = ", ".join([f"{t.name}_ptr" for t in tensors] + [s.name for s in scalars])
    launch_args = ", ".join([t.name for t in tensors] + [s.name for s in scalars])
    shapes = "\n".join(f"#   {t.name}: {t.dtype}[{', '.join(map(str, t.shape))}] ({t.role})" for t in tensors)
    numel = " * ".join(f"{first_out.name}.shape[{i}]" for i in range(len(first_out.shape)))
    return f'''"""Starter for the '{spec.name}' challenge ({spec.title}).

Judge it with:  judge run {spec.name} <this file>
"""
import torch
import triton
import triton.language as tl

# Tensors (contiguous, row-major, on the GPU):
{shapes}


@triton.jit
def kernel({kernel_args}, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # TODO: load from the inputs, compute, and tl.store into {first_out.name}_ptr.


def {spec.signature_text()}:
    BLOCK_SIZE = 1024
    n = {numel}
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    kernel[grid]({launch_args}, BLOCK_SIZE=BLOCK_SIZE)
'''
