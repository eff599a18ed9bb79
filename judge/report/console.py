"""Rendering a run for people: a table of cases, failure details, benchmarks.

Plain text (no colour, ASCII borders) when the stream is not a terminal or
``NO_COLOR`` is set, so logs and pipes stay readable.
"""

from __future__ import annotations

import os
import sys

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from judge.judging.verdict import Verdict

MARKS = {Verdict.ACCEPTED: ("✓", "green"), Verdict.SKIPPED: ("-", "dim")}
FAIL_MARK = ("✗", "red")
PLAIN_WIDTH = 400


def plain_wanted(stream) -> bool:
    return bool(os.environ.get("NO_COLOR")) or not getattr(stream, "isatty", lambda: False)()


def make_console(stream=None, plain: bool | None = None) -> Console:
    """A console on ``stream`` (stdout by default): rich on a terminal, plain otherwise."""
    stream = stream or sys.stdout
    plain = plain_wanted(stream) if plain is None else plain
    if plain:
        # Logs and pipes have no width: never cut a table to $COLUMNS there.
        return Console(file=stream, no_color=True, highlight=False, emoji=False, soft_wrap=False,
                       force_terminal=False, width=PLAIN_WIDTH)
    return Console(file=stream, highlight=False)


def table_box(console: Console):
    return box.ASCII if console.no_color else box.SIMPLE_HEAVY


def _first_line(text: str, width: int = 70) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def _fmt_ms(value) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 1 else f"{value:.3f}" if value < 100 else f"{value:.1f}"


def render_tests(console: Console, result) -> None:
    # One call per case, compile time included: the benchmark table has the timings.
    unit = "call (ms, interpreter)" if result.mode == "interpret" else "call (ms, incl. JIT)"
    table = Table(box=table_box(console), title=None, show_edge=not console.no_color)
    for header in ("", "case", "sizes", "verdict", unit, "detail"):
        table.add_column(header, no_wrap=header != "detail")
    for case in result.tests:
        mark, style = MARKS.get(case.verdict, FAIL_MARK)
        sizes = ", ".join(f"{k}={v}" for k, v in case.params.items())
        table.add_row(f"[{style}]{mark}[/]", escape(case.name), sizes, f"[{style}]{case.verdict.value}[/]",
                      _fmt_ms(case.time_ms), escape(_first_line(case.message)))
    console.print(table)


def render_failures(console: Console, result) -> None:
    """Full messages of failed cases (the table shows only their first line)."""
    for case in result.tests:
        if case.verdict in (Verdict.ACCEPTED, Verdict.SKIPPED):
            continue
        sizes = ', '.join(f'{k}={v}' for k, v in case.params.items())
        console.print(f"[red]{case.verdict.value}[/] on {escape(case.name)}{f' ({sizes})' if sizes else ''}:")
        console.print(case.message, markup=False, highlight=False)
        console.print()


def render_run(console: Console, result, benchmarks_renderer=None) -> None:
    """The whole report of one run."""
    console.print(f"[bold]{escape(result.challenge)}[/] · {escape(result.solution)} · "
                  f"mode {result.mode} · device {escape(result.device)} · seed {result.seed}")
    if result.tests:
        render_tests(console, result)
        render_failures(console, result)
    if result.benchmarks and benchmarks_renderer is not None:
        benchmarks_renderer(console, result)
    for note in result.notes:
        console.print(f"[dim]note: {escape(note)}[/]")
    style = "green" if result.verdict == Verdict.ACCEPTED else "red"
    console.print(f"[bold {style}]{result.verdict.value.upper()}[/] {escape(_first_line(result.message, 200))}")
    if result.verdict not in (Verdict.ACCEPTED, Verdict.INVALID_SUBMISSION):
        console.print(f"[dim]reproduce with: --seed {result.seed}[/]")
    if result.verdict == Verdict.INVALID_SUBMISSION and result.message:
        console.print(result.message, markup=False, highlight=False)
