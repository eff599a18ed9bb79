"""No code of the solution's runs while the solution is not being called.

From the end of one call until the next ``solve()`` starts, the worker receives the next request (its seed
and sizes), draws the call's inputs (a YAML spec's generators, a KernelBench problem's ``get_inputs``) or
copies the inputs the judge shipped (a LeetGPU folder), and checks and sends the last call's outputs.
Code the solution left behind that runs there can see the fresh inputs and compute the answer outside any
timed region (``solve()`` then only copies it), or finish the outputs after the clock stopped.  The red
teams of 2026-11-28 ran code there through: a garbage-collector callback; a finalizer (``weakref.finalize``,
a ``__del__``) on an object the judge dropped during a draw; a signal handler and an interval timer; an
audit hook (``sys.addaudithook``: it cannot be removed); a patched ``torch.Tensor`` method the draw calls; a
tensor of the judge's whose class or attributes the solution changed; a thread invisible to ``threading``.
So the window is closed whenever the solution is not being called:

- ``watch`` (once, just before the solution is imported) records the collector's state and callbacks, the
  Python signal handlers and the callables of torch's namespaces and the builtins, and installs an audit
  hook that refuses any later one (a hook that raises stops ``sys.addaudithook``);
- ``close`` (after the import, after every call, before every draw) clears profile and trace hooks and
  torch modes (timed_loop.clear_hooks), turns the collector off, puts its callbacks, the signal handlers
  and torch's callables back as recorded (what it had to put back is a problem the next check reports)
  and cancels the interval timers;
- ``open`` (as ``solve()`` is called) turns the collector back on if it was on: the finalizers of the
  solution's own garbage run inside the call, where their time counts.

The session does the rest (judge/worker/session.py): it drops the previous call's tensors, their
attributes and their class put back, before the window closes for a draw, so no finalizer of theirs
runs in one, and it names threads of the solution's that ``threading`` does not list.  Python code of
the solution's can still rewrite the worker's own state; docs/security.md says what that leaves.
"""

from __future__ import annotations

import builtins
import gc
import signal
import sys
from operator import is_, itemgetter

import torch

from judge.timer.timed_loop import clear_hooks

__all__ = ["DrawWindow", "WATCHED"]

# Bound once: a solution that rebinds gc.enable or signal.signal does not change what the window calls.
_gc_enable, _gc_disable, _gc_isenabled, _gc_callbacks = gc.enable, gc.disable, gc.isenabled, gc.callbacks
_setitimer, _getsignal, _set_handler, _valid_signals = signal.setitimer, signal.getsignal, signal.signal, \
    signal.valid_signals
_TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
_all, _map, _vars, _setattr = all, map, vars, setattr
# Where torch keeps the functions the judge's draws and checks call (torch.rand, Tensor.copy_, F.pad, ...).
WATCHED = (torch, torch.Tensor, torch.nn.functional, torch.random, torch.nn.init, builtins)


# What torch itself replaces later (torch._dynamo, imported by a solution's torch.compile, wraps torch.manual_seed):
# not watched; the judge's code calls the original, bound before the solution loads (kernelbench_model.py).
_REWRAPPED = {(torch, "manual_seed")}


class _Callables:
    """The callables of the watched modules, and every entry of the watched classes (a property set on
    ``torch.Tensor``, say ``shape``, runs code as the draw reads it), as they were; ``changed`` puts back those
    that differ, takes away entries added to a class since (``torch.Tensor.copy_`` set by the solution shadows
    the C method the draw calls), and names them.  About 40 µs for torch's 1700 (a C-level comparison per
    namespace, names only when one differs)."""

    def __init__(self, owners):
        self.groups = []
        for owner in owners:
            names = [name for name, value in list(_vars(owner).items())
                     if (isinstance(owner, type) or callable(value)) and (owner, name) not in _REWRAPPED]
            self.groups.append([owner, names, itemgetter(*names), itemgetter(*names)(_vars(owner)),
                                len(_vars(owner))])

    def changed(self) -> list[str]:
        found = []
        for group in self.groups:
            owner, names, read, values, size = group
            try:
                if len(_vars(owner)) == size and _all(_map(is_, read(_vars(owner)), values)):
                    continue
            except KeyError:  # one was deleted
                pass
            found += self._put_back(owner, names, values)
            group[4] = len(_vars(owner))  # what is left added is no callable (a submodule torch imported lazily)
        return found

    @staticmethod
    def _put_back(owner, names: list, values: tuple) -> list[str]:
        found, kept = [], set(names)
        label = getattr(owner, "__name__", str(owner))
        for name, value in zip(names, values):
            if _vars(owner).get(name) is not value:
                found.append(f"{label}.{name}")
                _setattr(owner, name, value)
        if isinstance(owner, type):
            for name in [name for name in list(_vars(owner)) if name not in kept]:
                found.append(f"{label}.{name}")
                delattr(owner, name)
        return found


