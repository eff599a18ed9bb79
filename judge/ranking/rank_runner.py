"""``judge rank``: several solutions on the same cases and seed, then timed together.

1. Each solution runs the functional tests through the ordinary ``Runner``
   (benchmarks off); a rejected one is listed with its verdict and reason
   and never stops the others.
2. On a GPU, the accepted ones keep their worker alive, the torch baseline
   gets a worker of its own, and all of them are timed in interleaved rounds
   (ranking_math.measure_in_rounds): per round and benchmark case each one is
   asked for k timed calls.  Every timed call is verified as in ``judge run``.
3. Pooled samples per case give each solution's benchmark entries (the same
   shape as ``judge run``'s), and ranking_math.rank_entries orders them.

In CPU mode (Triton's interpreter) there are no GPU times: the ranking is by
correctness only, and the result says so.
"""

from __future__ import annotations

import random
import tempfile
import time
from dataclasses import dataclass, field, replace

from judge.challenge.cases import Case, benchmark_cases, call_seed
from judge.ranking.ranking_math import DroppedOut, Entry, Estimate, RoundPlan, Rounds, measure_in_rounds, rank_entries, ratio_to
from judge.judging.bench_context import BenchSettings, CallContext
from judge.judging.bench_result import BenchOutcome, CaseTiming, TimedRun, TorchTiming
from judge.judging.runner import Events, Options, Runner, RunResult, detect_mode, headline
from judge.judging.dispatch import make_runner
from judge.judging.verdict import Verdict

__all__ = ["RankEvents", "RankResult", "Participant", "rank_solutions", "default_budget", "timed_entry",
           "run_rounds", "start_torch", "TORCH"]

TORCH = "torch"  # the baseline's name in the rounds and the reference rows
BUDGET_PER_SLOT_S = 2.0


def default_budget(participants: int, cases: int) -> float:
    """Wall-clock seconds for the rounds: 2 s per participant and benchmark case."""
    return BUDGET_PER_SLOT_S * max(1, participants) * max(1, cases)


class RankEvents(Events):
    """Progress callbacks of a ranking (the CLI draws them on stderr)."""

    def solution_started(self, path: str, index: int, total: int) -> None: ...
    def solution_finished(self, result: RunResult) -> None: ...
    def timing_started(self, plan: RoundPlan) -> None: ...
    def round_finished(self, rounds: Rounds, plan: RoundPlan) -> None: ...


@dataclass
class RankResult:
    challenge: str
    seed: int
    mode: str
    device: str
    bound: str
    cases: list = field(default_factory=list)  # the benchmark Cases
    results: list = field(default_factory=list)  # RunResult per solution, in the order given
    standings: list = field(default_factory=list)
    references: list = field(default_factory=list)
    rounds: Rounds | None = None
    plan: RoundPlan | None = None
    peaks: dict = field(default_factory=dict)
    torch: dict = field(default_factory=dict)  # the baseline's timing entries (CaseTiming) by case name
    notes: list = field(default_factory=list)
    environment: dict = field(default_factory=dict)

    @property
    def timed(self) -> bool:
        return self.rounds is not None

    @property
    def all_accepted(self) -> bool:
        return all(r.verdict == Verdict.ACCEPTED for r in self.results)

    def as_dict(self) -> dict:
        """The ``--json`` document's body (docs/ranking.md)."""
        by_name = {r.solution: r for r in self.results}
        return {
            "challenge": self.challenge, "seed": self.seed, "mode": self.mode, "device": self.device,
            "bound": self.bound, "timed": self.timed,
            "method": _method(self.rounds, self.plan),
            "cases": [{"name": c.name, "params": dict(c.params)} for c in self.cases],
            "ranking": [dict(s.as_dict(), cases=_case_rows(by_name[s.name])) for s in self.standings],
            "references": list(self.references), "peaks": dict(self.peaks), "notes": list(self.notes),
            "environment": dict(self.environment), "results": [r.as_dict() for r in self.results],
        }


