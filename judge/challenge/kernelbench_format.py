"""KernelBench's problem format, the pure part: telling a problem file from a solution,
its module-level size constants and the same source with other values for them (CPU
mode shrinks them), which constant to halve next, and KernelBench's tolerances.

No I/O and no torch: judge/challenge/kernelbench.py runs the problem's code.  The
format is KernelBench's (github.com/ScalingIntelligence/KernelBench, MIT): a problem
file defines ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()`` and
module-level size constants those read; a solution defines ``class ModelNew``.  This
code is ours.
"""

from __future__ import annotations

import ast

__all__ = ["ProblemFormatError", "ProblemError", "DISTRIBUTIONS", "ITEM_SIZES", "is_problem_source", "is_solution_source", "size_constants", "with_sizes",
           "next_to_halve", "halved", "tolerance_for", "uses_load_inline", "TOLERANCES", "SHRINK_FLOOR", "SHRINK_FLOOR_LAST",
           "PROBLEM_NAMES", "problem_level"]

PROBLEM_NAMES = ("Model", "get_inputs", "get_init_inputs")
# KernelBench's tolerance by the precision it judges in: src/kernelbench/eval.py,
# get_tolerance_for_precision (commit 423217d, 2026-03-05), used as atol = rtol in
# torch.allclose; "inspired by torchbench".  Other float dtypes are held to float32's;
# integer and boolean outputs (argmax) compare exactly, which is what allclose does to them.
TOLERANCES = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2, "float64": 1e-4}
# CPU mode halves size constants larger than this, never below it: kernel sizes, strides,
# dilations, groups and reduction dimensions (``dim = 1``) are small and stay as written.
SHRINK_FLOOR = 16
# Where a call is still over the budget then, the constants it halved (sizes, not kernel sizes) go on to this.
SHRINK_FLOOR_LAST = 4


class ProblemFormatError(ValueError):
    """A file that is no KernelBench problem; the message says what it lacks."""


class ProblemError(ValueError):
    """The problem's own code failed (importing it, get_inputs, the model); the message says where."""


# The judge's own trials of a problem, after KernelBench's five, each on a distribution of its own
# (kernelbench_inputs.py transforms get_inputs' draw by it).
DISTRIBUTIONS = {
    "signed": "each element's sign drawn at random, its magnitude as get_inputs() drew it",
    "wide": "signed, magnitudes log-uniform from 0.001 to 10",
    "kinks": "signed, a quarter of the elements set to 0, -0.0, +-0.5, +-1, +-2, +-3 or +-6",
}
# Bytes per element of the dtypes a problem's tensors may have (kernelbench.py, without importing torch).
ITEM_SIZES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int8": 1, "uint8": 1, "int16": 2,
              "int32": 4, "int64": 8, "bool": 1}


