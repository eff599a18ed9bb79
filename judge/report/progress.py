"""Live progress bars on stderr while solutions are judged (``judge run``, ``watch``,
``rank`` and ``sweep``), drawn only when stderr is a terminal.

Both classes implement the runner's events (and the ranker's, RankEvents) by
duck typing, so that importing them does not import torch.
"""

from __future__ import annotations

import sys

from judge.report.console import make_console

__all__ = ["ProgressEvents", "RankProgress"]


class ProgressEvents:
    """A live progress line on stderr, only when stderr is a terminal."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.progress = None
        self.task = None

    def __enter__(self):
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), console=make_console(sys.stderr), transient=True)
            self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.__exit__(*exc)

    def started(self, result, total_cases: int) -> None:
        if self.progress is not None:
            self.task = self.progress.add_task(f"{result.challenge}: seed {result.seed}", total=total_cases)

    def case_started(self, case) -> None:
        self.status(f"case {case.name} ({case.label()})")

    def case_finished(self, result) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task)

    def status(self, text: str) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, description=text)


class RankProgress(ProgressEvents):
    """ProgressEvents with one bar per solution's tests, then one for the timing rounds."""

    def __init__(self, enabled: bool):
        super().__init__(enabled)
        self.rounds_task = None

    def started(self, result, total_cases: int) -> None:
        if self.progress is not None:
            self.task = self.progress.add_task(f"{result.solution}: tests", total=total_cases)

    def solution_started(self, path: str, index: int, total: int) -> None: ...
    def solution_finished(self, result) -> None: ...

    def timing_started(self, plan) -> None:
        if self.progress is not None:
            self.rounds_task = self.progress.add_task("timing in rounds", total=plan.budget_s)

    def status(self, text: str) -> None:
        if self.progress is not None and self.rounds_task is not None:
            self.progress.update(self.rounds_task, description=text)
        else:
            super().status(text)

    def round_finished(self, rounds, plan) -> None:
        if self.progress is not None and self.rounds_task is not None:
            self.progress.update(self.rounds_task, completed=min(rounds.elapsed_s, plan.budget_s))
