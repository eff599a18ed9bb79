"""LeetGPU's ``challenge.py`` format, the pure part: ctypes signatures mapped to
our parameters, the statement's HTML as text, and the CPU-mode test budget.

No I/O and no torch: judge/challenge/leetgpu.py imports the user's file and
builds the tensors.  The format is LeetGPU's (github.com/AlphaGPU/leetgpu-challenges);
this code is ours and copies none of theirs.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from judge.challenge.spec_model import Init, Module, Scalar, Tensor

__all__ = ["SignatureError", "map_signature", "ctype_name", "POINTER_SIZES", "SCALAR_KINDS",
           "html_to_text", "over_budget", "CPU_ELEMENT_BUDGET"]

# The element size each pointer type promises; the dtype itself is the test tensors'
# (LeetGPU passes fp16 data as POINTER(c_uint16), for instance).
POINTER_SIZES = {
    "c_float": 4, "c_double": 8, "c_int": 4, "c_int32": 4, "c_uint32": 4, "c_uint": 4,
    "c_int16": 2, "c_short": 2, "c_uint16": 2, "c_ushort": 2, "c_int8": 1, "c_byte": 1,
    "c_uint8": 1, "c_ubyte": 1, "c_bool": 1, "c_char": 1, "c_int64": 8, "c_long": 8,
    "c_longlong": 8, "c_uint64": 8, "c_ulong": 8, "c_ulonglong": 8, "c_size_t": 8,
}
# Scalar arguments: Python int or float.
SCALAR_KINDS = {
    "c_int": "int", "c_int32": "int", "c_uint32": "int", "c_uint": "int", "c_int64": "int",
    "c_long": "int", "c_longlong": "int", "c_uint64": "int", "c_ulong": "int", "c_size_t": "int",
    "c_int16": "int", "c_short": "int", "c_int8": "int", "c_uint8": "int", "c_bool": "int",
    "c_float": "float", "c_double": "float",
}
ROLES = ("in", "out", "inout")
# In CPU mode a functional test whose tensors hold more elements than this in
# total is skipped (Triton's interpreter costs ~0.3 ms per program instance;
# a 2**18-element test runs in seconds); the example test always runs.
CPU_ELEMENT_BUDGET = 1 << 18


class SignatureError(ValueError):
    """A ``get_solve_signature()`` entry the judge cannot map; the message names it."""


def ctype_name(ctype) -> str:
    """How a signature type is written in messages: ``POINTER(c_float)``, ``c_int``."""
    if _is_pointer(ctype):
        return f"POINTER({ctype._type_.__name__})"
    if _is_torch_tensor_class(ctype):
        return "torch.Tensor"
    return getattr(ctype, "__name__", repr(ctype))


def _is_pointer(ctype) -> bool:
    return isinstance(ctype, type) and ctype.__name__.startswith("LP_") and isinstance(getattr(ctype, "_type_", None), type)


def map_signature(signature: dict, dtypes: dict) -> tuple:
    """Our parameters from ``get_solve_signature()``'s ``{name: (ctype, role)}``, in order.

    ``dtypes`` maps each pointer parameter to the dtype name of its tensor in
    the example test (for instance ``"float16"``); its element size must be
    the pointer type's.  Raises ``SignatureError`` naming what does not map.
    """
    if not isinstance(signature, dict) or not signature:
        raise SignatureError("get_solve_signature() must return a non-empty dict {name: (ctype, role)}")
    parameters = []
    for name, entry in signature.items():
        if not (isinstance(entry, tuple) and len(entry) == 2 and entry[1] in ROLES):
            raise SignatureError(f"parameter '{name}': expected (ctypes type, 'in' | 'out' | 'inout'), got {entry!r}")
        ctype, role = entry
        if _is_module_class(ctype):
            parameters.append(_module(name, role))
            continue
        tensor = _is_pointer(ctype) or _is_torch_tensor_class(ctype)
        parameters.append(_tensor(name, ctype, role, dtypes) if tensor else _scalar(name, ctype, role))
    return tuple(parameters)


def _is_module_class(ctype) -> bool:
    """``torch.nn.Module`` given as the type: the test passes a model (shipped_module.py sends it as data)."""
    return isinstance(ctype, type) and ctype.__name__ == "Module" and ctype.__module__.startswith("torch.nn")


def _module(name: str, role: str) -> Module:
    if role != "in":
        raise SignatureError(f"parameter '{name}' is a torch.nn.Module marked '{role}': a model can only be an input")
    return Module(name)


def _is_torch_tensor_class(ctype) -> bool:
    """``torch.Tensor`` given as the type (some challenges do): a tensor whose dtype the test says."""
    return isinstance(ctype, type) and ctype.__name__ == "Tensor" and ctype.__module__.startswith("torch")


def _tensor(name: str, ctype, role: str, dtypes: dict) -> Tensor:
    element = ctype._type_.__name__ if _is_pointer(ctype) else None
    if element is not None and element not in POINTER_SIZES:
        raise SignatureError(f"parameter '{name}': pointer type POINTER({element}) is not supported "
                             f"(supported elements: {', '.join(sorted(POINTER_SIZES))})")
    dtype = dtypes.get(name)
    if dtype is None:
        raise SignatureError(f"parameter '{name}' is a pointer but the example test holds no tensor for it")
    size = _DTYPE_SIZES.get(dtype)
    if size is None:
        raise SignatureError(f"parameter '{name}': tensors of dtype {dtype} are not supported "
                             f"(supported: {', '.join(_DTYPE_SIZES)})")
    if element is not None and size != POINTER_SIZES[element]:
        raise SignatureError(f"parameter '{name}': POINTER({element}) holds {POINTER_SIZES[element]}-byte elements "
                             f"but its test tensor is {dtype} ({size} bytes)")
    return Tensor(name, dtype, (), role, Init())


def _scalar(name: str, ctype, role: str) -> Scalar:
    kind = SCALAR_KINDS.get(getattr(ctype, "__name__", ""))
    if kind is None:
        raise SignatureError(f"parameter '{name}': ctypes type {ctype_name(ctype)} is not supported "
                             f"(scalars: {', '.join(sorted(SCALAR_KINDS))}; or a ctypes.POINTER, torch.Tensor "
                             "or torch.nn.Module)")
    if role != "in":
        raise SignatureError(f"parameter '{name}' is a scalar marked '{role}': only tensors can be outputs")
    return Scalar(name, kind, "", ctype.__name__)


_DTYPE_SIZES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int8": 1, "uint8": 1,
                "int16": 2, "int32": 4, "int64": 8, "bool": 1, "uint32": 4}


def over_budget(element_counts: list[int], budget: int = CPU_ELEMENT_BUDGET) -> bool:
    """Whether a test's tensors (their element counts) exceed the CPU-mode budget."""
    return sum(element_counts) > budget


