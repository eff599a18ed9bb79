"""SIGTERM and Ctrl-C stop a command through its clean-up, whenever they come.

Python runs a signal handler in the main thread between two bytecodes, wherever that thread is, and
an exception the handler raises (SystemExit for SIGTERM, KeyboardInterrupt for Ctrl-C) appears there.
Some places cannot take it:

* an import, above all a C extension's initialisation that imports modules itself.  torch._C imports
  numpy while it initialises and clears whatever numpy's import raised (libtorch_python's "Failed to
  initialize NumPy"): a SIGTERM taken there vanished and ``judge run`` judged on, to the end or into a
  hanging solve()'s time-out; or it left numpy half-initialised, and torch's next ``import numpy``
  failed ("cannot load module more than once per process": an internal error, exit 3).  A module left
  half-imported breaks the clean-up that imports it again;
* starting a worker: raised between Popen's fork and its return, the child ran on, known to no one
  (``held``);
* the end of the command, where atexit callbacks swallow it, or after them, where it reached the
  interpreter's finalisation (torch's destructors beside a running thread: abort).

So the handler records the signal and raises its exception only inside ``interruptible()`` (the
command; judge/cli/__init__.py), outside ``held()`` sections and outside imports.  Taken elsewhere,
it is raised as soon as it can be: when the outermost import returns into the code that asked for it
(a trace function on that one frame), when the held section ends, or, outside the command, not at all:
the first signal decides the exit status (``status``: 128 + its number), whatever way the command ended.

An import that has not returned ``STUCK_IMPORT_S`` after the signal (torch's takes seconds, 4-5 s after
a signal on a 2-core machine, 11-13 s with other work beside: issue 49 item 9b) is not waited for: a
thread runs the ``on_abandon`` hooks (the CLI's stops the command's workers, their trees killed and
their folders removed) and ends the process with 128 + the signal, as the raised exception would have.
Nothing of the command's own is lost there: it is still importing.
One lost where it was raised (in a ``__del__`` or a callback, which Python reports as unraisable) is
raised again at the main thread's next call.  A second SIGTERM after the first was raised kills at
once, as before; a second Ctrl-C interrupts the clean-up, as Python's own handler does.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from judge.base.trace import mark  # here, not in the timer's thread: never an import beside the main thread's

__all__ = ["install", "interruptible", "held", "received", "status", "is_stop", "on_abandon", "STUCK_IMPORT_S"]

STUCK_IMPORT_S = 0.5  # how long a signal waits for the import in progress before the command is abandoned
_ABANDON_HOOKS: list = []  # what ends the command's processes when it is abandoned (on_abandon)

# The import system's own frames: a signal taken in one waits for the outermost import to return.
_IMPORT_MODULES = frozenset({"importlib._bootstrap", "importlib._bootstrap_external",
                             "_frozen_importlib", "_frozen_importlib_external"})


class _State:
    received: int | None = None  # the first signal taken: the exit status is 128 + it
    pending: int | None = None  # taken, its exception not raised yet
    open = 0  # interruptible() sections the main thread is in
    held = 0  # held() sections the main thread is in
    waiting = None  # the frame a pending signal is raised in once the import it asked for returns
    trace = None  # the trace function that was set before waiting (a debugger's, coverage's)
    raised: BaseException | None = None  # the exception last raised for a signal
    raised_for: int | None = None
    unraisable = None  # sys.unraisablehook before install()
    abandon: threading.Timer | None = None  # armed while a signal waits for an import (_wait_for)


_state = _State()


def install() -> None:
    """Take SIGTERM and Ctrl-C here, where Python's defaults have them (a signal a parent ignores stays
    ignored; a handler someone set stays).  Idempotent; main thread only."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _handler)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _handler)
    if sys.unraisablehook is not _unraisable:
        _state.unraisable = sys.unraisablehook
        sys.unraisablehook = _unraisable


def on_abandon(hook) -> None:
    """Run ``hook()`` (in another thread) before the process ends because the import a signal waits for
    has not returned within STUCK_IMPORT_S; it must import nothing and return quickly."""
    if hook not in _ABANDON_HOOKS:
        _ABANDON_HOOKS.append(hook)


def received() -> int | None:
    """The first signal taken (SIGTERM, SIGINT), or None."""
    return _state.received


def status(code: int) -> int:
    """The exit status of a command that ended with ``code``: 128 + the signal if one was taken."""
    return code if _state.received is None else 128 + _state.received


def is_stop(exc: BaseException) -> bool:
    """Whether ``exc`` is the exception a signal raised: a broad ``except BaseException`` lets it through."""
    return exc is not None and exc is _state.raised


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class interruptible:
    """The command: a signal's exception is raised inside it (one taken before, on entering)."""

    def __enter__(self):
        if _main_thread():
            _state.open += 1
            try:
                _deliver(sys._getframe(1))
            except BaseException:
                _state.open -= 1
                raise
        return self

    def __exit__(self, *exc_info) -> bool:
        if _main_thread():
            _state.open -= 1
            if _state.open == 0:
                _stop_waiting()
        return False


