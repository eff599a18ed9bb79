"""What the judge tells a learner about a wrong answer, beyond the numbers: which narrower precision the
output matches, and whether the challenge's own operation could have produced it.  Pure: no I/O, no torch.

A hint must come from the operation's error model (issue 49 item 1): a transpose that rounds to float16
before its store gives exactly what a TF32 matmul's input rounding would (both keep 10 mantissa bits), but a
transpose has no matmul, so it is told "matches float16 rounding", never "use tl.dot(..., 'ieee')".
"""

from __future__ import annotations

import re

__all__ = ["PRECISION_HINTS", "matmul_like", "precision_hint"]

TF32_HINT = ("the result matches a matmul whose inputs were rounded to TF32 (10-bit mantissa): tl.dot's default "
             "precision on NVIDIA GPUs since Ampere is TF32, about 1e-3 relative error. Use tl.dot(a, b, "
             "input_precision=\"ieee\") for fp32 accuracy, or \"tf32x3\" for speed with fp32-level error "
             "(solutions/matmul/tf32x3.py)")


def _output_hint(name: str, bits: int) -> str:
    return (f"the result matches the right answer rounded to {name} ({bits}-bit mantissa): the values pass through "
            f"{name} somewhere before the store (a .to(tl.{name}), a {name} buffer or tensor); keep them in the "
            "output's own type from the load to the store")


def _input_hint(name: str, bits: int) -> str:
    return (f"the result matches the reference computed from inputs rounded to {name} ({bits}-bit mantissa): the "
            f"inputs are converted to {name} (or loaded as {name}) before the arithmetic; keep them in the inputs' "
            "own type")


# Keyed as checks.precision_explains names the precision it found.
PRECISION_HINTS = {
    "TF32": TF32_HINT,
    "float16 output": _output_hint("float16", 10),
    "bfloat16 output": _output_hint("bfloat16", 7),
    "float16 inputs": _input_hint("float16", 10),
    "bfloat16 inputs": _input_hint("bfloat16", 7),
}

# Operations whose GPU kernels round their inputs to TF32 by default: a matrix product in any spelling,
# a convolution, a linear layer, attention.  The ``@`` operator counts where it stands between operands
# (not a decorator at the start of a line).
_MATMUL_CALL = re.compile(
    r"\b(?:matmul|mm|bmm|addmm|addbmm|baddbmm|mv|addmv|dot|vdot|inner|einsum|tensordot|chain_matmul|multi_dot|"
    r"linear|bilinear|conv\w*|Linear|Bilinear|LazyLinear|Conv\w*|LazyConv\w*|MultiheadAttention|"
    r"scaled_dot_product_attention|LSTM|GRU|RNN|Transformer\w*)\b")
_MATMUL_OPERATOR = re.compile(r"[\w)\]]\s*@=?\s*[\w(\[]")


def matmul_like(source: str) -> bool:
    """Whether a reference's source (a spec's reference, a LeetGPU reference_impl, a KernelBench Model) calls
    an operation a GPU computes in TF32 by default; comments are left out."""
    code = "\n".join(line.split("#", 1)[0] for line in source.splitlines())
    return bool(_MATMUL_CALL.search(code) or _MATMUL_OPERATOR.search(code))


def precision_hint(precision: str | None) -> str | None:
    """The hint for a precision ``checks.precision_explains`` found (None for none)."""
    return PRECISION_HINTS.get(precision) if precision else None