def _method(rounds: Rounds | None, plan: RoundPlan | None) -> dict | None:
    if rounds is None or plan is None:
        return None
    return {"order": "interleaved rounds, rotating order", "rounds": rounds.rounds,
            "stop_reason": rounds.stop_reason, "elapsed_s": round(rounds.elapsed_s, 3),
            "budget_s": plan.budget_s, "target_rel_ci": plan.target_rel_ci, "min_rounds": plan.min_rounds,
            "score": "geometric mean over benchmark cases of median times"}


CASE_FIELDS = ("name", "params", "verdict", "median_ms", "ci_low_ms", "ci_high_ms", "min_ms", "max_ms",
               "calls", "rounds", "gbps", "tflops", "pct_of_peak", "peak_kind", "copy_bound_ms",
               "torch_median_ms", "vs_torch", "timer_trusted", "launch_bound", "notes")


def _case_rows(result: RunResult) -> list[dict]:
    """Per-case timings of one solution without the raw samples (those are under results)."""
    return [{k: b.get(k) for k in CASE_FIELDS if k in b} for b in result.benchmarks]


# -- participants in the rounds ---------------------------------------------------
def round_seed(run_seed: int, round_index: int) -> int:
    """Every participant gets the same inputs in a round, and new ones the next round."""
    return call_seed(run_seed, "rank-round", round_index)


class Participant:
    """One worker in the rounds: an accepted solution's runner, or the torch baseline.

    Times through benchmark_stage.bench_case, with a ``CallContext`` of its own per round
    (``call_context``): the round's seed, its runner's reference, the device's peaks.
    """

    def __init__(self, name: str, options: Options, run_seed: int, runner: Runner | None = None,
                 worker=None, reference=None):
        self.name, self.settings, self.run_seed = name, BenchSettings.of(options), run_seed
        self.runner, self._worker = runner, worker
        # Where its calls' inputs are drawn (every participant's the same); its outputs are checked only where it
        # has a runner (the torch baseline's are not: ``checks``).
        self.reference = runner.reference if runner is not None else reference
        self.checks = runner is not None
        self.audits: dict[str, list] = {}
        self.verified: dict[str, int] = {}
        self.phases: dict[str, dict] = {}  # seconds of warm-up, timing and verification, summed over rounds
        self.failed_case: Case | None = None
        self.peaks: dict | None = None  # the device's, for the host clock's calibration (benchmark_stage)

    def worker(self):
        if self.runner is not None:
            return self.runner.started_worker()  # a crashed worker is replaced, as in judge run
        return self._worker

    def call_context(self, round_index: int) -> CallContext:
        """What its timed calls of a round read.  No memory callback: when the judge's reference runs out
        of GPU memory checking a call, the participant drops out (there is no worker death to count)."""
        return CallContext(seed=round_seed(self.run_seed, round_index), settings=self.settings,
                           reference=self.reference, peaks=self.peaks)

    def sample(self, case: Case, round_index: int, calls: int) -> list[float]:
        """Exactly ``calls`` timed calls of ``case`` (after the worker's warm-up)."""
        from judge.judging.benchmark_stage import BenchFailure, bench_case
        from judge.worker.client import SubmissionInvalid, WorkerCrashed, WorkerTimeout

        rule = {"min_calls": calls, "max_calls": calls, "budget_s": 1e9}
        try:
            done = bench_case(self.call_context(round_index), self.worker(), case, check=self.checks, rule=rule)
        except BenchFailure as exc:
            self.failed_case = case
            raise DroppedOut(exc.verdict.value, exc.message) from None
        except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
            self.failed_case = case
            raise DroppedOut(Verdict.RUNTIME_ERROR.value, str(exc)) from None
        self.audits.setdefault(case.name, []).extend(done.audits)
        self.verified[case.name] = self.verified.get(case.name, 0) + done.verified
        phases = self.phases.setdefault(case.name, {})
        for key, seconds in done.phases().items():
            phases[key] = phases.get(key, 0.0) + float(seconds)
        return done.samples_ms

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()


