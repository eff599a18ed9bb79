"""A small, safe arithmetic language for the formulas in challenge specs.

Shapes (``[rows, cols]``), constraints (``M * K <= 2**26``) and the bytes/FLOPs
formulas (``2 * M * N * K``) are strings in YAML.  They are parsed with Python's
``ast`` module and evaluated by walking the tree, allowing only numbers, the
size-parameter names, arithmetic, comparisons, boolean operators, the
conditional expression and a few pure functions.  Nothing is ever passed to
``eval``: a spec cannot run code through a formula.
"""

from __future__ import annotations

import ast
import math
import operator
from functools import lru_cache

__all__ = ["ExprError", "compile_expr", "evaluate", "names_in"]

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
FUNCTIONS = {
    "min": min,
    "max": max,
    "abs": abs,
    "cdiv": lambda a, b: -(-a // b),
    "log2": math.log2,
    "sqrt": math.sqrt,
    "ceil": math.ceil,
    "floor": math.floor,
}
# Exponents above this are refused, so "2 ** 2 ** 99" cannot hang the loader.
_MAX_EXPONENT = 256


class ExprError(ValueError):
    """A formula that does not parse, names an unknown symbol or fails to evaluate."""


@lru_cache(maxsize=1024)
def compile_expr(text: str) -> ast.Expression:
    """Parse ``text`` and check that it only uses the allowed constructs."""
    if not isinstance(text, str):
        raise ExprError(f"expected a formula as text, got {type(text).__name__}")
    if len(text) > 1000:
        raise ExprError("formula longer than 1000 characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse {text!r}: {exc.msg}") from None
    for node in ast.walk(tree):
        _check_node(node, text)
    return tree


def _check_node(node: ast.AST, text: str) -> None:
    allowed = (
        ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
        ast.Name, ast.Load, ast.Constant, ast.Call, ast.And, ast.Or,
        *_BINARY, *_UNARY, *_COMPARE,
    )
    if not isinstance(node, allowed):
        raise ExprError(f"{type(node).__name__} is not allowed in a formula: {text!r}")
    if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)) \
            or isinstance(node, ast.Constant) and isinstance(node.value, bool):
        raise ExprError(f"only numbers may appear as constants: {text!r}")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise ExprError(
                f"only these functions may be called: {', '.join(sorted(FUNCTIONS))} ({text!r})")


def names_in(text: str) -> set[str]:
    """The variable names a formula refers to (function names excluded)."""
    tree = compile_expr(text)
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called


def evaluate(text: str | int | float, env: dict[str, int | float]):
    """Evaluate a formula with the size parameters in ``env``.

    Numbers are returned unchanged, so specs may write ``shape: [N, 4]``.
    """
    if isinstance(text, bool):
        raise ExprError("expected a number or a formula, got a boolean")
    if isinstance(text, (int, float)):
        return text
    tree = compile_expr(text)
    try:
        return _eval(tree.body, env)
    except ExprError:
        raise
    except (ArithmeticError, ValueError, TypeError, OverflowError) as exc:
        raise ExprError(f"{text!r} failed with {_describe(env)}: {exc}") from None


def _describe(env: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in env.items()) or "no parameters"


def _eval(node: ast.AST, env: dict):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ExprError(f"unknown name {node.id!r} (known: {', '.join(sorted(env)) or 'none'})")
        return env[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ExprError(f"exponent {right} is too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_eval(node.operand, env))
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, env) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _eval(node.test, env) else _eval(node.orelse, env)
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id](*(_eval(a, env) for a in node.args))
    raise ExprError(f"unsupported construct {type(node).__name__}")  # pragma: no cover
