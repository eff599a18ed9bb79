"""What a solution file must be before anything is judged: a readable source file in a
language the judge runs (judge/base/languages.py: Python, CUDA C++).

Shared by every command that takes solution files (the CLI turns the error
into a usage error, exit 2) and by ``judge grade``, where a listed file that
fails the check is graded invalid_submission rather than stopping the grade.
"""

from __future__ import annotations

from pathlib import Path

from judge.base.languages import unsupported_language
from judge.base.suggest import closest

__all__ = ["MAX_SOLUTION_BYTES", "SolutionFileError", "check_solution_file", "source_problem", "too_large"]

MAX_SOLUTION_BYTES = 2_000_000


class SolutionFileError(ValueError):
    """A path that is no solution file; the message says why."""


def check_solution_file(path: str) -> str:
    """``path`` as a string when it is a readable source file of a supported language, else SolutionFileError."""
    p = Path(path)
    if not p.exists():
        raise SolutionFileError(f"solution file not found: {path}{_near(p)}")
    if p.is_dir():
        raise SolutionFileError(f"{path} is a directory; give the solution's .py or .cu file")
    if not p.is_file():
        raise SolutionFileError(f"{path} is not a regular file")
    if p.stat().st_size > MAX_SOLUTION_BYTES:
        raise SolutionFileError(too_large(path))
    problem = source_problem(path, p.read_bytes())
    if problem:
        raise SolutionFileError(problem)
    return str(p)


def _near(path: Path) -> str:
    """`` (did you mean dir/19_ReLU.py?)`` for a file its folder holds under a name close to ``path``'s."""
    if not path.parent.is_dir():
        return ""
    found = closest(path.name, [p.name for p in path.parent.iterdir() if p.is_file()])
    return f" (did you mean {path.parent / found}?)" if found else ""


def too_large(path: str) -> str:
    return f"{path} is larger than {MAX_SOLUTION_BYTES // 1_000_000} MB; is it a solution?"


def source_problem(path: str, data: bytes) -> str:
    """Why ``data``, read from ``path``, is no solution source ("" when it is one): too large, binary, not
    UTF-8, or a language the judge does not run.  judge grade's snapshots check their bytes with it too."""
    if len(data) > MAX_SOLUTION_BYTES:
        return too_large(path)
    if b"\0" in data:
        return f"{path} is a binary file, not source code"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"{path} is not UTF-8 text"
    return unsupported_language(path, text) or ""