def start_torch(spec, device: str, options: Options, run_seed: int, directory: str, reference) -> Participant:
    """The torch baseline in a worker of its own, its calls' inputs drawn by ``reference`` (raises the worker's
    exceptions)."""
    from judge.judging.benchmark_stage import baseline_file, baseline_reads
    from judge.worker.client import Worker

    worker = Worker(baseline_file(spec, directory), spec, device, False, options.worker_env,
                    readable=baseline_reads(spec))
    try:
        worker.start(options.compile_timeout)
    except BaseException:
        worker.stop()
        raise
    return Participant(TORCH, options, run_seed, worker=worker, reference=reference)


def run_rounds(participants: list[Participant], cases: list[Case], plan: RoundPlan,
               events: RankEvents, clock=time.monotonic) -> Rounds:
    by_name = {p.name: p for p in participants}
    by_case = {c.name: c for c in cases}

    def sample(name: str, case: str, round_index: int, calls: int):
        events.status(f"round {round_index + 1}: timing {name} on {case}")
        return by_name[name].sample(by_case[case], round_index, calls)

    events.timing_started(plan)
    return measure_in_rounds([p.name for p in participants], [c.name for c in cases], sample, plan, clock,
                             lambda rounds: events.round_finished(rounds, plan))


# -- the pipeline -----------------------------------------------------------------------
def rank_solutions(spec, solutions: list[str], options: Options, plan: RoundPlan | None = None,
                   events: RankEvents | None = None) -> RankResult:
    """Judge ``solutions`` on the same cases and seed, time the accepted ones together, rank them.

    ``plan`` None: RoundPlan defaults with ``default_budget`` for the budget.
    """
    if len(set(solutions)) != len(solutions):
        raise ValueError("each solution may be given once")
    events = events or RankEvents()
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    options = replace(options, seed=seed, benchmark=False)
    interpret, device = detect_mode(options)
    runners: list[Runner] = []
    try:
        for index, path in enumerate(solutions):
            runners.append(_judge_one(spec, path, options, events, index, len(solutions), keep=not interpret))
        out = _new_result(spec, runners, seed)
        accepted = [r for r in runners if r.result.verdict == Verdict.ACCEPTED]
        if _can_time(out, interpret, accepted):
            _time_accepted(out, spec, accepted, options, plan, events)
        out.standings = rank_entries([_entry(r, out.timed) for r in runners])
        _add_references(out)
        return out
    finally:
        for runner in runners:
            runner.close()


def _judge_one(spec, path: str, options: Options, events: RankEvents, index: int, total: int,
               keep: bool) -> Runner:
    """Functional tests of one solution; its worker stays alive when it may be timed."""
    events.solution_started(path, index, total)
    runner = make_runner(spec, path, options, events)
    try:
        runner.run()
    finally:
        if not keep or runner.result.verdict != Verdict.ACCEPTED:
            runner.close()
    events.solution_finished(runner.result)
    return runner


def _new_result(spec, runners: list[Runner], seed: int) -> RankResult:
    first = runners[0].result
    return RankResult(challenge=spec.name, seed=seed, mode=first.mode, device=first.device, bound=spec.bound,
                      cases=_benchmark_cases(spec, runners, seed), results=[r.result for r in runners],
                      environment=dict(first.environment))


def _benchmark_cases(spec, runners: list[Runner], seed: int) -> list[Case]:
    """The spec's benchmark cases; for a LeetGPU folder its performance test, built once (GPU
    only) and given to every runner's reference, so that all are timed and checked on the same inputs."""
    if not getattr(spec, "shipped", False):
        return benchmark_cases(spec)
    if runners[0].interpret:
        return []
    from judge.challenge.leetgpu import build_performance_test
    from judge.challenge.seeds import case_seed

    case = build_performance_test(spec, runners[0].device, case_seed(seed, "performance"))
    for runner in runners:
        if runner.reference is not None:
            runner.reference.benchmark = case
    return [case]


def _can_time(out: RankResult, interpret: bool, accepted: list) -> bool:
    if interpret:
        out.notes.append("CPU mode (Triton interpreter): there are no GPU timings, so solutions are ranked by "
                         "correctness only and every accepted one shares rank 1; run on a CUDA GPU to rank "
                         "by speed")
        return False
    if not out.cases:
        out.notes.append("the challenge has no benchmark cases: ranked by correctness only")
        return False
    if not accepted:
        out.notes.append("no solution was accepted: nothing to time")
        return False
    return True


