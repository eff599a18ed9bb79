"""A challenge's ``solve()`` as a CUDA C++ solution declares it: the C type of
every argument, in the spec's order, and the prototype a starter writes.

Tensors are passed as device pointers (``const T*`` for inputs, ``T*`` for
outputs), scalars by value.  A LeetGPU folder's signature names each scalar's
ctypes type (``c_int``, ``c_size_t``, ``c_float``); a YAML spec's scalars are
``int`` or ``float``.  The worker calls the compiled ``solve`` through ctypes
with these types (judge/worker/cuda_solve.py).  Pure: no I/O.
"""

from __future__ import annotations

from judge.challenge.spec_model import Scalar, Tensor

__all__ = ["POINTER", "argument_types", "prototype", "c_type_of_dtype", "UnsupportedCType"]

POINTER = "pointer"  # a tensor: its data pointer, as a c_void_p

# The C element type of each tensor dtype, as a starter declares it.
_DTYPE_C = {
    "float32": "float", "float64": "double", "float16": "half", "bfloat16": "__nv_bfloat16",
    "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "long long",
    "uint32": "unsigned int", "bool": "bool",
}
# ctypes scalar types and how C spells them (ctypes.c_long is 64-bit on Linux).
_SCALAR_C = {
    "c_int": "int", "c_int32": "int", "c_uint": "unsigned int", "c_uint32": "unsigned int",
    "c_int64": "long long", "c_long": "long", "c_longlong": "long long", "c_uint64": "unsigned long long",
    "c_ulong": "unsigned long", "c_ulonglong": "unsigned long long", "c_size_t": "size_t",
    "c_int16": "short", "c_short": "short", "c_int8": "signed char", "c_uint8": "unsigned char",
    "c_bool": "bool", "c_float": "float", "c_double": "double",
}
# A YAML spec's scalar kinds: C's int and float, as LeetGPU's starters take sizes and factors.
_DEFAULT_SCALAR = {"int": "c_int", "float": "c_float"}
_INT_LIMITS = {"c_int": 2**31 - 1, "c_int32": 2**31 - 1, "c_int16": 2**15 - 1, "c_short": 2**15 - 1, "c_int8": 127}


class UnsupportedCType(ValueError):
    """A parameter that a C ``solve`` cannot take; the message names it."""


def scalar_ctype(scalar: Scalar) -> str:
    """The ctypes name a scalar is passed as: the signature's own, else int -> c_int, float -> c_float."""
    name = scalar.c_type or _DEFAULT_SCALAR.get(scalar.dtype, "")
    if name not in _SCALAR_C:
        raise UnsupportedCType(f"parameter '{scalar.name}': a C solve() cannot take a {name or scalar.dtype} "
                               f"(scalars: {', '.join(sorted(_SCALAR_C))})")
    return name


def argument_types(parameters) -> list[str]:
    """For each parameter in order: ``POINTER`` for a tensor, else its scalar's ctypes name."""
    types = []
    for parameter in parameters:
        if isinstance(parameter, Tensor):
            types.append(POINTER)
        elif isinstance(parameter, Scalar):
            types.append(scalar_ctype(parameter))
        else:
            what = "a torch.nn.Module" if getattr(parameter, "kind", "") == "module" else type(parameter).__name__
            raise UnsupportedCType(f"parameter '{getattr(parameter, 'name', parameter)}' ({what}) cannot be "
                                   "passed to a C solve()")
    return types


def fits(ctype: str, value) -> bool:
    """Whether an integer scalar's value fits the C type it is passed as (a 2**31 size in an int does not)."""
    limit = _INT_LIMITS.get(ctype)
    return limit is None or -limit - 1 <= int(value) <= limit


def c_type_of_dtype(dtype: str) -> str:
    return _DTYPE_C.get(dtype, "void")


def prototype(parameters) -> str:
    """``extern "C" void solve(const float* input, float* output, int rows, int cols)``."""
    declared = []
    for parameter, ctype in zip(parameters, argument_types(parameters)):  # a model argument: UnsupportedCType
        if ctype == POINTER:
            const = "const " if parameter.role == "in" else ""
            declared.append(f"{const}{c_type_of_dtype(parameter.dtype)}* {parameter.name}")
        else:
            declared.append(f"{_SCALAR_C[ctype]} {parameter.name}")
    return f'extern "C" void solve({", ".join(declared)})'
