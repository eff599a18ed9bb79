"""Loading a solution file in the worker: import it, find ``solve``, check that
it can take the challenge's arguments, and format errors for the user.

Runs only inside the worker process.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import inspect
import sys
import traceback
from pathlib import Path

from judge.base.text import bounded

__all__ = ["SubmissionError", "load_solve", "load_module", "format_error", "patch_autotuner_for_interpreter"]


class SubmissionError(Exception):
    """The file cannot be judged at all (syntax/import error, no usable solve)."""


class FreshSourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the file from its text on every load, never from bytecode: a cached
    ``.pyc`` is checked only by the file's size and whole-second time stamp, so an
    edit saved in the same second at the same size (``judge watch``) would be missed."""

    def get_code(self, fullname):
        return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)


def load_solve(path: str, arity: int, parameter_names: list[str]):
    """Import the solution file as module ``solution`` and return its ``solve``."""
    file = Path(path).resolve()
    module = load_module(path)
    solve = getattr(module, "solve", None)
    if solve is None:
        raise SubmissionError(f"{file.name} defines no function named 'solve'; "
                              f"expected solve({', '.join(parameter_names)})")
    _check_callable(solve, arity, parameter_names)
    return solve


def load_module(path: str):
    """Import the solution file as module ``solution`` (its folder first on sys.path); raises SubmissionError."""
    file = Path(path).resolve()
    sys.path.insert(0, str(file.parent))  # so a solution can import its own helpers
    module_spec = importlib.util.spec_from_file_location("solution", file, loader=FreshSourceLoader("solution", str(file)))
    if module_spec is None or module_spec.loader is None:
        raise SubmissionError(f"cannot import {file.name}: not a Python source file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules["solution"] = module
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise SubmissionError(f"syntax error in {Path(exc.filename or file).name}, line {exc.lineno}: "
                              f"{exc.msg}\n{(exc.text or '').rstrip()}") from None
    except BaseException as exc:  # noqa: BLE001 - any failure while importing is the submission's
        raise SubmissionError("importing the solution failed:\n" + format_error(exc, str(file))) from None
    return module


def _check_callable(solve, arity: int, parameter_names: list[str]) -> None:
    expected = f"solve({', '.join(parameter_names)})"
    if type(solve).__name__ in ("JITFunction", "Autotuner", "Heuristics"):
        raise SubmissionError(f"'solve' is a Triton kernel (@triton.jit); it must be a plain Python "
                              f"function {expected} that launches your kernels")
    if not callable(solve):
        raise SubmissionError(f"'solve' is a {type(solve).__name__}, not a function; expected {expected}")
    try:
        signature = inspect.signature(solve)
    except (TypeError, ValueError):
        return  # a builtin or C callable: let the call itself decide
    try:
        signature.bind(*range(arity))
    except TypeError as exc:
        raise SubmissionError(f"solve{signature} cannot take the challenge's {arity} arguments "
                              f"{expected}: {exc}") from None


def format_error(exc: BaseException, solution_path: str, limit: int = 6) -> str:
    """The exception, with the traceback cut down to the solution's own frames.

    Frames from the judge, torch and triton are noise to the user; when none
    of the frames is in the solution's file, the last few frames are kept.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    solution = str(Path(solution_path).resolve())
    own = [f for f in frames if str(Path(f.filename).resolve()) == solution] or frames[-2:]
    lines = [bounded(line, 1000) for line in traceback.format_list(own[-limit:])]  # linecache is the solution's
    message = bounded("".join(traceback.format_exception_only(type(exc), exc)).rstrip(), 4000)
    return bounded(("Traceback (most recent call last, solution frames only):\n" + "".join(lines) + message).rstrip())


def is_compile_error(exc: BaseException) -> bool:
    """Triton compilation errors (and out-of-resources at compile time)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    modules = {cls.__module__ for cls in type(exc).__mro__}
    if "CompilationError" in names or "CompileTimeAssertionFailure" in names:
        return True
    # Under TRITON_INTERPRET=1 the checks the compiler would make (power-of-two
    # aranges, shapes, types) fail while the kernel runs, wrapped in this error.
    if "InterpreterError" in names:
        return True
    return "OutOfResources" in names and any(m.startswith("triton") for m in modules)


def patch_autotuner_for_interpreter() -> None:
    """Make ``@triton.autotune`` usable under TRITON_INTERPRET=1.

    The autotuner benchmarks configs through the GPU driver, which the
    interpreter lacks ("0 active drivers").  In CPU mode timings mean nothing
    anyway, so each tuned kernel runs with its first config (after the
    solution's own pruning), deterministically.
    """
    from triton.runtime import autotuner

    tuner = autotuner.Autotuner
    original_prune = tuner.prune_configs

    def first_config_only(self, *args, **kwargs):
        return list(original_prune(self, *args, **kwargs))[:1]

    tuner.prune_configs = first_config_only
    tuner._bench = lambda self, *args, **kwargs: [0.0, 0.0, 0.0]
