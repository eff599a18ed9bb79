"""When the judge stops waiting for a call: the per-call limit counts the time the
call spends running, not the time Triton spends compiling or autotuning for it.

The worker reports each compile (and each autotuning benchmark) as a pair of
``progress`` messages while the call runs (judge/worker/compile_events.py).
A call may take ``timeout`` seconds plus the compile time those messages
bracket, and never more than ``cap`` seconds in all (``--compile-timeout``):
so a ``solve()`` that hangs in its first call is stopped after about ``timeout``
seconds, not after the compile timeout, and a worker that claims to compile
forever is still stopped at ``cap``.  Pure: the caller passes the clock.
"""

from __future__ import annotations

__all__ = ["CallDeadline"]

# Nested or concurrent compiles (a kernel compiled inside an autotuning run) are
# counted once; more open events than this are a worker talking nonsense.
MAX_OPEN = 64


class CallDeadline:
    """The deadline of one request, moved by the worker's compile events."""

    def __init__(self, started: float, timeout: float, cap: float | None = None):
        self.started, self.timeout = started, timeout
        self.cap = max(timeout, cap) if cap is not None else None
        self.open, self.open_since, self.compile_s = 0, 0.0, 0.0

    def note(self, event: dict, now: float) -> None:
        """A ``progress`` message: ``{"event": "compile", "state": "start" | "end"}``."""
        if self.cap is None or event.get("event") != "compile":
            return
        if event.get("state") == "start" and self.open < MAX_OPEN:
            if self.open == 0:
                self.open_since = now
            self.open += 1
        elif event.get("state") == "end" and self.open > 0:
            self.open -= 1
            if self.open == 0:
                self.compile_s += now - self.open_since

    def compiling_s(self, now: float) -> float:
        """Seconds spent compiling so far, the compile under way included."""
        return self.compile_s + (now - self.open_since if self.open else 0.0)

    def deadline(self) -> float:
        """The monotonic time at which to give up (until the next event moves it)."""
        if self.cap is None:
            return self.started + self.timeout
        hard = self.started + self.cap
        if self.open:
            return hard
        return min(hard, self.started + self.timeout + self.compile_s)

    def explain(self, what: str, now: float) -> str:
        """Why the call was stopped, for the verdict's message."""
        spent = self.compiling_s(now)
        if self.cap is not None and now - self.started >= self.cap - 1e-3:
            return (f"{what} did not finish within {self.cap:g} s (the compile timeout), "
                    f"{spent:.1f} s of it compiling; the worker was killed")
        extra = f" (not counting {spent:.1f} s of compiling)" if spent >= 0.05 else ""
        return f"{what} did not finish within {self.timeout:g} s{extra}; the worker was killed"
