"""Worker side of the compile-aware deadline (judge/worker/deadline.py): tell the
judge when Triton starts and ends compiling a kernel, or benchmarking an
autotuning config, so that this time is not counted against ``solve()``'s
per-call timeout.

Triton 3.4 and later call ``triton.knobs.runtime.jit_cache_hook`` before every
compile and ``jit_post_compile_hook`` after it; older versions call the
``JITFunction.cache_hook`` / ``compiled_hook`` class attributes the same way.
Both are installed before the solution is imported.  A solution that replaces
them only loses the allowance (its calls get the plain per-call timeout); one
that forges events gains nothing past ``--compile-timeout``.
"""

from __future__ import annotations

import threading

from judge.worker import protocol

__all__ = ["install"]


class Reporter:
    """Sends ``progress`` messages on the worker's response pipe."""

    def __init__(self, fd: int):
        self.fd = fd
        self.lock = threading.Lock()  # a compile in another thread must not interleave two messages

    def __call__(self, state: str) -> None:
        with self.lock:
            protocol.send(self.fd, {"op": "progress", "event": "compile", "state": state})


def install(fd: int, gpu: bool) -> bool:
    """Hook Triton's compiles (and, on a GPU, the autotuner's benchmarks); whether it could."""
    report = Reporter(fd)
    try:
        hooked = _hook_compiles(report)
        if gpu:
            _hook_autotuner(report)
    except Exception:  # noqa: BLE001 - an unknown Triton: calls get the plain timeout
        return False
    return hooked


def _hook_compiles(report: Reporter) -> bool:
    try:
        from triton import knobs

        holder, names = knobs.runtime, ("jit_cache_hook", "jit_post_compile_hook")
        if not all(hasattr(holder, n) for n in names):
            raise AttributeError
    except (ImportError, AttributeError):  # triton < 3.4
        from triton.runtime.jit import JITFunction

        holder, names = JITFunction, ("cache_hook", "compiled_hook")
        if not all(hasattr(holder, n) for n in names):
            return False
    before, after = (getattr(holder, n) for n in names)
    setattr(holder, names[0], _chained(before, lambda: report("start")))
    setattr(holder, names[1], _chained(after, lambda: report("end")))
    return True


def _chained(previous, note):
    """A hook that notes the event, then defers to the hook that was there before.

    The pre-compile hook's result matters (a true value skips the compile), so it is
    the previous hook's, or None.
    """

    def hook(*args, **kwargs):
        note()
        return previous(*args, **kwargs) if previous is not None else None

    return hook


def _hook_autotuner(report: Reporter) -> None:
    """Benchmarking a config of ``@triton.autotune`` is tuning, not the solution's run time."""
    from triton.runtime.autotuner import Autotuner

    bench = Autotuner._bench

    def timed_bench(self, *args, **kwargs):
        report("start")
        try:
            return bench(self, *args, **kwargs)
        finally:
            report("end")

    Autotuner._bench = timed_bench
