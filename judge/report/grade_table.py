"""What ``judge grade`` shows on its console: the opening line, the start order, one line per
graded submission, the final table with where the time went, and the pass/fail line.

Lines are returned as rich markup for the caller's console; the table is
printed on the console given.  Works on the grade document's plain dicts
(judge/grading/records.py), so nothing here imports the grading code.
"""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from judge.report.console import table_box

__all__ = ["start_line", "order_line", "progress_line", "interrupted_line", "render_table", "timing_lines",
           "summary_line", "kernelbench_lines"]

ORDER_SHOWN = 3  # entries the order line names before "…"


def _first_line(message: str | None) -> str:
    return (message or "").strip().split("\n")[0]


def start_line(count: int, interpret: bool, seed_label: str, where: str) -> str:
    """What is graded, in which mode, with which seed and where (``where``: plain text)."""
    return (f"grading {count} submission(s) · {'CPU (Triton interpreter)' if interpret else 'GPU'}"
            f" · seed {escape(seed_label)} · {escape(where)}")


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


def order_line(schedule: dict | None, shown: int = ORDER_SHOWN) -> str | None:
    """The start order (the document's ``schedule``) on one line: the first ``shown`` entries to judge with
    their expected time and its source, then how many more; None with fewer than two to judge (no order to
    tell).  Entries that are not judged (``problem``) are left out: they take no time."""
    judged = [e for e in (schedule or {}).get("order", []) if e.get("expected_from") != "problem"]
    if len(judged) < 2:
        return None
    named = ", ".join(f"{n}. {escape(e['submission'])} · {escape(e['challenge'])} "
                      f"(~{_seconds(e['expected_s'])}, {e['expected_from']})"
                      for n, e in enumerate(judged[:shown], 1))
    more = f", … {len(judged) - shown} more" if len(judged) > shown else ""
    return f"order: {escape(schedule['by'])} — {named}{more}"


def progress_line(record: dict, counter: str) -> str:
    """One submission's record as it is graded (or carried over): verdict, the first line of
    its message, its time and where it ran."""
    style = "green" if record["verdict"] == "accepted" else "red"
    where = f", GPU {record['gpu']}" if record.get("gpu") is not None else ""
    where += f", worker {record['worker']}" if record.get("worker") else ""
    tail = "carried over" if record.get("carried_over") else f"{record.get('wall_s', 0):.1f} s{where}"
    message = "" if record["verdict"] == "accepted" else " " + _first_line(record.get("message"))
    return (f"{escape(counter)} {escape(record['submission'])} · {escape(record['challenge'])}: "
            f"[{style}]{record['verdict'].upper()}[/]{escape(message)} ({tail})")


def interrupted_line(graded: int, total: int) -> str:
    return (f"[yellow]interrupted: {graded} of {total} graded; "
            "the outputs hold them, and --resume carries on[/]")


def render_table(console, doc: dict) -> None:
    """The grade's results, one row per submission: verdict, tests passed, the message's first line; then
    where this run's time went (``timing_lines``), when it judged anything."""
    table = Table(box=table_box(console), show_edge=not console.no_color)
    for header in ("submission", "challenge", "verdict", "tests", "details"):
        table.add_column(header, no_wrap=header != "details")
    for r in doc["results"]:
        ran = [t for t in r.get("tests", []) if t.get("verdict") != "skipped"]
        tests = f"{sum(t.get('verdict') == 'accepted' for t in ran)}/{len(ran)}" if ran else "-"
        detail = "" if r["verdict"] == "accepted" else _first_line(r.get("message"))[:120]
        style = "green" if r["verdict"] == "accepted" else "red"
        table.add_row(escape(r["submission"]), escape(r["challenge"]), f"[{style}]{r['verdict']}[/]", tests,
                      escape(detail))
    console.print(table)
    for line in timing_lines(doc.get("timing")):
        console.print(line, markup=False, highlight=False)


def timing_lines(timing: dict | None) -> list[str]:
    """The document's ``timing`` as plain lines: the wall time, the critical path (the longest judgement),
    the ideal time for this many slots and the efficiency, the start-up; then each slot's busy and idle time."""
    if not timing:
        return []
    slots, kind = timing["slots"], timing.get("slot_kind", "slot")
    path = timing["critical_path"]
    lines = [f"time: {timing['wall_s']:.1f} s wall · critical path {path['wall_s']:.1f} s ({path['name']}) · "
             f"ideal for {slots} {kind}{'' if slots == 1 else 's'} {timing['ideal_s']:.1f} s · "
             f"efficiency {timing['efficiency'] * 100:.0f} % · start-up {timing['startup_s']:.1f} s"]
    for worker in timing["workers"]:
        tasks = worker["tasks"]
        lines.append(f"  {worker['name']}: busy {worker['busy_s']:.1f} s, idle {worker['idle_s']:.1f} s "
                     f"({tasks} task{'' if tasks == 1 else 's'})")
    return lines


def kernelbench_lines(doc: dict) -> list[str]:
    """KernelBench's scores per submission (the document's ``kernelbench``: grading/fast_p.py) as plain lines:
    fast_0, fast_1, fast_2 and the geometric mean speed-up over torch eager; [] when no entry is a problem."""
    scores = doc.get("kernelbench")
    if not scores:
        return []
    lines = []
    for who, s in scores["submissions"].items():
        fast = " · ".join(f"fast_{p:g} {_share(s.get(f'fast_{p:g}'))}" for p in scores["p"])
        mean = s.get("geomean_speedup")
        speed = (f" · geometric mean speed-up {mean:.2f}x over torch (of {s['timed']} timed)" if mean is not None
                 else " · no speed-ups (nothing timed: CPU mode, or no correct solution)")
        lines.append(f"KernelBench {who}: {s['correct']} of {s['problems']} problems correct · {fast}{speed}")
    return lines


def _share(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def summary_line(doc: dict, ok: bool, rule_note: str) -> str:
    """The last line: how many were accepted, the pass rule's note (``rule_note``), PASS or FAIL, the seed."""
    summary = doc["summary"]
    style = "green" if ok else "red"
    unsealed = sum(1 for r in doc.get("results", []) if r.get("sealed") is False)
    warning = f"  [bold yellow]UNSEALED: {unsealed} submission(s) ran without the whole sandbox[/]" if unsealed else ""
    return (f"[bold {style}]{summary['accepted']} of {summary['total']} accepted{rule_note}: "
            f"{'PASS' if ok else 'FAIL'}[/]  seed {escape(doc['seed']['label'])}{warning}")
