"""What ``judge validate`` prints without --json: each spec's checks with a mark, then one summary line."""

from __future__ import annotations

__all__ = ["check_marks", "validation_lines"]


def check_marks(stream) -> dict:
    """✓/✗ where ``stream`` can print them, ok/FAIL otherwise (keyed by a check's ok: True, False, None)."""
    encoding = (getattr(stream, "encoding", None) or "ascii").lower()
    if "utf" in encoding:
        return {True: "✓", False: "✗", None: "–"}
    return {True: "ok", False: "FAIL", None: "skip"}


def _report_lines(report, marks: dict) -> list[str]:
    lines = [f"{report.name}  ({report.source})"]
    width = max(len(c.name) for c in report.checks)
    lines += [f"  {marks[check.ok]} {check.name:<{width}}  {check.detail}" for check in report.checks]
    return lines


def validation_lines(reports: list, marks: dict) -> list[str]:
    """Every report's lines (authoring/validate.py's SpecReport), then the count of checks failed and skipped."""
    lines = [line for report in reports for line in _report_lines(report, marks)]
    checks = [c for r in reports for c in r.checks]
    bad = sum(c.ok is False for c in checks)
    skipped = sum(c.ok is None for c in checks)
    lines.append(f"{len(reports)} spec(s), {len(checks)} checks: " +
                 (f"{bad} failed" if bad else "all passed") + (f", {skipped} skipped" if skipped else ""))
    return lines
