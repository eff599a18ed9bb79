"""What ``judge watch`` shows of each judgement: on a terminal the screen holds the latest
only; in a log or a pipe, one block per judgement; with --json, one JSON document per line."""

from __future__ import annotations

import json
import sys
import time
from typing import Callable

from rich.markup import escape

from judge.report.console import make_console, plain_wanted

__all__ = ["WatchOutput"]


class WatchOutput:
    """Shows each judgement; ``echo`` (click.echo's signature: ``err=True`` for stderr)
    prints the JSON lines and the problems with the file."""

    def __init__(self, as_json: bool, solution: str, backend: str, echo: Callable[..., None], max_failures: int = 3):
        self.as_json, self.solution, self.backend, self.echo = as_json, solution, backend, echo
        self.max_failures = max_failures  # distinct failures shown in full (console.render_failures)
        self.console = make_console()
        self.terminal = not as_json and not plain_wanted(sys.stdout)

    def show(self, result, count: int, changes: list[str]) -> None:
        """Judgement ``count``'s result and what changed since the previous one."""
        if self.as_json:
            doc = dict(result.as_dict(), watch={"judgement": count, "changes": changes})
            from judge.report.json_export import run_to_json

            self.echo(json.dumps(json.loads(run_to_json(doc)), separators=(",", ":")))
            return
        from judge.report.benchmark_table import render_benchmarks
        from judge.report.console import render_run

        if self.terminal:
            self.console.clear()
        self.console.rule(f"judgement {count} · {time.strftime('%H:%M:%S')}", style="dim")
        render_run(self.console, result, render_benchmarks, self.max_failures)
        if changes:
            self.console.print("[bold]since the previous judgement:[/]")
            for line in changes:
                style = "bold" if line.startswith("verdict:") else ""
                self.console.print(f"  [{style}]{escape(line)}[/]" if style else f"  {escape(line)}")
        self.waiting()

    def waiting(self) -> None:
        if not self.as_json:
            self.console.print(f"[dim]watching {escape(self.solution)} ({self.backend}); "
                               "save it to judge again, Ctrl-C to stop[/]")

    def problem(self, message: str) -> None:
        """The file cannot be judged as it is now (deleted, not a source file...): say so and wait."""
        self.echo(f"Error: {message}", err=True)
        self.waiting()