def _refuse_aten_kernels(register):
    """torch's C dispatcher takes Python kernels for its own operators (``torch.library.Library("aten",
    "IMPL")``): one on ``aten::copy_`` ran inside the draw, one on ``aten::detach`` wrote the outputs as the
    judge read them back (the red team, round 2), and no Python callable changes.  The worker refuses every
    library of the solution's on the ``aten`` namespace (torch registers its own at import, before this; its
    opt-in ones, jiterator and the FA3/FA4 switches, are refused too); other namespaces (a custom op, the
    ``prims`` torch.compile defines) are left alone."""

    def library(kind, ns, *rest):
        if ns == "aten":
            raise RuntimeError(f"the judge's worker takes no kernel of the solution's for torch's own operators "
                               f"(torch.library.Library({ns!r}, {kind!r})): the judge's code calls them between "
                               "the calls")
        return register(kind, ns, *rest)

    return library


def _refuse_audit_hooks(refused: list):
    """The worker's one audit hook: it refuses every later one (and counts them)."""

    def hook(event, args):
        if event == "sys.addaudithook":
            refused.append(1)
            raise RuntimeError("the judge's worker takes no audit hook")

    return hook


class DrawWindow:
    """The worker's state that code run outside a call could use, as it was before the solution loaded."""

    def __init__(self):
        self.gc_was_on = True
        self.callbacks: list = []
        self.handlers: dict = {}
        self.callables: _Callables | None = None
        self.refused: list = []  # audit hooks refused (sys.addaudithook)
        self.problems: list[str] = []  # what close() put back, for the next call's check
        self.closed = False

    def watch(self) -> None:
        """Record what ``close`` puts back and refuse audit hooks: just before the solution loads."""
        self.gc_was_on = _gc_isenabled()
        self.callbacks = list(_gc_callbacks)
        self.handlers = {s: _getsignal(s) for s in _valid_signals() if _getsignal(s) is not None}
        self.callables = _Callables(WATCHED)
        sys.addaudithook(_refuse_audit_hooks(self.refused))
        torch._C._dispatch_library = _refuse_aten_kernels(torch._C._dispatch_library)

    def close(self) -> None:
        """From here until ``open``, nothing the solution registered can run."""
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
        changed = self.callables.changed() if self.callables is not None else []
        if changed:
            self.problems.append(
                f"the solution changed {', '.join(changed[:6])}{' ...' if len(changed) > 6 else ''}, which the "
                "judge's own code calls between the calls (drawing the inputs, checking the outputs): the calls' "
                "inputs and results cannot be trusted (put back as they were)")
        self.closed = True

    def open(self) -> None:
        """As ``solve()`` is called: the collector as it was."""
        if self.closed:
            self.closed = False
            if self.gc_was_on:
                _gc_enable()

    def take_problems(self) -> list[str]:
        """What the solution did that ``close`` undid, and the audit hooks refused, once each."""
        problems, self.problems = self.problems, []
        if self.refused:
            problems.append(f"the solution tried to add an audit hook (sys.addaudithook, {len(self.refused)} "
                            "time(s)): it would run inside the judge's own code between the calls; the worker "
                            "refuses them")
            self.refused.clear()
        return problems
