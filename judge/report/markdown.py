"""The Markdown summary of a grade document (``--summary``, ``$GITHUB_STEP_SUMMARY``).

A heading with the count accepted, one line of settings, and a table with one
row per submission and challenge.  Returns a string: the caller writes it.
"""

from __future__ import annotations

import re

from judge.base.text import clean_text

__all__ = ["grade_to_markdown", "cell"]

MARKS = {"accepted": "✅", "pending": "⏳", "no_submission": "📭"}
FAIL_MARK = "❌"
DETAIL_CHARS = 160
# A solution's output tail may carry colour codes and control characters.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def cell(text, limit: int = DETAIL_CHARS) -> str:
    """One table cell: one line of printable text, at most ``limit`` characters, pipes and brackets
    escaped (a submission's message must not make a link or an image in a CI job's summary)."""
    line = _CONTROL.sub(" ", _ANSI.sub("", str(text if text is not None else "")))
    line = clean_text(line)  # bidi, zero-width and U+2028 spelled out (judge/base/text.py)
    line = " ".join(line.split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    line = line.replace("\\", "\\\\").replace("<", "&lt;")
    for char in "|[]":  # no table column, no [link](url) nor ![image](url) of a submission's making
        line = line.replace(char, "\\" + char)
    return line


def _tests(record: dict) -> str:
    ran = [t for t in record.get("tests", []) if t.get("verdict") != "skipped"]
    if not ran:
        return "-"
    return f"{sum(t.get('verdict') == 'accepted' for t in ran)}/{len(ran)}"


def _benchmarks(record: dict) -> str:
    """``square-2048 0.1402 ms (97% copy)`` per timed case of an accepted GPU run."""
    from judge.report.benchmark_table import format_time

    parts = []
    for bench in record.get("benchmarks", []):
        if bench.get("median_ms") is None:
            continue
        pct = bench.get("pct_of_peak")
        peak = f" ({pct:.0f}% {'copy' if bench.get('peak_kind') == 'copy bandwidth' else 'fp32'})" if pct else ""
        parts.append(f"{bench['name']} {format_time(bench['median_ms'])}{peak}")
    return "; ".join(parts) or "-"


def _row(record: dict, gpu: bool) -> str:
    verdict = record["verdict"]
    mark = MARKS.get(verdict, FAIL_MARK)
    detail = "" if verdict == "accepted" else record.get("message", "")
    if record.get("carried_over"):
        detail = ("(resumed) " + detail).strip()
    cells = [cell(record["submission"], 80), cell(record["challenge"], 80), f"{mark} {verdict}", _tests(record)]
    if gpu:
        cells.append(cell(_benchmarks(record)) if verdict == "accepted" else "-")
    wall = record.get("wall_s")
    cells += [f"{wall:.1f} s" if isinstance(wall, (int, float)) and verdict != "pending" else "-", cell(detail)]
    return "| " + " | ".join(cells) + " |"


def grade_to_markdown(doc: dict) -> str:
    """The summary (a string ending in a newline) of a grade document (judge/grading/records.py)."""
    summary, gpu = doc["summary"], doc["mode"] == "gpu"
    state = "" if doc.get("complete") else f" ({summary['pending']} not graded yet)"
    mark = "✅" if summary["accepted"] == summary["total"] else "❌"
    lines = [f"### {mark} judge grade: {summary['accepted']} of {summary['total']} accepted{state}", ""]
    mode = "GPU" if gpu else "CPU (Triton interpreter)"
    counts = ", ".join(f"{n} {v}" for v, n in summary["by_verdict"].items())
    lines += [f"mode {mode} · seed {doc['seed']['label']} · judge {doc['judge']}"
              + (f" · {counts}" if counts else ""), ""]
    headers = ["submission", "challenge", "verdict", "tests"] + (["benchmarks"] if gpu else []) + ["time", "details"]
    lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "|".join("---:" if h in ("tests", "time") else "---" for h in headers) + "|")
    lines += [_row(record, gpu) for record in doc["results"]]
    return "\n".join(lines) + "\n"
