"""Stopping a judgement that runs in a thread: a ``judge grade`` that is interrupted, and
``judge ui``'s Stop button.

The runner is told through its events: ``check`` raises ``Cancelled`` at its next step (a case
starting, a benchmark), and its clean-up stops the worker.  A step can block for a long time
(a ``solve()`` that hangs until its time-out), so ``StopOnCancel`` also kills the judging
thread's workers as soon as the cancel is set: the blocked call fails at once.
"""

from __future__ import annotations

import threading

__all__ = ["Cancelled", "check", "StopOnCancel"]


class Cancelled(BaseException):
    """Stops a running judge.  A BaseException, so that no ``except Exception`` of a
    caller records it as the solution's verdict."""


def check(cancel) -> None:
    """Raise ``Cancelled`` once ``cancel`` (a ``threading.Event``, or anything with ``is_set``) is set."""
    if cancel is not None and cancel.is_set():
        raise Cancelled


class StopOnCancel:
    """Kills the workers of the thread that makes it once ``cancel.is_set()`` (asked every POLL_S), so a
    cancelled judgement does not wait for a blocked call's timeout; ``fired`` says it did."""

    POLL_S = 0.2

    def __init__(self, cancel):
        self.cancel, self.fired = cancel, False
        self.owner, self.finished = threading.get_ident(), threading.Event()
        self.thread = threading.Thread(target=self._watch, name="judge-cancel", daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        from judge.worker.client import kill_workers_of

        while not self.finished.wait(self.POLL_S):
            if self.cancel.is_set():
                self.fired = True
                while not self.finished.wait(self.POLL_S):  # and any worker the runner spawns meanwhile
                    kill_workers_of(self.owner)
                return

    def stop(self) -> None:
        self.finished.set()
        self.thread.join()
