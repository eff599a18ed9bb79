"""What changed between two judgements of the same solution (``judge watch``).

Pure: takes two ``RunResult.as_dict()`` documents, returns lines of text.
"""

from __future__ import annotations

__all__ = ["changes_between", "speed_change", "verdict_change"]


def _time(ms: float) -> str:
    """As the benchmark table writes times (judge/report/benchmark_table.py)."""
    if ms < 0.1:
        return f"{ms * 1e3:.2f} µs"
    return f"{ms:.4f} ms" if ms < 10 else f"{ms:.2f} ms"


def verdict_change(previous: dict, current: dict) -> str | None:
    """``verdict: wrong_answer → accepted``, or None when it is the same."""
    if previous.get("verdict") == current.get("verdict"):
        return None
    return f"verdict: {previous.get('verdict')} → {current.get('verdict')}"


def _passed(run: dict) -> int:
    return sum(1 for t in run.get("tests", []) if t.get("verdict") == "accepted")


def speed_change(before: dict, after: dict) -> str:
    """``0.1336 ms → 0.1290 ms, 1.036× faster`` for one benchmark case's two entries,
    and whether the two medians' 95 % intervals overlap (then the change may be noise)."""
    old, new = before["median_ms"], after["median_ms"]
    if new < old:
        ratio = f"{old / new:.3f}× faster"
    elif new > old:
        ratio = f"{new / old:.3f}× slower"
    else:
        ratio = "the same"
    text = f"{_time(old)} → {_time(new)}, {ratio}"
    intervals = [(e.get("ci_low_ms"), e.get("ci_high_ms")) for e in (before, after)]
    if new != old and all(lo is not None and hi is not None for lo, hi in intervals):
        (lo1, hi1), (lo2, hi2) = intervals
        if lo1 <= hi2 and lo2 <= hi1:
            text += " (the 95% intervals overlap: within noise)"
    return text


def _timed(run: dict) -> dict:
    return {b["name"]: b for b in run.get("benchmarks", [])
            if b.get("verdict", "accepted") == "accepted" and b.get("median_ms")}


def changes_between(previous: dict | None, current: dict) -> list[str]:
    """The differences worth a line: the verdict, the tests passed, each benchmark's time.

    Runs of different seeds or modes are not compared case by case (their cases differ).
    """
    if previous is None:
        return []
    lines = []
    verdict = verdict_change(previous, current)
    if verdict:
        lines.append(verdict)
    before, after, total = _passed(previous), _passed(current), len(current.get("tests", []))
    if before != after or len(previous.get("tests", [])) != total:
        lines.append(f"tests passed: {before} → {after} of {total}")
    if (previous.get("seed"), previous.get("mode")) != (current.get("seed"), current.get("mode")):
        return lines + ["(another seed or mode: times are not compared)"]
    old = _timed(previous)
    for name, entry in _timed(current).items():
        if name in old:
            lines.append(f"{name}: {speed_change(old[name], entry)}")
    return lines