def _time_accepted(out: RankResult, spec, accepted: list[Runner], options: Options, plan: RoundPlan | None,
                   events: RankEvents) -> None:
    from judge.timing.peaks import get_peaks
    from judge.worker.client import SubmissionInvalid, WorkerCrashed, WorkerTimeout

    out.peaks = get_peaks(accepted[0].device, out.environment, options.remeasure_peaks)
    participants = [Participant(r.solution, options, out.seed, runner=r) for r in accepted]
    with tempfile.TemporaryDirectory(prefix="judge-rank-") as tmp:
        try:
            participants.append(start_torch(spec, accepted[0].device, options, out.seed, tmp, accepted[0].reference))
        except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
            out.notes.append(f"the torch baseline could not be timed: {headline(str(exc))}")
        for p in participants:
            p.peaks = out.peaks
        out.plan = plan or RoundPlan(budget_s=default_budget(len(participants), len(out.cases)))
        try:
            checks = _timed_rounds(out, participants, accepted[0], events)
        finally:
            for p in participants:
                p.close()
    out.torch = _torch_entries(out, participants)
    for p in participants:
        if p.runner is not None:
            _fill_benchmarks(out, spec, p, len(participants), checks)


def _timed_rounds(out: RankResult, participants: list, first: Runner, events) -> tuple[dict, dict]:
    """The rounds, in this GPU's turn, with its state before and after them (timing/contention.py)."""
    from judge.timing.contention import Probe, gpu_turn

    def own() -> set[int]:
        workers = [p.runner.worker if p.runner is not None else p._worker for p in participants]
        return {w.process.pid for w in workers if w is not None and w.process is not None}

    probe = Probe(first.device, out.peaks.get("copy_gbps"), own)
    try:
        with gpu_turn(out.environment, first.device, events.status):
            before = probe.check()
            out.rounds = run_rounds(participants, out.cases, out.plan, events)
            return before, probe.check()
    finally:
        probe.close()


def _torch_entries(out: RankResult, participants: list[Participant]) -> dict[str, CaseTiming]:
    torch = next((p for p in participants if p.name == TORCH), None)
    if torch is None:
        return {}
    if TORCH in out.rounds.failures:
        out.notes.append(f"the torch baseline failed while timed: {headline(out.rounds.failures[TORCH].message)}")
        return {}
    return {c.name: timed_entry(out.rounds, torch, c) for c in out.cases}


def timed_entry(rounds: Rounds, p: Participant, case: Case) -> CaseTiming:
    """A benchmark entry from the pooled samples of ``p`` on ``case``, with the host-clock cross-check."""
    from judge.judging.benchmark_stage import timing_summary

    done = TimedRun(samples_ms=rounds.pooled(p.name, case.name), audits=p.audits.get(case.name, []),
                    verified=p.verified.get(case.name, 0), stop_reason=rounds.stop_reason,
                    **p.phases.get(case.name, {}))
    entry = CaseTiming(case.name, dict(case.params))
    entry.record(timing_summary(done))
    entry.rounds = len({r for r, name, c, _ in rounds.schedule if name == p.name and c == case.name})
    return entry


def _fill_benchmarks(out: RankResult, spec, p: Participant, workers: int, checks: tuple[dict, dict]) -> None:
    """The solution's benchmark entries, in the shape ``judge run`` gives them, recorded in its runner."""
    from judge.judging.benchmark_stage import BenchFailure, refuse_below_floor

    result, failure = p.runner.result, out.rounds.failures.get(p.name)
    phases = {"benchmarks": out.rounds.elapsed_s}
    entries = {case.name: timed_entry(out.rounds, p, case) for case in out.cases} if failure is None else {}
    for case in out.cases if failure is None else ():
        try:
            refuse_below_floor(entries[case.name].median_ms, spec, case, out.peaks, result.environment)
        except BenchFailure as exc:  # a time no GPU can give is never ranked
            failure, p.failed_case = DroppedOut(exc.verdict.value, exc.message), case
            break
    if failure is not None:
        case = p.failed_case
        failed = CaseTiming(case.name, dict(case.params), Verdict(failure.verdict), failure.message)
        p.runner.record_benchmarks(BenchOutcome(out.peaks, [failed], phases_s=phases))
        result.verdict = Verdict(failure.verdict)
        result.message = p.runner.summary_message()
        return
    for case in out.cases:
        _finish_entry(out, spec, case, entries[case.name], checks)
    note = (f"timed by judge rank in {out.rounds.rounds} interleaved rounds with {workers - 1} other "
            f"worker(s); stopped: {out.rounds.stop_reason}")
    p.runner.record_benchmarks(BenchOutcome(out.peaks, [entries[c.name] for c in out.cases], [note], phases))


