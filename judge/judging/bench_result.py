"""What the benchmark stage produces, typed: one case's timed calls (``TimedRun``), one
case's entry (``CaseTiming``, with the torch baseline's time in ``TorchTiming``), and the
whole stage's outcome (``BenchOutcome``).  Pure data, no I/O.

The JSON shape of an entry (``benchmarks[]`` in docs/json-schema.md) is made in one place,
``CaseTiming.to_dict``, when a runner records its entries (Runner.record_benchmarks): the
reports read ``RunResult.benchmarks`` in that shape.  The statistics of a case's calls stay
the dict that ``benchmark_stage.timing_summary`` makes, their wire shape, inside the entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.judging.verdict import CaseResult, Verdict
from judge.timing.speed import speedup_text

__all__ = ["TimedRun", "TorchTiming", "CaseTiming", "BenchOutcome"]

PHASES = ("warmup_s", "elapsed_s", "verifying_s", "inputs_s")


@dataclass
class TimedRun:
    """The raw numbers of one case's timed calls in one worker (benchmark_stage.bench_case), or of
    a participant's calls pooled over rounds (judge rank); ``timing_summary`` makes statistics of them."""

    samples_ms: list[float]  # one per kept call: the events' time, or the host clock's where they disagreed
    audits: list[list]  # one [host, event, tail, disagreed] per kept call (audit.py)
    verified: int  # calls whose outputs were checked
    stop_reason: str  # the stopping rule's
    elapsed_s: float = 0.0
    verifying_s: float = 0.0
    inputs_s: float = 0.0  # a LeetGPU test's: drawing and shipping each timed call's values (part of elapsed_s)
    warmup_s: float | None = None  # as the worker said (None: it did not)
    launch_guard_us: float | None = None
    exposed_dropped: int = 0
    exposed_kept: int = 0
    flush_bytes: int | None = None  # as the worker said; informative only
    guard_holds_gpu: bool | None = None
    judge_wall_ms: float | None = None  # the median time the judge waited for a call

    def phases(self) -> dict[str, float]:
        """Seconds of warm-up, timing, verifying and fresh inputs (0 where unknown), in that order."""
        return {"warmup_s": self.warmup_s or 0.0, "elapsed_s": self.elapsed_s or 0.0,
                "verifying_s": self.verifying_s or 0.0, "inputs_s": self.inputs_s or 0.0}


@dataclass(frozen=True)
class TorchTiming:
    """The challenge's torch baseline on one case, timed the same way."""

    median_ms: float
    ci_low_ms: float
    ci_high_ms: float
    cached: bool | None = None  # from the per-device cache; None: not said (judge rank times it in its rounds)

    @classmethod
    def of(cls, summary: dict, cached: bool | None = None) -> TorchTiming:
        """From a timing summary (or the cache's record of one)."""
        return cls(summary["median_ms"], summary["ci_low_ms"], summary["ci_high_ms"], cached)

    def fields(self, median_ms: float) -> dict:
        """The entry's ``torch_*`` keys against the solution's ``median_ms``."""
        out = {} if self.cached is None else {"torch_cached": self.cached}
        out.update(torch_median_ms=self.median_ms, torch_ci_ms=[self.ci_low_ms, self.ci_high_ms],
                   speedup_vs_torch=self.median_ms / median_ms, vs_torch=speedup_text(median_ms, self.median_ms))
        return out


@dataclass
class CaseTiming:
    """One benchmark case of a run: its verdict and, once timed, its statistics, rates and baseline.

    A case rejected before its calls were timed has no ``summary``; one rejected after
    (a time below the physical floor) keeps it, as its JSON entry always did.
    """

    name: str
    params: dict
    verdict: Verdict = Verdict.ACCEPTED
    message: str = ""
    summary: dict = field(default_factory=dict)  # timing_summary's; empty until the case is timed
    notes: list[str] = field(default_factory=list)  # the summary's, then the contention and the baseline's
    phases_s: dict = field(default_factory=dict)  # the summary's, then the judge's and torch's wall seconds
    rounds: int | None = None  # judge rank: the rounds the case was timed in
    gpu_checks: dict | None = None  # the GPU's state before and after (timing/contention.py)
    contention: bool = False
    cost: tuple[float, float] | None = None  # (bytes, flops) its rates rest on
    rates: dict | None = None  # speed.speed_of_light's
    torch: TorchTiming | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    @property
    def median_ms(self) -> float:
        return self.summary["median_ms"]

    @property
    def ci_low_ms(self) -> float:
        return self.summary["ci_low_ms"]

    @property
    def ci_high_ms(self) -> float:
        return self.summary["ci_high_ms"]

    def record(self, summary: dict) -> None:
        """The statistics of its timed calls (timing_summary); notes and phases are added to here after."""
        self.summary, self.notes, self.phases_s = summary, list(summary["notes"]), dict(summary["phases_s"])

    def fail(self, verdict: Verdict, message: str) -> None:
        self.verdict, self.message = verdict, message

    def failure(self) -> CaseResult:
        """The case as a failed result, beside the functional tests' (for the run's verdict and message)."""
        return CaseResult(self.name, "benchmark", self.params, self.verdict, self.message)

    def to_dict(self) -> dict:
        """The JSON entry (docs/json-schema.md, ``benchmarks[]``): keys in the order the reports have always had."""
        out = {"name": self.name, "params": self.params, "verdict": self.verdict.value, "message": self.message}
        if self.summary:  # notes and phases_s keep their places among the summary's keys
            out.update(self.summary, notes=list(self.notes), phases_s=dict(self.phases_s))
        if self.rounds is not None:
            out["rounds"] = self.rounds
        if self.gpu_checks is not None:
            out["gpu_checks"] = self.gpu_checks
        if self.contention:
            out["contention"] = True
        if self.cost is not None:
            out["bytes"], out["flops"] = self.cost
        out.update(self.rates or {})
        if self.torch is not None:
            out.update(self.torch.fields(self.median_ms))
        return out


@dataclass
class BenchOutcome:
    """What the benchmark stage hands back for the runner to record (Runner.record_benchmarks)."""

    peaks: dict  # the device's, as used: environment.peaks in the JSON
    entries: list[CaseTiming] = field(default_factory=list)  # in case order, up to the first one rejected
    notes: list[str] = field(default_factory=list)  # for the run's notes
    phases_s: dict[str, float] = field(default_factory=dict)  # for the run's phases (baseline_ready, peaks, ...)
