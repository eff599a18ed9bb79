"""No code of the solution's runs from the draw of a call's inputs until the call itself.

Between the moment the worker draws a call's inputs (from the seed: a YAML spec's generators, a
KernelBench problem's ``get_inputs``; or copies of a LeetGPU folder's shipped inputs) and the moment
``solve()`` starts, code the solution left behind could still run: a garbage collector callback or a
finalizer of its objects (a collection starts on any allocation, and the draw allocates), a Python signal
handler or an interval timer, a profile or trace hook, a torch function or dispatch mode.  There it can see
the fresh inputs and compute the answer outside any timed region, so that ``solve()`` only copies it
(the red team of KernelBench mode did it with a ``gc.callbacks`` function).  The window is closed at every
draw and opened as the call starts:

- ``watch`` (once, just before the solution is imported) records the collector's callbacks, whether the
  collector is on, and the Python signal handlers;
- ``close`` (at each draw) clears the hooks and torch modes (timed_loop.clear_hooks), turns the collector
  off, puts its callbacks and the signal handlers back as recorded and cancels the interval timers;
- ``open`` (right before ``solve()`` is called) turns the collector back on if it was.

What the window cannot hold out is native code the solution loaded (a CUDA C++ library's thread): the
checks after each call name the threads it left running (session.threads_left).
"""

from __future__ import annotations

import gc
import signal

from judge.timer.timed_loop import clear_hooks

__all__ = ["DrawWindow"]

# Bound once: a solution that rebinds gc.enable or signal.signal does not change what the window calls.
_gc_enable, _gc_disable, _gc_isenabled, _gc_callbacks = gc.enable, gc.disable, gc.isenabled, gc.callbacks
_setitimer, _getsignal, _set_handler, _valid_signals = signal.setitimer, signal.getsignal, signal.signal, \
    signal.valid_signals
_TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)


class DrawWindow:
    """The worker's state that code run in the window could use, as it was before the solution loaded."""

    def __init__(self):
        self.gc_was_on = True
        self.callbacks: list = []
        self.handlers: dict = {}
        self.closed = False

    def watch(self) -> None:
        """Record the collector's state and callbacks and the signal handlers: just before the solution loads."""
        self.gc_was_on = _gc_isenabled()
        self.callbacks = list(_gc_callbacks)
        self.handlers = {s: _getsignal(s) for s in _valid_signals() if _getsignal(s) is not None}

    def close(self) -> None:
        """Before a draw: from here until ``open``, nothing the solution registered can run."""
        clear_hooks()
        _gc_disable()
        _gc_callbacks[:] = self.callbacks
        for timer in _TIMERS:
            _setitimer(timer, 0)
        for number, handler in self.handlers.items():
            if _getsignal(number) is not handler:
                try:
                    _set_handler(number, handler)
                except (OSError, ValueError, TypeError):
                    pass
        self.closed = True

    def open(self) -> None:
        """As ``solve()`` is called: the collector as it was (its collections run the solution's finalizers
        inside the call, where their time counts)."""
        if self.closed:
            self.closed = False
            if self.gc_was_on:
                _gc_enable()
