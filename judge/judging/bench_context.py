"""What the benchmark stage reads from the run that drives it, handed over explicitly.

``judge run``'s ``Runner`` builds a ``BenchContext`` (Runner.bench_context) for
``run_benchmarks``; ``judge rank`` and ``judge sweep`` time through ``bench_case``
alone and build only its ``CallContext`` (ranking/rank_runner.Participant).  The
stage never reaches into a runner: what it reads is a field here, what it does to
the run (start or stop the solution's worker, take the torch baseline's) is a
callback here, and what it produces it returns (bench_result.BenchOutcome).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from judge.challenge.spec_model import Spec
    from judge.worker.client import Worker

__all__ = ["BenchSettings", "CallContext", "BenchContext", "TimedReference", "TorchBaseline"]


class TimedReference(Protocol):
    """What the stage asks of a reference: judging.reference.Reference, a LeetGPU challenge's
    shipped_runner.ShippedReference (which answers for its performance test, or ``case``: a timed call's
    redraw of it) or a KernelBench problem's kernelbench_runner.KernelBenchReference.  ``spec``: its parameters
    order every call's arguments."""

    spec: Spec

    def call_arguments(self, params: dict, seed: int, case=None): ...
    def check(self, params: dict, seed: int, got: dict) -> list: ...


class TorchBaseline(Protocol):
    """The torch baseline's worker as the stage uses it: benchmark_stage.BaselineWorker (not imported
    here: the stage imports this module)."""

    worker: Worker
    started: bool  # loaded (``ready`` succeeded)
    problem: Exception | None  # why it could not be loaded

    def ready(self, timeout: float) -> None: ...
    def stop(self) -> None: ...


@dataclass(frozen=True)
class BenchSettings:
    """The run's options that timing reads (runner.Options; ``of`` takes them from there)."""

    compile_timeout: float  # loading a worker, and a case's warm-up with its compiles (s)
    call_timeout: float  # one timed call, before the margin for its round trip (s)
    budget_s: float  # a case's time budget (the stopping rule's), part of the torch baseline's cache key too
    remeasure_peaks: bool = False  # the caches of peaks and torch baselines are not read
    wait_for_gpu_s: float = 0.0  # before timing, how long to wait for other processes to leave the GPU

    @classmethod
    def of(cls, options) -> BenchSettings:
        """From a runner.Options (not imported here: it comes with torch)."""
        return cls(compile_timeout=options.compile_timeout, call_timeout=options.call_timeout(),
                   budget_s=options.bench_budget_s, remeasure_peaks=options.remeasure_peaks,
                   wait_for_gpu_s=options.wait_for_gpu_s)


@dataclass(frozen=True)
class CallContext:
    """What one case's timed calls read (benchmark_stage.bench_case and TimedCalls)."""

    seed: int  # the run's, or a rank round's: each case's seed derives from it, and it never reaches the worker
    settings: BenchSettings
    reference: TimedReference | None = None  # checks verified calls; None: outputs are not checked (a baseline)
    peaks: dict | None = None  # the device's: their host-clock latencies calibrate the audit (peaks.py)
    # Called when the judge's reference runs out of GPU memory while it checks a timed call: the runner stops
    # the solution's worker to free it (a death).  None: nothing to stop (a rank participant just drops out).
    free_gpu_memory: Callable[[], None] | None = None


@dataclass(frozen=True)
class BenchContext:
    """What ``run_benchmarks`` reads from ``judge run``'s Runner, and the callbacks through which it acts on it."""

    spec: Spec  # a LeetGPU challenge's LeetGpuSpec too
    device: str
    environment: dict  # read only: the GPU's L2 size (the physical floor), the cache keys of peaks and baselines
    calls: CallContext  # for the solution's timed calls, and the torch baseline's
    peaks: dict | None  # measured while the worker imported (Runner.measure_peaks_first); None: the stage measures
    baseline: TorchBaseline | None  # the torch baseline's worker, spawned at the start (Runner.spawn_baseline)
    status: Callable[[str], None]  # progress text (runner.Events.status)
    own_pids: Callable[[], set[int]]  # the run's worker processes now: no contention of theirs
    solution_worker: Callable[[], Worker]  # the solution's worker, started; a dead one is replaced first
    stop_solution_worker: Callable[[], None]  # before torch is timed: nothing of the solution's may run then
    # The stage takes ``baseline`` over (it stops it): the run no longer counts it among its own processes.
    release_baseline: Callable[[], None]
    new_worker: Callable[[str, tuple[str, ...]], Worker]  # a worker for another file (the torch baseline's)

    @property
    def settings(self) -> BenchSettings:
        return self.calls.settings

    def with_peaks(self, peaks: dict) -> BenchContext:
        """This context once the device's peaks are known: they also calibrate every timed call's host clock."""
        return replace(self, peaks=peaks, calls=replace(self.calls, peaks=peaks))