# -- the statement --------------------------------------------------------------------
_BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "ul", "ol", "pre", "table", "tr", "br"}


class _TextOf(HTMLParser):
    """Text of an HTML fragment: blocks on their own lines, list items as ``- ``,
    ``<pre>`` kept as it is, other whitespace collapsed."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.pre = 0

    def handle_starttag(self, tag, attrs):
        if tag in _BLOCKS:
            self.parts.append("\n\n" if tag in ("p", "h1", "h2", "h3", "h4", "pre", "ul", "ol") else "\n")
        if tag == "li":
            self.parts.append("\n- ")
        if tag in ("td", "th"):
            self.parts.append(" | ")
        if tag == "pre":
            self.pre += 1
        if tag == "code" and not self.pre:
            self.parts.append("`")

    def handle_endtag(self, tag):
        if tag == "pre":
            self.pre -= 1
            self.parts.append("\n\n")
        elif tag == "code" and not self.pre:
            self.parts.append("`")
        elif tag in ("p", "h1", "h2", "h3", "h4", "ul", "ol"):
            self.parts.append("\n\n")

    def handle_data(self, data):
        self.parts.append(data if self.pre else re.sub(r"\s+", " ", data))


def html_to_text(text: str) -> str:
    """The statement as plain text (LaTeX such as ``\\(A\\)`` is left as written)."""
    parser = _TextOf()
    parser.feed(text)
    parser.close()
    # Collapsed whitespace leaves one space at the start of a line; <pre> indentation is kept.
    lines = [re.sub(r"^ (?=\S)", "", line.rstrip()) for line in html.unescape("".join(parser.parts)).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