class held:
    """A section a signal must not cut (starting a worker and registering it): its exception is raised
    when the section ends."""

    def __enter__(self):
        if _main_thread():
            _state.held += 1
        return self

    def __exit__(self, *exc_info) -> bool:
        if _main_thread():
            _state.held -= 1
            _deliver(sys._getframe(1))
        return False


def _handler(signum: int, frame) -> None:
    if _state.received is None:
        _state.received = signum
    if _state.pending is None:
        _state.pending = signum
    _deliver(frame)


def _deliver(frame) -> None:
    """Raise the pending signal's exception in ``frame`` if the main thread may take it there; else
    leave it pending (held, outside the command) or wait for the import in progress to return."""
    if _state.pending is None or _state.open == 0 or _state.held > 0:
        return
    outermost = None
    here = frame
    while here is not None:
        if here.f_globals.get("__name__") in _IMPORT_MODULES:
            outermost = here
        here = here.f_back
    if outermost is not None and outermost.f_back is not None:
        _wait_for(outermost.f_back)
        return
    _raise()


def _raise() -> None:
    signum, _state.pending = _state.pending, None
    _stop_waiting()
    if signum == signal.SIGTERM:
        if signal.getsignal(signal.SIGTERM) is _handler:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM kills at once
        exc: BaseException = SystemExit(128 + signum)
    else:
        exc = KeyboardInterrupt()
    _state.raised, _state.raised_for = exc, signum
    raise exc


def _wait_for(frame) -> None:
    """Raise the pending signal's exception at ``frame``'s next event: the import it is in has returned."""
    if _state.waiting is frame:
        return
    if _state.waiting is None:
        _state.trace = sys.gettrace()
    else:
        _state.waiting.f_trace = None
    _state.waiting = frame
    frame.f_trace = _on_event
    frame.f_trace_opcodes = True  # at its next instruction, not its next line
    sys.settrace(_on_call)  # frames' own trace functions run only while one is set
    if _state.abandon is None:
        _state.abandon = threading.Timer(STUCK_IMPORT_S, _abandon_if_stuck, args=(_importing(frame),))
        _state.abandon.daemon = True
        _state.abandon.start()


def _stop_waiting() -> None:
    if _state.abandon is not None:
        _state.abandon.cancel()
        _state.abandon = None
    if _state.waiting is not None:
        _state.waiting.f_trace = None
        _state.waiting = None
        sys.settrace(_state.trace)
        _state.trace = None


def _importing(frame) -> str:
    """``numpy (in judge.judging.runner)``: the module being loaded where the signal came, and the one the
    import called from ``frame`` asked for (importlib's ``name``s), or "?"."""
    here, names = sys._getframe(0), []
    while here is not None and here is not frame:
        if here.f_globals.get("__name__") in _IMPORT_MODULES and isinstance(here.f_locals.get("name"), str):
            names.append(here.f_locals["name"])  # innermost first: the frames are walked inwards-out
        here = here.f_back
    names = list(dict.fromkeys(names))
    return "?" if not names else names[0] if len(names) == 1 else f"{names[0]} (in {names[-1]})"


def _abandon_if_stuck(importing: str) -> None:
    """In a timer's thread: the import the signal waits for has not returned; end the command's processes
    (the hooks) and this process, with the status the raised exception would have given."""
    signum = _state.pending
    if signum is None or _state.waiting is None:
        return  # it returned meanwhile: the exception is raised there
    mark(f"signal {signum}: abandoned the import of {importing}")
    for hook in list(_ABANDON_HOOKS):
        try:
            hook()
        except Exception:  # noqa: BLE001 - the others still run, and the process still ends
            pass
    try:
        if signum == signal.SIGINT:
            print("interrupted", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(128 + signum)


def _on_call(frame, event, arg):
    """The thread's trace function while a signal waits: new frames are not traced (or as before)."""
    return _state.trace(frame, event, arg) if _state.trace is not None else None


def _on_event(frame, event, arg):
    """The waiting frame's trace function: any event there means the import has returned (or raised)."""
    if frame is _state.waiting:
        _stop_waiting()
        _deliver(frame)
    return None


def _unraisable(unraisable) -> None:
    """A signal's exception raised in a ``__del__`` or a callback is lost there: raise it again at the
    main thread's next call."""
    if unraisable.exc_value is not None and unraisable.exc_value is _state.raised:
        _state.raised = None
        if _state.pending is None:
            _state.pending = _state.raised_for
        if _state.waiting is None:
            _state.trace = sys.gettrace()
            sys.settrace(_retry)
        return
    (_state.unraisable or sys.__unraisablehook__)(unraisable)


def _retry(frame, event, arg):
    sys.settrace(_state.trace)
    _state.trace = None
    _deliver(frame)
    return None
