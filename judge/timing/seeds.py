"""Seeds of the benchmark loop, shared by the worker (which draws the inputs)
and the judge (which re-draws them to check a verified call).  Pure.

Only a per-case seed derived from the run's seed reaches the worker, so a
competition's secret seed never does.
"""

from __future__ import annotations

from judge.challenge.cases import call_seed

__all__ = ["case_seed", "timed_seed", "warmup_seed", "plan_seed"]


def case_seed(run_seed: int, case_name: str) -> int:
    return call_seed(run_seed, case_name, -2)


def timed_seed(case: int, index: int) -> int:
    """The input seed of timed call ``index`` of the case whose seed is ``case``."""
    return call_seed(case, "timed", index)


def warmup_seed(case: int, index: int) -> int:
    return call_seed(case, "warm-up", index)


def plan_seed(case: int) -> int:
    return call_seed(case, "verify-plan", 0)
