"""Worker side of the rule against torch-only answers (``--require-kernel``, docs/security.md): count the
launches of the solution's own kernels in each call, for the judge to decide on.

Every launch of a Triton kernel goes through ``run`` of its kernel object: ``kernel[grid](...)`` calls it,
an autotuner's or heuristics' ``run`` calls the wrapped kernel's, and a kernel found in Triton's cache is
launched by it as well (a compile hook would miss it: compile_events.py).  So ``install`` wraps ``run`` of
``JITFunction`` (GPU) and of the interpreter's ``InterpretedFunction`` (CPU mode), in Triton 3.x alike,
before the solution loads.  A launch counts when the kernel's Python function lives in the solution's
folder (its file or the helpers beside it), not in the judge or in a library; a warm-up (``warmup=True``)
compiles only and does not count.  A CUDA C++ solution's launcher will call ``LAUNCHES.note()`` itself.

This is a rule for honest solutions, not a defence: code in the worker can call ``note`` or launch one
trivial kernel of its own and do the work in torch (the rule says a kernel ran, not that it did the work).
"""

from __future__ import annotations

import os

__all__ = ["LaunchCount", "LAUNCHES", "install"]


class LaunchCount:
    """Launches of the solution's own kernels since the last ``reset``."""

    def __init__(self):
        self.count = 0
        self.folder = ""  # the solution's folder, with a separator at the end
        self.own: dict[int, bool] = {}  # id(kernel function) -> defined in the solution's folder

    def reset(self) -> None:
        self.count = 0

    def note(self) -> None:
        """One launch of a kernel of the solution's own."""
        self.count += 1

    def launched(self, kernel) -> None:
        """``kernel`` (a JITFunction or InterpretedFunction) is being launched."""
        fn = getattr(kernel, "fn", None)
        key = id(fn)
        own = self.own.get(key)
        if own is None:
            path = getattr(getattr(fn, "__code__", None), "co_filename", "") or ""
            own = self.own[key] = bool(self.folder) and os.path.realpath(path).startswith(self.folder)
        if own:
            self.count += 1


LAUNCHES = LaunchCount()


def install(solution: str) -> bool:
    """Count the launches of kernels defined under ``solution``'s folder; whether Triton could be hooked."""
    LAUNCHES.folder = os.path.join(os.path.realpath(os.path.dirname(solution)), "")
    hooked = False
    for module, name in (("triton.runtime.jit", "JITFunction"), ("triton.runtime.interpreter", "InterpretedFunction")):
        try:
            owner = getattr(__import__(module, fromlist=[name]), name)
        except (ImportError, AttributeError):
            continue
        run = owner.__dict__.get("run")
        if run is None or getattr(run, "_judge_counts_launches", False):
            continue
        owner.run = _counted(run)
        hooked = True
    return hooked


def _counted(run):
    def counted_run(self, *args, **kwargs):
        result = run(self, *args, **kwargs)
        if not kwargs.get("warmup", False):  # counted once it has launched: a launch that raised ran nothing
            LAUNCHES.launched(self)
        return result

    counted_run._judge_counts_launches = True
    counted_run.__wrapped__ = run
    return counted_run