def _finish_entry(out: RankResult, spec, case: Case, entry: CaseTiming, checks: tuple[dict, dict]) -> None:
    """The GPU's state around the rounds, the rates and % of peak, and the torch baseline's time of its rounds."""
    from judge.judging.benchmark_stage import case_cost, note_contention
    from judge.timing.speed import speed_of_light

    note_contention(entry, *checks)
    entry.cost = case_cost(spec, case)
    entry.rates = speed_of_light(entry.median_ms, *entry.cost, spec.bound, out.peaks)
    torch = out.torch.get(case.name)
    if torch is not None:  # no torch_cached: rank times it in the same rounds, never from the cache
        entry.torch = TorchTiming(torch.median_ms, torch.ci_low_ms, torch.ci_high_ms)


def _entry(runner: Runner, timed: bool) -> Entry:
    """One solution for the ranking: its verdict and, when timed and accepted, its cases' estimates."""
    result, cases = runner.result, {}
    if timed and result.verdict == Verdict.ACCEPTED:
        cases = {t.name: Estimate(t.median_ms, t.ci_low_ms, t.ci_high_ms) for t in runner.timings}
    return Entry(result.solution, result.verdict.value, headline(result.message), cases)


# -- reference rows ------------------------------------------------------------------
def _add_references(out: RankResult) -> None:
    """The torch baseline and the physical bound as rows beside the ranking (not ranked)."""
    best = out.standings[0].score if out.standings and out.standings[0].score else None
    if best is None:
        return
    rows = []
    torch = out.torch
    if torch and len(torch) == len(out.cases):
        rows.append(_reference_row(TORCH, "torch baseline, timed in the same rounds",
                                   {n: Estimate(e.median_ms, e.ci_low_ms, e.ci_high_ms) for n, e in torch.items()},
                                   best))
    bound = _bound_estimates(out)
    if bound:
        rows.append(_reference_row(*bound, best))
    out.references = rows


def _bound_estimates(out: RankResult):
    """The copy bound (memory-bound) or the fp32 matmul peak time (compute-bound), per case."""
    accepted = next((r for r in out.results if r.verdict == Verdict.ACCEPTED and r.benchmarks), None)
    if accepted is None:
        return None
    if out.bound == "memory" and all(b.get("copy_bound_ms") for b in accepted.benchmarks):
        return ("copy bound", f"bytes moved at the copy bandwidth ({out.peaks.get('copy_gbps', 0):.0f} GB/s)",
                {b["name"]: Estimate.exact(b["copy_bound_ms"]) for b in accepted.benchmarks})
    peak = out.peaks.get("fp32_tflops")
    if out.bound == "compute" and peak and all(b.get("flops") for b in accepted.benchmarks):
        return ("fp32 peak", f"FLOPs at the cuBLAS fp32 rate ({peak:.1f} TFLOP/s)",
                {b["name"]: Estimate.exact(b["flops"] / (peak * 1e12) * 1e3) for b in accepted.benchmarks})
    return None


def _reference_row(name: str, what: str, cases: dict, best: Estimate) -> dict:
    from judge.ranking.ranking_math import ratio_text, score

    s = score(cases.values())
    r = ratio_to(s, best)
    return {"name": name, "what": what, "score_ms": s.median, "score_ci_ms": [s.low, s.high],
            "ratio_to_best": r.value, "ratio_ci": [r.low, r.high], "vs_best": ratio_text(r),
            "cases": [{"name": n, "median_ms": e.median, "ci_low_ms": e.low, "ci_high_ms": e.high}
                      for n, e in cases.items()]}
