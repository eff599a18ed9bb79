"""``judge init PROBLEM.py mine.py`` for a KernelBench problem: a solution file that starts as
the problem's own ``Model`` renamed ``ModelNew`` (correct from the start, timed as torch is),
with the imports and the example kernel of the language asked for, to replace forward's torch
calls with.  Pure: source text in, source text out.
"""

from __future__ import annotations

import ast
import re

__all__ = ["kernelbench_starter", "LANGUAGES"]

LANGUAGES = ("triton", "pytorch", "cuda")

_TRITON = '''import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    """An example kernel: out = x * factor (write yours, and call them from forward)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, factor, BLOCK=1024)
    return out
'''

_CUDA = '''from torch.utils.cpp_extension import load_inline

# An example kernel: out = x * factor (write yours; load_inline builds them with nvcc when this file is
# imported: a GPU and nvcc are needed, and the judge keeps the build per source in its cache).
_cuda_source = r"""
#include <torch/extension.h>

__global__ void scale_kernel(const float* x, float* out, float factor, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] * factor;
}

torch::Tensor scale(torch::Tensor x, double factor) {
    auto out = torch::empty_like(x);
    long n = x.numel();
    scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), (float)factor, n);
    return out;
}
"""

_extension = load_inline(name="scale_extension", cpp_sources="torch::Tensor scale(torch::Tensor x, double factor);",
                         cuda_sources=_cuda_source, functions=["scale"], verbose=False)
'''


def _model_class(source: str) -> tuple[str, list[str]]:
    """(Model's class source renamed ModelNew, the problem's top-level imports)."""
    tree = ast.parse(source)
    imports = [ast.get_source_segment(source, node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    model = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Model")
    text = ast.get_source_segment(source, model)
    text = re.sub(r"^class Model\b", "class ModelNew", text)
    text = re.sub(r"\bsuper\(\s*Model\s*,", "super(ModelNew,", text)
    return text, [i for i in imports if i]


def kernelbench_starter(source: str, name: str, lang: str) -> str:
    """The starter of problem ``name`` (its file's ``source``) in ``lang`` (triton, pytorch, cuda)."""
    model, imports = _model_class(source)
    for needed in ("import torch", "import torch.nn as nn"):
        if needed not in imports:
            imports.insert(0, needed)
    body = {"triton": _TRITON, "cuda": _CUDA, "pytorch": ""}[lang]
    how = {"triton": "Triton kernels (scale_kernel is an example)",
           "cuda": "CUDA kernels built with load_inline (scale_kernel is an example)",
           "pytorch": "faster PyTorch"}[lang]
    header = (f'"""A KernelBench solution for {name}: ModelNew starts as the problem\'s Model (correct, and as fast as '
              f"torch);\nreplace forward's torch calls with {how}.  ModelNew keeps Model's constructor: it is built\n"
              "as Model is, from get_init_inputs() under the judge's seed (the same weights where it makes the same\n"
              'parameters in the same order), and forward returns new tensors."""\n\n')
    return header + "\n".join(imports) + "\n" + (body and "\n" + body) + "\n\n" + model + "\n"
