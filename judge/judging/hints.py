"""What the judge tells a learner about a wrong answer, beyond the numbers: which narrower precision the
output matches, and whether the challenge's own operation could have produced it.  Pure: no I/O, no torch.

A hint must come from the operation's error model (issue 49 item 1): a transpose that rounds to float16
before its store gives exactly what a TF32 matmul's input rounding would (both keep 10 mantissa bits), but a
transpose has no matmul, so it is told "matches float16 rounding", never "use tl.dot(..., 'ieee')".
"""

from __future__ import annotations

import re

__all__ = ["PRECISION_HINTS", "matmul_like", "precision_hint", "add_grid_hint", "grid_hint"]

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


def _never_written(cause: str) -> bool:
    """A wrong answer none of whose outputs had an element written (checks.Mismatch.cause)."""
    parts = cause.removeprefix("wrong_answer: ").split(" | ") if cause.startswith("wrong_answer: ") else []
    return bool(parts) and all(part.endswith(": never written") for part in parts)


def _written_there(case) -> bool:
    """A case whose outputs were written, all (accepted) or in part (a wrong answer with some unwritten)."""
    return case.verdict == "accepted" or (case.cause.startswith("wrong_answer: ") and "some elements never written"
                                          in case.cause)


def _larger(case, than) -> bool:
    """Every size of ``case`` at least ``than``'s, and one larger (named sizes only)."""
    sizes, other = than.params, case.params
    if not sizes or sizes.keys() != other.keys():
        return False
    numbers = all(isinstance(v, int) and isinstance(other[k], int) for k, v in sizes.items())
    return numbers and all(other[k] >= v for k, v in sizes.items()) and other != sizes


def grid_hint(case, witness) -> str:
    """The hint for ``case``, whose outputs were never written, while the larger ``witness`` was written."""
    how = "passed" if witness.verdict == "accepted" else "was written in part"
    sizes = ", ".join(f"{k}={v}" for k, v in witness.params.items())
    n = next(iter(case.params))  # the challenge's own name of a size: N, rows
    return (f"no element of the output was written at this size, while {witness.name} ({sizes}) {how}: a grid "
            f"that rounds down ({n} // BLOCK programs) has no program below one block; launch triton.cdiv({n}, "
            "BLOCK) programs and mask the last block's loads and stores")


def add_grid_hint(tests: list) -> None:
    """Every failed case none of whose outputs was written gets the grid hint first in its message, where a
    larger case of the same run was written (passed, or written in part): the headline failure of a grid of
    ``N // BLOCK`` programs is its smallest sizes, all unwritten, and it got no hint (issue 49 item 2).
    An output never written at any size (the empty starter) gets none: nothing says the grid is why."""
    for case in tests:
        if not _never_written(case.cause or ""):
            continue
        witness = next((other for other in tests if _written_there(other) and _larger(other, case)), None)
        if witness is not None:
            case.message = f"{grid_hint(case, witness)}\n{case.message}"
