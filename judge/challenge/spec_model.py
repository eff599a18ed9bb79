"""The challenge spec's data model: what a validated spec holds.

No I/O: judge/challenge/spec.py reads and validates the YAML into these.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from judge.challenge import expr

DTYPES = ("float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")
FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float64")
ROLES = ("in", "out", "inout")
DISTRIBUTIONS = ("uniform", "normal", "randint", "fill")
TOLERANCE_KINDS = ("exact", "close", "summation")
BOUNDS = ("memory", "compute")
DIFFICULTIES = ("easy", "medium", "hard")
MAX_FILE_BYTES = 1_000_000
# Default largest value of each size parameter in interpret (CPU) mode; the
# interpreter costs ~0.3 ms per program instance, so keep grids small.
DEFAULT_INTERPRET_MAX = 48


def unknown_key(key: str, allowed) -> str:
    """The message for a key the spec does not know: the closest allowed one first (a typo), then them all."""
    close = difflib.get_close_matches(str(key), [str(a) for a in allowed], n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key; {hint}allowed: {', '.join(sorted(map(str, allowed)))}"


class ReferenceError_(RuntimeError):
    """The spec's own reference failed: a bug in the challenge, not the solution."""


class SpecError(ValueError):
    """A challenge spec that cannot be used; the message is for the user."""

    def __init__(self, source: str, field_name: str, problem: str):
        self.source, self.field, self.problem = source, field_name, problem
        where = f"field '{field_name}'" if field_name else "the file"
        super().__init__(f"{source}: {where}: {problem}")


@dataclass(frozen=True)
class Init:
    """How an input tensor's values are drawn."""

    dist: str = "uniform"
    low: float = -1.0
    high: float = 1.0
    mean: float = 0.0
    std: float = 1.0
    value: float = 0.0


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: str
    shape: tuple  # of formulas (str) or ints
    role: str
    init: Init

    kind = "tensor"


@dataclass(frozen=True)
class Scalar:
    name: str
    dtype: str  # "int" or "float"
    value: str  # a formula of the size parameters
    # The ctypes type a CUDA C++ solve() takes it as (LeetGPU's signature says, e.g. "c_size_t");
    # "" for a YAML spec's scalar: int or float (judge/challenge/c_signature.py).
    c_type: str = ""

    kind = "scalar"


@dataclass(frozen=True)
class Module:
    """A ``torch.nn.Module`` argument, read only: LeetGPU folders only (``easy/41_simple_inference``), shipped to
    the worker as data (judge/challenge/shipped_module.py)."""

    name: str
    role: str = "in"
    dtype: str = "nn.Module"

    kind = "module"


@dataclass(frozen=True)
class Tolerance:
    """How outputs are compared with the reference (docs/spec-format.md)."""

    kind: str = "exact"
    atol: float = 0.0
    rtol: float = 0.0


@dataclass(frozen=True)
class SizeCase:
    """Named values of the size parameters (an explicit test or a benchmark)."""

    name: str
    params: dict


@dataclass(frozen=True)
class Spec:
    name: str
    title: str
    difficulty: str
    statement: str
    parameters: tuple
    sizes: dict  # name -> (low, high)
    constraints: tuple
    reference_code: str
    reference_dtype: str | None
    baseline_code: str
    tolerance: Tolerance
    tests: tuple  # of SizeCase
    random_tests: int
    benchmarks: tuple  # of SizeCase
    bytes_formula: str | float
    flops_formula: str | float
    bound: str
    interpret_max: dict
    source: str = ""
    example: dict = field(default_factory=dict)
    variant_of: str | None = None  # the base spec's name, for a spec from a 'variants:' entry
    require_kernel: bool = False  # every solve() call must launch a kernel of the solution's own (--require-kernel)
    # The YAML it was parsed from: the worker parses this text, never the file
    # again, so an edit after loading cannot make judge and worker disagree.
    text: str = field(default="", repr=False, compare=False)

    @property
    def path(self) -> str:
        """The YAML file; ``source`` is ``<file>#<name>`` for a variant (load_spec reads both)."""
        return self.source[: -len(self.name) - 1] if self.variant_of else self.source

    @property
    def tensors(self) -> list[Tensor]:
        return [p for p in self.parameters if isinstance(p, Tensor)]

    @property
    def size_names(self) -> list[str]:
        return list(self.sizes)

    def satisfies(self, params: dict) -> bool:
        """True when ``params`` lie in the ranges and meet every constraint."""
        for name, (low, high) in self.sizes.items():
            if not low <= params[name] <= high:
                return False
        return all(expr.evaluate(c, params) for c in self.constraints)

    def shape_of(self, tensor: Tensor, params: dict) -> tuple[int, ...]:
        return tuple(int(expr.evaluate(d, params)) for d in tensor.shape)

    def scalar_value(self, scalar: Scalar, params: dict):
        value = expr.evaluate(scalar.value, params)
        return int(value) if scalar.dtype == "int" else float(value)

    def bytes_moved(self, params: dict) -> float:
        return float(expr.evaluate(self.bytes_formula, params))

    def flops(self, params: dict) -> float:
        return float(expr.evaluate(self.flops_formula, params))

    def signature_text(self) -> str:
        return f"solve({', '.join(p.name for p in self.parameters)})"
