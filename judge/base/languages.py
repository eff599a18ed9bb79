"""Which language a solution file is written in, from its name and, for Python, its imports.

The judge runs Triton and PyTorch solutions (``.py``) and CUDA C++ ones (``.cu``).
LeetGPU also ships starters in CuTe DSL (``starter.cute.py``), JAX
(``starter.jax.py``) and Mojo (``starter.mojo``): those get a clear "not
supported yet" before anything runs, not an import error from the worker.
"""

from __future__ import annotations

import ast

__all__ = ["SUPPORTED", "SOLUTION_SUFFIXES", "is_cuda_source", "unsupported_language"]

SUPPORTED = "Triton and PyTorch (.py) and CUDA C++ (.cu)"
SOLUTION_SUFFIXES = (".py", ".cu")  # what a submission folder's solution files end with
_CUDA_SUFFIXES = (".cu",)
_UNSUPPORTED_SUFFIXES = {".mojo": "Mojo", ".🔥": "Mojo", ".cpp": "C++ without CUDA (use .cu)",
                         ".cuh": "a CUDA header",
                         ".jl": "Julia", ".rs": "Rust"}
# Top-level packages whose solutions the judge cannot run yet.
_UNSUPPORTED_IMPORTS = {"jax": "JAX", "cutlass": "CuTe DSL (cutlass.cute)", "tilelang": "TileLang",
                        "thunderkittens": "ThunderKittens"}
# KernelBench's ThunderKittens solutions build with load_inline from sources that include its header.
_UNSUPPORTED_TEXT = {"kittens.cuh": "ThunderKittens (kittens.cuh)"}


def is_cuda_source(path: str) -> bool:
    return str(path).lower().endswith(_CUDA_SUFFIXES)


def unsupported_language(path: str, text: str) -> str | None:
    """Why the judge cannot run this file yet, or None: a language it does not support, named."""
    lowered = str(path).lower()
    for suffix, language in _UNSUPPORTED_SUFFIXES.items():
        if lowered.endswith(suffix):
            return f"{path} is {language}: not supported yet; the judge runs {SUPPORTED} solutions"
    if lowered.endswith(_CUDA_SUFFIXES):
        return None
    language = _imported_language(text) or next((name for mark, name in _UNSUPPORTED_TEXT.items() if mark in text),
                                                None)
    if language:
        return f"{path} imports {language}: not supported yet; the judge runs {SUPPORTED} solutions"
    return None


def _imported_language(text: str) -> str | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None  # the worker reports the syntax error with its line
    for node in ast.walk(tree):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
        for name in names:
            root = name.split(".")[0]
            if root in _UNSUPPORTED_IMPORTS:
                return _UNSUPPORTED_IMPORTS[root]
    return None
