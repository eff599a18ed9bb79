"""Progress on stderr while solutions are judged (``judge run``, ``watch``, ``rank`` and
``sweep``): live bars when stderr is a terminal; in a log or a pipe, plain lines instead
(a step still running after a few seconds, and for rank each solution as it is judged),
so that a hanging solution does not leave a log silent for a minute.

Both classes implement the runner's events (and the ranker's, RankEvents) by
duck typing, so that importing them does not import torch.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from judge.report.console import make_console

__all__ = ["ProgressEvents", "RankProgress", "StillRunning", "STILL_RUNNING_AFTER_S"]

STILL_RUNNING_AFTER_S = 5.0  # a step that runs longer gets a line, and again at twice, four times... that long


class StillRunning:
    """One thread that writes ``<step>: still running after 5 s`` when the current step (a case, or what
    the status says is under way) has run that long, and again at 10, 20, 40 s...: a log shows a hang."""

    def __init__(self, write: Callable[[str], None], after_s: float | None = None):
        self.write, self.after_s = write, after_s or STILL_RUNNING_AFTER_S
        self.lock, self.wake = threading.Lock(), threading.Event()
        self.step: str | None = None
        self.started = self.due = 0.0
        self.stopped = False
        self.thread = threading.Thread(target=self._run, name="judge-still-running", daemon=True)
        self.thread.start()

    def begin(self, step: str | None) -> None:
        """``step`` is under way from now (None: nothing is)."""
        with self.lock:
            self.step, self.started = step, time.monotonic()
            self.due = self.started + self.after_s
        self.wake.set()

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
        self.wake.set()
        self.thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self.lock:
                if self.stopped:
                    return
                wait = max(0.0, self.due - time.monotonic()) if self.step else None
            self.wake.wait(wait)
            self.wake.clear()
            line = None
            with self.lock:
                now = time.monotonic()
                if self.stopped:
                    return
                if self.step and now >= self.due:
                    elapsed = now - self.started
                    line = f"{self.step}: still running after {elapsed:.0f} s" if elapsed >= 1 else \
                        f"{self.step}: still running after {elapsed:.1f} s"
                    self.due = self.started + 2 * (self.due - self.started)
            if line:
                self.write(line)


def stderr_line(text: str) -> None:
    """One plain line on stderr, now (a log's reader sees it as it happens)."""
    stream = sys.stderr
    stream.write(text + "\n")
    stream.flush()


class ProgressEvents:
    """A live progress line on stderr when stderr is a terminal (``enabled``); else plain lines there
    (StillRunning) when ``log``."""

    def __init__(self, enabled: bool, log: bool | None = None):
        self.enabled = enabled
        self.log = not enabled if log is None else log
        self.progress = None
        self.task = None
        self.still: StillRunning | None = None

    def __enter__(self):
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), console=make_console(sys.stderr), transient=True)
            self.progress.__enter__()
        elif self.log:
            self.still = StillRunning(stderr_line)
        return self

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.__exit__(*exc)
        if self.still is not None:
            self.still.stop()

    def line(self, text: str) -> None:
        """A plain progress line on stderr, in a log only (the live display covers a terminal)."""
        if self.still is not None:
            stderr_line(text)

    def started(self, result, total_cases: int) -> None:
        if self.progress is not None:
            self.task = self.progress.add_task(f"{result.challenge}: seed {result.seed}", total=total_cases)

    def case_started(self, case) -> None:
        self.status(f"case {case.name} ({case.label()})")

    def case_finished(self, result) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task)
        if self.still is not None:
            self.still.begin(None)

    def status(self, text: str) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, description=text)
        if self.still is not None:
            self.still.begin(text)


class RankProgress(ProgressEvents):
    """ProgressEvents with one bar per solution's tests, then one for the timing rounds."""

    def __init__(self, enabled: bool, log: bool | None = None):
        super().__init__(enabled, log)
        self.rounds_task = None
        self.counter = ""  # [2/3]: the solution being judged

    def started(self, result, total_cases: int) -> None:
        if self.progress is not None:
            self.task = self.progress.add_task(f"{result.solution}: tests", total=total_cases)

    def solution_started(self, path: str, index: int, total: int) -> None:
        self.counter = f"[{index + 1}/{total}]"

    def solution_finished(self, result) -> None:
        """In a log: ``[2/3] b.py: WRONG_ANSWER wrong_answer on edge-1 (...): ...``."""
        from judge.judging.failures import headline

        self.line(f"{self.counter} {result.solution}: {result.verdict.value.upper()} "
                  f"{headline(result.message)}".strip())

    def timing_started(self, plan) -> None:
        if self.progress is not None:
            self.rounds_task = self.progress.add_task("timing in rounds", total=plan.budget_s)
        self.line(f"timing the accepted solutions in rounds ({plan.budget_s:g} s)")

    def status(self, text: str) -> None:
        if self.progress is not None and self.rounds_task is not None:
            self.progress.update(self.rounds_task, description=text)
            if self.still is not None:
                self.still.begin(text)
        else:
            super().status(text)

    def round_finished(self, rounds, plan) -> None:
        if self.progress is not None and self.rounds_task is not None:
            self.progress.update(self.rounds_task, completed=min(rounds.elapsed_s, plan.budget_s))