def _tree(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise ProblemFormatError(f"does not parse: {exc}") from None


def _top_level_names(tree: ast.Module) -> set[str]:
    return {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}


def is_problem_source(source: str) -> bool:
    """Whether ``source`` defines Model, get_inputs and get_init_inputs at its top level."""
    try:
        return set(PROBLEM_NAMES) <= _top_level_names(_tree(source))
    except ProblemFormatError:
        return False


def is_solution_source(source: str) -> bool:
    """Whether ``source`` defines ``class ModelNew`` at its top level (a KernelBench solution)."""
    try:
        return "ModelNew" in _top_level_names(_tree(source))
    except ProblemFormatError:
        return False


def uses_load_inline(source: str) -> bool:
    """Whether ``source`` builds CUDA through torch.utils.cpp_extension's load_inline (or load) with CUDA
    sources: a GPU and nvcc are needed to import it."""
    try:
        tree = _tree(source)
    except ProblemFormatError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("load_inline", "load") and any(k.arg in ("cuda_sources", "with_cuda") for k in node.keywords):
                return True
            if name == "load_inline" and len(node.args) >= 3:  # load_inline(name, cpp_sources, cuda_sources)
                return True
    return False


def problem_level(path_parts: tuple[str, ...]) -> str:
    """``level1`` ... from a problem file's folder names (KernelBench/level1/19_ReLU.py), else "-"."""
    return next((part for part in reversed(path_parts) if part.startswith("level") and part[5:].isdigit()), "-")


# -- size constants ---------------------------------------------------------------------------
def _int_value(node: ast.AST) -> int | None:
    """The value of an integer literal expression (``4096``, ``2048 * 2``, ``16 * 1024``, ``-1``), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _int_value(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Pow)):
        left, right = _int_value(node.left), _int_value(node.right)
        if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0):
            return None
        if isinstance(node.op, ast.Pow) and not 0 <= right <= 64:
            return None
        ops = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__, ast.FloorDiv: int.__floordiv__,
               ast.Pow: int.__pow__}
        return ops[type(node.op)](left, right)
    return None


def _slots(tree: ast.Module) -> list[tuple[str, ast.AST, object, object]]:
    """(name, the value node, its parent, the key under which the parent holds it) of every integer literal
    expression assigned at the module's top level: ``N = 4096``, ``shape = (8, 1024)`` (``shape[0]``,
    ``shape[1]``), ``height, width = 128, 256``."""
    found = []
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name):
            if _int_value(value) is not None:
                found.append((target.id, value, node, "value"))
            elif isinstance(value, (ast.Tuple, ast.List)):
                found += [(f"{target.id}[{i}]", item, value.elts, i) for i, item in enumerate(value.elts)
                          if _int_value(item) is not None]
        elif isinstance(target, ast.Tuple) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            found += [(name.id, item, value.elts, i) for i, (name, item) in enumerate(zip(target.elts, value.elts))
                      if isinstance(name, ast.Name) and _int_value(item) is not None]
    return found


def size_constants(source: str) -> dict[str, int]:
    """The module-level integer constants of a problem, in file order (``{"batch_size": 4096, "dim": 393216}``);
    a later assignment of the same name wins, as when the file runs."""
    return {name: _int_value(node) for name, node, _, _ in _slots(_tree(source))}


def with_sizes(source: str, values: dict[str, int]) -> ast.Module:
    """The problem's syntax tree with ``values`` put in place of those constants' literals (line numbers
    kept, so a traceback points at the file's own lines); compile it and run it as the file.  Raises
    ProblemFormatError for a name that is not one of ``size_constants``."""
    tree = _tree(source)
    slots = {name: (parent, key) for name, _, parent, key in _slots(tree)}
    unknown = sorted(set(values) - set(slots))
    if unknown:
        raise ProblemFormatError(f"no size constant named {', '.join(unknown)}")
    for name, value in values.items():
        parent, key = slots[name]
        old = parent[key] if isinstance(parent, list) else getattr(parent, key)
        new = ast.copy_location(ast.Constant(int(value)), old)
        if isinstance(parent, list):
            parent[key] = new
        else:
            setattr(parent, key, new)
    return ast.fix_missing_locations(tree)


def next_to_halve(values: dict[str, int], fixed: frozenset | set = frozenset(), floor: int = SHRINK_FLOOR) -> str | None:
    """The constant CPU mode halves next: the largest above ``floor`` and not ``fixed`` (halving it broke the
    problem), the first in file order among equals; None when none is left."""
    candidates = [(value, -i, name) for i, (name, value) in enumerate(values.items())
                  if value > floor and name not in fixed]
    return max(candidates)[2] if candidates else None


def halved(value: int, floor: int = SHRINK_FLOOR) -> int:
    return max(floor, value // 2)


def tolerance_for(dtype: str) -> tuple[str, float]:
    """(kind, atol = rtol) for an output of ``dtype``: KernelBench's ``close`` by precision, ``exact`` for
    integers and booleans."""
    if dtype in TOLERANCES:
        return "close", TOLERANCES[dtype]
    return "exact", 0.0
