"""KernelBench's scores over a grade's results: ``fast_p``, the share of problems whose
solution is correct *and* faster than the torch baseline by more than ``p`` times, and the
geometric mean speed-up of the correct ones.  Pure: dicts and numbers in, numbers out.

The definitions are KernelBench's (src/kernelbench/score.py, commit 423217d): ``fastp``
divides by every problem graded, not only the correct ones, and counts a speed-up strictly
above ``p`` (fast_0 is then the share correct); the geometric mean is over the correct
solutions' speed-ups.  The speed-ups here are the judge's own: medians of timed calls with
fresh inputs, the L2 flushed and the host clock's audit, against the torch baseline timed
the same way (docs/kernelbench.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Scored", "fast_p", "geometric_mean_speedup", "scored_of", "kernelbench_scores", "P_VALUES"]

P_VALUES = (0, 1, 2)


@dataclass(frozen=True)
class Scored:
    """One problem's solution: correct (accepted) or not, and its speed-up over torch (None: not timed)."""

    correct: bool
    speedup: float | None = None


def fast_p(scored: list[Scored], p: float) -> float | None:
    """The share of ``scored`` correct with a speed-up above ``p``; None when there is nothing to score, or
    when ``p`` > 0 and a correct solution was not timed (CPU mode: no speed-ups to compare)."""
    if not scored:
        return None
    if p > 0 and any(s.correct and s.speedup is None for s in scored):
        return None
    return sum(1 for s in scored if s.correct and (p <= 0 or s.speedup > p)) / len(scored)


def geometric_mean_speedup(scored: list[Scored]) -> float | None:
    """exp(mean(log speed-up)) over the correct, timed solutions; None when there is none."""
    logs = [math.log(s.speedup) for s in scored if s.correct and s.speedup is not None and s.speedup > 0]
    return math.exp(sum(logs) / len(logs)) if logs else None


def scored_of(record: dict) -> Scored:
    """A grade record as a Scored: accepted, and the geometric mean of its benchmarks' ``speedup_vs_torch``."""
    correct = record.get("verdict") == "accepted"
    ratios = [b.get("speedup_vs_torch") for b in record.get("benchmarks") or [] if isinstance(b, dict)]
    ratios = [r for r in ratios if type(r) in (int, float) and r > 0 and math.isfinite(r)]
    speedup = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
    return Scored(correct, speedup if correct else None)


def kernelbench_scores(records: list[dict], p_values=P_VALUES) -> dict:
    """Per submission (who), over its graded records: problems, correct, timed, ``fast_<p>`` for each p and the
    geometric mean speed-up; records still pending are left out."""
    by_who: dict[str, list[Scored]] = {}
    for record in records:
        if record.get("verdict") in (None, "pending"):
            continue
        by_who.setdefault(str(record.get("submission")), []).append(scored_of(record))
    out = {}
    for who, scored in by_who.items():
        entry = {"problems": len(scored), "correct": sum(s.correct for s in scored),
                 "timed": sum(s.speedup is not None for s in scored)}
        entry.update({f"fast_{p:g}": fast_p(scored, p) for p in p_values})
        entry["geomean_speedup"] = geometric_mean_speedup(scored)
        out[who] = entry
    return {"p": list(p_values), "submissions": out}
