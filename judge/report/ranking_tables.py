"""Rendering ``judge rank``, ``judge sweep`` and ``judge leaderboard`` for people.

Everything works on the plain dicts that ``--json`` prints (RankResult.as_dict
and friends), so what is shown and what is exported cannot drift apart.
Exporters return strings; the caller writes them.
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from judge.report.console import table_box
from judge.report.json_export import SCHEMA_VERSION, _clean

__all__ = ["render_rank", "render_sweep", "render_leaderboard", "render_history", "document_to_json",
           "short_names", "format_rate"]


def document_to_json(body: dict) -> str:
    """A ``--json`` document (a string; the caller decides where it goes)."""
    return json.dumps(_clean({"schema": SCHEMA_VERSION, **body}), indent=2)


def short_names(paths: list[str]) -> dict[str, str]:
    """File names where they are unique, the paths as given otherwise (tables stay narrow)."""
    names = [Path(p).name for p in paths]
    return {p: (n if names.count(n) == 1 else p) for p, n in zip(paths, names)}


def _time(ms: float | None) -> str:
    from judge.report.benchmark_table import format_time

    return format_time(ms)


def _interval(median, low, high) -> str:
    from judge.report.benchmark_table import format_interval

    if median is None:
        return "-"
    return format_interval(median, low, high)


def format_rate(value: float, spread: float | None = None) -> str:
    """Three significant digits or more: ``4026``, ``13.1``, ``0.52``; ``± spread`` at the same precision."""
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 1 else 2
    text = f"{value:.{digits}f}"
    return text if spread is None else f"{text} ± {spread:.{digits}f}"


def _rate(case: dict, bound: str) -> str:
    if bound == "compute" and case.get("tflops") is not None:
        return f"{format_rate(case['tflops'])} TFLOP/s"
    if case.get("gbps") is not None:
        return f"{format_rate(case['gbps'])} GB/s"
    return ""


def _header(console, doc: dict, what: str) -> None:
    console.print(f"[bold]{escape(doc['challenge'])}[/] · {what} · mode {doc['mode']} · "
                  f"device {escape(str(doc['device']))} · seed {doc['seed']}")


# -- rank ----------------------------------------------------------------------
def render_rank(console, doc: dict) -> None:
    """The whole report of a ranking."""
    names = short_names([s["solution"] for s in doc["ranking"]])
    _header(console, doc, f"{len(doc['ranking'])} solution(s)")
    accepted = [s for s in doc["ranking"] if s["rank"] is not None]
    if doc["timed"] and accepted:
        _timed_table(console, doc, accepted, names)
    elif accepted:
        _untimed_table(console, doc, accepted, names)
    rejected = [s for s in doc["ranking"] if s["rank"] is None]
    if rejected:
        _rejected_table(console, doc, rejected, names)
    _case_notes(console, doc, names)
    for note in doc["notes"]:
        style = "bold yellow" if note.startswith("CPU mode") else "dim"
        console.print(f"[{style}]note: {escape(note)}[/]")
    ok = len(accepted)
    style = "green" if ok == len(doc["ranking"]) else "red"
    console.print(f"[bold {style}]{ok} of {len(doc['ranking'])} solution(s) accepted[/]")


def _method_title(doc: dict) -> str:
    m = doc["method"]
    return (f"ranked by the geometric mean over {len(doc['cases'])} benchmark case(s) of median GPU times "
            f"(95% CI); {m['rounds']} interleaved rounds, stopped: {m['stop_reason']}")


def _timed_table(console, doc: dict, accepted: list, names: dict) -> None:
    table = Table(box=table_box(console), title=_method_title(doc), show_edge=not console.no_color)
    for header in ("rank", "solution", "score (geo-mean ± CI)", "vs best", "tied with"):
        table.add_column(header, no_wrap=True)
    for case in doc["cases"]:
        table.add_column(case["name"], no_wrap=True)
    for s in accepted:
        lo, hi = s["score_ci_ms"]
        tied = ", ".join(names.get(t, t) for t in s["tied_with"]) or "-"
        cells = [_case_cell(c, doc["bound"]) for c in s["cases"]]
        table.add_row(str(s["rank"]), escape(names[s["solution"]]), _interval(s["score_ms"], lo, hi),
                      s["vs_best"], escape(tied), *cells)
    for ref in doc["references"]:
        lo, hi = ref["score_ci_ms"]
        cells = [_interval(c["median_ms"], c["ci_low_ms"], c["ci_high_ms"]) for c in ref["cases"]]
        table.add_row("[dim]ref[/]", f"[dim]{escape(ref['name'])}[/]", _interval(ref["score_ms"], lo, hi),
                      ref["vs_best"], "", *cells)
    console.print(table)
    for ref in doc["references"]:
        console.print(f"[dim]ref {escape(ref['name'])}: {escape(ref['what'])} (not ranked)[/]")


def _case_cell(case: dict, bound: str) -> str:
    if case.get("verdict", "accepted") != "accepted" or case.get("median_ms") is None:
        return f"[red]{case.get('verdict', '-')}[/]"
    text = _interval(case["median_ms"], case["ci_low_ms"], case["ci_high_ms"])
    rate = _rate(case, bound)
    return f"{text} · {rate}" if rate else text


def _untimed_table(console, doc: dict, accepted: list, names: dict) -> None:
    table = Table(box=table_box(console), title="ranked by correctness only (no GPU timings)",
                  show_edge=not console.no_color)
    for header in ("rank", "solution", "verdict", "tests"):
        table.add_column(header, no_wrap=True)
    tests = {r["solution"]: r["tests"] for r in doc["results"]}
    for s in accepted:
        ran = [t for t in tests.get(s["solution"], []) if t["verdict"] != "skipped"]
        passed = sum(1 for t in ran if t["verdict"] == "accepted")
        table.add_row(str(s["rank"]), escape(names[s["solution"]]), f"[green]{s['verdict']}[/]",
                      f"{passed}/{len(ran)} passed")
    console.print(table)


def _rejected_table(console, doc: dict, rejected: list, names: dict) -> None:
    table = Table(box=table_box(console), title="rejected (not ranked)", show_edge=not console.no_color)
    for header in ("solution", "verdict", "reason"):
        table.add_column(header, no_wrap=header != "reason")
    for s in rejected:
        table.add_row(escape(names[s["solution"]]), f"[red]{s['verdict']}[/]", escape(s["reason"][:200]))
    console.print(table)
    console.print(f"[dim]details of one: judge run {escape(doc['challenge'])} SOLUTION --seed {doc['seed']}[/]")


def _case_notes(console, doc: dict, names: dict) -> None:
    """Timer and launch-bound warnings of the timed cases, once per solution and case."""
    for s in doc["ranking"]:
        for case in s.get("cases") or []:
            for note in case.get("notes") or []:
                console.print(f"[yellow]{escape(names[s['solution']])} · {escape(case['name'])}: "
                              f"{escape(note)}[/]")


# -- sweep -----------------------------------------------------------------------
def render_sweep(console, doc: dict) -> None:
    """One row per size, one column per solution (and torch): rate or time with its CI."""
    names = short_names([s["name"] for s in doc["series"]])
    _header(console, doc, f"sweep over {len(doc['sizes'])} size(s)")
    unit = {"gbps": "GB/s", "tflops": "TFLOP/s"}.get(doc["metric"], "ms")
    table = Table(box=table_box(console), title=f"median {unit} (95% CI) per size", show_edge=not console.no_color)
    table.add_column("size", no_wrap=True)
    live = [s for s in doc["series"] if s["verdict"] == "accepted"]
    for s in live:
        table.add_column(escape(names[s["name"]]), no_wrap=True)
    for index, size in enumerate(doc["sizes"]):
        cells = [_sweep_cell(s["points"][index] if index < len(s["points"]) else None, doc["metric"]) for s in live]
        table.add_row(escape(size["label"]), *cells)
    console.print(table)
    if doc.get("peak"):
        console.print(f"[dim]peak: {doc['peak']['name']} {doc['peak']['value']:.1f} {unit}[/]")
    for s in doc["series"]:
        if s["verdict"] != "accepted":
            console.print(f"[red]{escape(names[s['name']])}: {s['verdict']}[/] {escape(s['message'][:200])}")
    for note in doc["notes"]:
        console.print(f"[dim]note: {escape(note)}[/]")


def _sweep_cell(point: dict | None, metric: str) -> str:
    if point is None:
        return "-"
    if metric == "ms":
        return _interval(point["median_ms"], point["ci_low_ms"], point["ci_high_ms"])
    if point["rate"] is None:
        return "-"
    half = max(point["rate"] - point["rate_low"], point["rate_high"] - point["rate"])
    return format_rate(point["rate"], half)


# -- leaderboard and history -------------------------------------------------------
def render_leaderboard(console, doc: dict) -> None:
    if not doc["boards"]:
        console.print(f"no accepted GPU results for {escape(doc['challenge'])} in {escape(doc['database'])}"
                      + (f" on a device matching {escape(doc['device_filter'])}" if doc["device_filter"] else ""))
    for board in doc["boards"]:
        _board_table(console, doc, board)
    for warning in doc["warnings"]:
        console.print(f"[yellow]warning: {escape(warning)}[/]")
    if doc.get("cpu_runs"):
        console.print(f"[dim]note: {doc['cpu_runs']} accepted CPU-mode run(s) have no GPU timing and are "
                      "not on the leaderboard[/]")


def _board_table(console, doc: dict, board: dict) -> None:
    names = short_names([r["solution"] for r in board["rows"]])
    table = Table(box=table_box(console), show_edge=not console.no_color,
                  title=f"{doc['challenge']} on {board['device']}: best accepted result per solution")
    for header in ("rank", "solution", "sha256", "score (geo-mean ± CI)", "vs best", "runs", "when",
                   "torch", "triton"):
        table.add_column(header, no_wrap=True)
    for r in board["rows"]:
        lo, hi = r["score_ci_ms"]
        table.add_row(str(r["rank"]), escape(names[r["solution"]]), r["solution_hash"][:12],
                      _interval(r["score_ms"], lo, hi), r["vs_best"], str(r["runs"]),
                      r["created_at"][:16].replace("T", " "), str(r["torch"]), str(r["triton"]))
    console.print(table)


def render_history(console, rows: list[dict], database: str) -> None:
    if not rows:
        console.print(f"no runs recorded in {escape(database)}")
        return
    table = Table(box=table_box(console), show_edge=not console.no_color, title=f"recent runs ({database})")
    for header in ("id", "when", "command", "challenge", "solution", "verdict", "score", "device"):
        table.add_column(header, no_wrap=True)
    for r in rows:
        score = _interval(r["score_ms"], r["score_ci_low_ms"], r["score_ci_high_ms"]) if r["score_ms"] else "-"
        style = "green" if r["verdict"] == "accepted" else "red"
        table.add_row(str(r["id"]), r["created_at"][:16].replace("T", " "), r["command"], escape(r["challenge"]),
                      escape(Path(r["solution_path"]).name), f"[{style}]{r['verdict']}[/]", score,
                      escape(str(r["device"])))
    console.print(table)
