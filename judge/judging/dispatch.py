"""Which runner judges a solution, and the one call that judges it.

A YAML challenge's inputs are drawn from seeds in the worker (``runner.Runner``);
a LeetGPU challenge folder's are built by its generators in the judge and
shipped to the worker (``shipped_runner.ShippedRunner``, a subclass).  This
module sits above both, so neither imports the other's chooser.
"""

from __future__ import annotations

from judge.challenge.spec import Spec
from judge.judging.runner import Events, Options, Runner, RunResult
from judge.judging.shipped_runner import ShippedRunner
from judge.worker.client import Worker

__all__ = ["judge_solution", "make_runner"]


def judge_solution(spec: Spec, solution: str, options: Options, events: Events | None = None,
                   early_worker: Worker | None = None) -> RunResult:
    """Judge one solution file against one spec.

    ``early_worker``: one from ``worker.client.spawn_early``, already importing
    torch; used when it was spawned for the mode and limits this run needs.
    """
    runner = make_runner(spec, solution, options, events or Events())
    runner.early_worker = early_worker
    try:
        return runner.run()
    finally:
        runner.close()


def make_runner(spec: Spec, solution: str, options: Options, events: Events) -> "Runner":
    """The runner for ``spec``: a KernelBench problem's, shipped inputs for a LeetGPU challenge folder, else
    seeded ones."""
    if getattr(spec, "kernelbench", False):
        from judge.judging.kernelbench_runner import KernelBenchRunner

        return KernelBenchRunner(spec, solution, options, events)
    if getattr(spec, "shipped", False):
        return ShippedRunner(spec, solution, options, events)
    return Runner(spec, solution, options, events)
