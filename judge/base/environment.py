"""The judge's own environment: what a worker imports before any solution code runs, and the error
that says it is missing (an internal error, exit status 3, never a verdict on the solution).

A worker imports torch and triton (and, for Triton's interpreter in CPU mode, numpy) before it loads
the solution.  Where one of them is missing or broken, every run used to end in "the solution's
process exited with status 1 during loading the solution": a runtime error blamed on the user's
file for the judge's own ``import triton``.  Now the judge looks for them before it spawns a worker
(``check_worker_modules``) and a worker that cannot import them says so with its own exit status
(``ENVIRONMENT_STATUS``), which the judge believes only after importing the module itself.
"""

from __future__ import annotations

import importlib.util

__all__ = ["JudgeEnvironmentError", "ENVIRONMENT_STATUS", "ENVIRONMENT_MARK", "worker_modules",
           "check_worker_modules", "install_hint", "environment_message", "first_unimportable"]

ENVIRONMENT_STATUS = 78  # EX_CONFIG (sysexits.h): the worker could not import the judge's own modules
ENVIRONMENT_MARK = "judge-worker-environment:"  # the worker's line before that status: MARK module: error

# pip's names where they differ from the module's; torch's CPU wheel is pinned (an unpinned torch pulls
# gigabytes of CUDA packages on a machine without a GPU: README, "Set up").
_INSTALL = {"torch": "pip install torch==2.13.0  (on a GPU machine: a CUDA build of torch >= 2.4)",
            "yaml": "pip install pyyaml"}


# The only modules a worker's environment claim may name: the judge's own package and what it needs before a
# solution loads (pyproject's dependencies).  Any other name is the solution's to have chosen: a forged claim
# naming a module that exists nowhere was believed, and the grader told to install it (the red team of issue 46).
CLAIMABLE_MODULES = frozenset({"judge", "torch", "triton", "numpy", "yaml", "click", "rich"})


class JudgeEnvironmentError(RuntimeError):
    """The judge cannot judge on this installation (a module of its own is missing or broken): exit 3,
    with what is missing and the command that installs it."""


def worker_modules(interpret: bool) -> tuple[str, ...]:
    """The modules a worker imports before the solution: Triton's interpreter needs numpy."""
    return ("torch", "triton", "numpy") if interpret else ("torch", "triton")


def install_hint(module: str) -> str:
    return _INSTALL.get(module, f"pip install {module}")


def environment_message(module: str, detail: str) -> str:
    return (f"the judge cannot start a solution's worker on this installation: importing {module} fails "
            f"({detail}). That is the judge's own environment, not your solution. Install it: "
            f"{install_hint(module)} (or reinstall the judge: pip install -e . in its checkout); "
            "'judge doctor' checks the whole installation.")


def check_worker_modules(interpret: bool) -> None:
    """Raise ``JudgeEnvironmentError`` if a module a worker imports first is not installed (a look at
    the import path only: microseconds once Python has listed the folders)."""
    for module in worker_modules(interpret):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise JudgeEnvironmentError(environment_message(module, f"No module named {module!r}"))


def first_unimportable(modules=("numpy", "torch", "triton")) -> str | None:
    """Which of ``modules`` first fails to import here, whatever it raises; None if all import."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - whatever a broken installation raises
            return module
    return None
