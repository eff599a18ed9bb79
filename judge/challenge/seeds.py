"""Seeds of the benchmark's warm-up, shared by the judge (which derives the case's seed) and the
worker (which draws the warm-up's inputs).  Pure.

Only a per-case seed derived from the run's seed reaches the worker, so a competition's secret
seed never does.  The timed calls' seeds are not derived at all: the judge draws each from its
own entropy and sends it with the call (benchmark_stage.TimedCalls), so no timed input exists,
or can be computed, before the call that uses it.
"""

from __future__ import annotations

from judge.challenge.cases import call_seed

__all__ = ["case_seed", "warmup_seed"]


def case_seed(run_seed: int, case_name: str) -> int:
    return call_seed(run_seed, case_name, -2)


def warmup_seed(case: int, index: int) -> int:
    return call_seed(case, "warm-up", index)
