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
    shapes = _shapes(spec, "#")
    numel = f"{first_out.name}.numel()" if _shapes_set_by_tests(spec) else \
        " * ".join(f"{first_out.name}.shape[{i}]" for i in range(len(first_out.shape))) or "1"
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


def pytorch_starter_source(spec: Spec) -> str:
    """A PyTorch starter: ``solve`` with the signature and the tensors' shapes, computing nothing."""
    tensors = [p for p in spec.parameters if isinstance(p, Tensor)]
    first_out = [t for t in tensors if t.role != "in"][0]
    shapes = _shapes(spec, "#")
    return f'''"""Starter for the '{spec.name}' challenge ({spec.title}), in PyTorch.

Judge it with:  judge run {spec.name} <this file>
"""
import torch

# Tensors (contiguous, row-major, on the GPU):
{shapes}


def {spec.signature_text()}:
    # TODO: compute with torch operations and write the result into {first_out.name} (e.g. {first_out.name}.copy_(...)).
    pass
'''


def cuda_starter_source(spec: Spec) -> str:
    """A CUDA C++ starter: the kernel's and ``solve``'s signatures, a launch over the first output's
    elements (when its shape is written in the scalars), and nothing computed."""
    from judge.challenge.c_signature import c_type_of_dtype, prototype

    tensors = [p for p in spec.parameters if isinstance(p, Tensor)]
    first_out = [t for t in tensors if t.role != "in"][0]
    declared = prototype(spec.parameters).removeprefix('extern "C" void solve(').removesuffix(")")
    names = ", ".join(p.name for p in spec.parameters)
    shapes = _shapes(spec, "//")
    dtypes = {t.dtype for t in tensors}
    headers = "".join(f"#include <{h}>\n" for d, h in (("float16", "cuda_fp16.h"), ("bfloat16", "cuda_bf16.h"))
                      if d in dtypes)
    count = _element_count(first_out, spec)
    return f'''// Starter for the '{spec.name}' challenge ({spec.title}), in CUDA C++.
//
// Judge it with:  judge run {spec.name} <this file>
//
// Pointers are device pointers to contiguous, row-major tensors ({c_type_of_dtype(first_out.dtype)} is {first_out.dtype}):
{shapes}
#include <cuda_runtime.h>
{headers}#include <cstddef>
#include <cstdint>

__global__ void kernel({declared}) {{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: read the inputs, compute, and write {first_out.name}[i] for every i in range.
}}

extern "C" void solve({declared}) {{
    size_t n = {count};
    int threads = 256;
    unsigned blocks = (unsigned)((n + threads - 1) / threads);
    kernel<<<blocks, threads>>>({names});
}}
'''


def _shapes_set_by_tests(spec: Spec) -> bool:
    """A LeetGPU folder's tensors have no shape in the signature: its tests' generators make them."""
    return bool(getattr(spec, "shipped", False))


def _shapes(spec: Spec, comment: str) -> str:
    """A comment line per tensor (and model) argument: its dtype, shape and role."""
    lines = []
    for p in spec.parameters:
        if isinstance(p, Tensor):
            shape = " (each test sets its shape)" if _shapes_set_by_tests(spec) else \
                f"[{', '.join(map(str, p.shape))}]"
            lines.append(f"{comment}   {p.name}: {p.dtype}{shape} ({p.role})")
        elif not isinstance(p, Scalar):  # a LeetGPU folder's torch.nn.Module argument
            lines.append(f"{comment}   {p.name}: a torch.nn.Module (read only; its weights are tensors on the GPU)")
    return "\n".join(lines)


def _element_count(tensor: Tensor, spec: Spec) -> str:
    """The tensor's element count in C, from the scalars that hold its sizes; ``1 /* TODO */`` when its
    shape uses a size no scalar carries."""
    carried = {s.value: s.name for s in spec.parameters if isinstance(s, Scalar) and s.dtype == "int"}
    if _shapes_set_by_tests(spec):
        return f"1  /* TODO: the number of elements of {tensor.name} */"
    factors = []
    for dim in tensor.shape:
        text = str(dim).strip()
        if text.isdigit():
            factors.append(text)
        elif text in carried:
            factors.append(f"(size_t){carried[text]}")
        else:
            return f"1  /* TODO: the number of elements of {tensor.name} */"
    return " * ".join(factors) or "1"
