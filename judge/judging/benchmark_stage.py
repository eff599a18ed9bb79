"""The benchmark stage of a run (GPU only), in the judge's process.

For each benchmark case: ask the solution's worker to time it (timed_loop.py),
check every verified call against the judge's own reference, cross-check the
events with the host clock, then time the challenge's torch baseline the same
way in a worker of its own, and add rates and % of peak.

What the stage reads from the run comes in a context (bench_context.py: ``BenchContext``
for the whole stage, ``CallContext`` for one case's calls) and what it produces goes back
typed (bench_result.py): ``bench_case`` returns a ``TimedRun``, ``run_benchmarks`` a
``BenchOutcome`` of ``CaseTiming`` entries, which the runner records.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
import time
from pathlib import Path

from judge.challenge.exact_math import exact_statements
from judge.judging.bench_context import BenchContext, CallContext
from judge.judging.bench_result import BenchOutcome, CaseTiming, TimedRun, TorchTiming
from judge.judging.checks import failed_alike
from judge.judging.failures import NONDETERMINISTIC, RIGHT_UNTIMED, SAME_AGAIN
from judge.judging.reference import JudgeOutOfMemory
from judge.judging.verdict import Verdict
from judge.worker.client import SubmissionInvalid, Worker, WorkerCrashed, WorkerTimeout
from judge.timing.contention import Probe, contention_note, wait_for_gpu
from judge.timing.audit import (VerifyPlan, audit_note, audited_sample, case_excess_ms, disagrees, exposed_note, forged_call,
                                seen_ms,
                                launch_bound, launch_bound_note, parse_audit, unheld_guard_note)
from judge.challenge.seeds import case_seed as derive_case_seed, warmup_seed
from judge.timing.peaks import baseline_key, cache_lock, cached_baseline, get_peaks, store_baseline
from judge.timing.speed import below_floor, speed_of_light
from judge.timing.stats import Stats, StoppingRule

__all__ = ["run_benchmarks", "bench_case"]


# Outputs are poisoned again by the launch guard's kernel, before it flushes (timed_loop.Repoison).
UNWRITTEN_WHEN_TIMED = (" (in timed calls the outputs are poisoned again just before the timed region: work that"
                        " solve() puts on another stream must first wait for the current one, e.g."
                        " side.wait_stream(torch.cuda.current_stream()))")


class BenchFailure(Exception):
    def __init__(self, verdict: Verdict, message: str):
        super().__init__(message)
        self.verdict, self.message = verdict, message


def bench_case(ctx: CallContext, worker: Worker, case, check: bool, rule: dict | None = None) -> TimedRun:
    """Time one case in ``worker``; returns the raw numbers (raises BenchFailure).

    The judge drives every timed call (``TimedCalls``): it draws each call's inputs from a seed of its own
    entropy and places them while the solution's process is frozen, takes the call's numbers, decides only then
    whether to verify it (reading the outputs from the shared memory), and applies the stopping rule on its own
    clock.  ``rule`` is the StoppingRule's arguments; by default the run's time budget (``judge rank`` asks for
    exactly k calls per round instead).
    """
    settings = ctx.settings
    what = f"benchmark {case.name}"
    seed = warmup_seed(derive_case_seed(ctx.seed, case.name), 0)  # the run's seed never reaches the worker
    fields = place_call(ctx, worker, case, seed, getattr(case, "arguments", None) and case)
    warm, _ = _exchange(worker, worker.request, {"op": "bench", "case": case.name, **fields}, settings.compile_timeout,
                        f"warm-up of {what}", settings.compile_timeout)
    holds = warm.get("guard_holds_gpu") is not False  # the worker's word can only make it stricter
    return TimedCalls(ctx, worker, case, check, StoppingRule(**(rule or {"budget_s": settings.budget_s})),
                      guard_holds_gpu=holds).run()


def place_call(ctx: CallContext, worker: Worker, case, seed: int, drawn=None) -> dict:
    """A call's arguments drawn from ``seed`` (``drawn``: a LeetGPU test's values, as its generator drew them)
    and placed in ``worker``'s shared memory; the request's fields."""
    call = ctx.reference.call_arguments(case.params, seed, drawn) if drawn is not None else \
        ctx.reference.call_arguments(case.params, seed)
    return worker.place(ctx.reference.spec.parameters, call)


class TimedCalls:
    """The judge's side of one case's timed calls (docs/timing.md): seeds, samples, audits, verifications."""

    def __init__(self, ctx: CallContext, worker: Worker, case, check: bool, rule: StoppingRule,
                 guard_holds_gpu: bool = True):
        self.ctx, self.worker, self.case, self.check, self.rule = ctx, worker, case, check, rule
        self.what = f"benchmark {case.name}"
        self.timeout = ctx.settings.call_timeout + 5.0
        self.rng, self.plan = random.SystemRandom(), VerifyPlan()
        self.guard_holds_gpu = guard_holds_gpu  # as the warm-up's reply says (audit.disagrees)
        # The device's (median, 99th percentile) host-clock latency, measured as this case's calls are compared.
        self.latency_ms = _calibration(ctx.peaks, "host_overhead_us" if guard_holds_gpu else "seen_overhead_us")
        self.overhead_ms = self.latency_ms[1] if self.latency_ms else None
        self.samples, self.audits, self.walls = [], [], []
        self.verified = self.dropped = self.kept_exposed = 0
        self.timing_s = self.verifying_s = self.inputs_s = 0.0
        self.drawn = None  # a LeetGPU test: the values of the last timed call (case.redraw), which verify checks

    def run(self) -> TimedRun:
        """Timed calls until the stopping rule says stop, the verifications the judge picks, then ``end``."""
        started, decision, index = time.perf_counter(), None, 0
        while True:
            seed = self.rng.randrange(2**63)
            kept = self.one_call(seed)
            spent = self.timing_s + self.inputs_s  # a LeetGPU test's fresh values count in the budget
            decision = self.rule.decide(self.samples, spent) if kept and _check_now(len(self.samples)) else None
            last = decision is not None and decision.stop
            if self.check and (last or self.plan.wants(index)):  # decided now: the call is over
                self.verify(seed)
            if last:
                break
            index += 1
            if index > 2 * self.rule.max_calls + 100:  # every sample dropped: the guard never grew to cover them
                raise BenchFailure(Verdict.RUNTIME_ERROR, "no timed call could be measured (every one was dropped)")
        done = _exchange(self.worker, self.worker.request, {"op": "end"}, self.timeout, self.what)[0]
        self.count_hidden_work()
        return TimedRun(samples_ms=self.samples, audits=self.audits, verified=self.verified,
                        stop_reason=decision.reason, elapsed_s=time.perf_counter() - started,
                        verifying_s=self.verifying_s, inputs_s=self.inputs_s, warmup_s=_number(done, "warmup_s"),
                        launch_guard_us=_number(done, "launch_guard_us"), exposed_dropped=self.dropped,
                        exposed_kept=self.kept_exposed, flush_bytes=done.get("flush_bytes"),
                        guard_holds_gpu=done.get("guard_holds_gpu"), judge_wall_ms=_median(self.walls))

    def one_call(self, seed: int) -> bool:
        """One timed call; whether its sample counts (False: it held host time and was dropped)."""
        fields = self.place(seed)
        asked = time.perf_counter()
        header, _ = _exchange(self.worker, self.worker.request, {"op": "time", **fields}, self.timeout, self.what)
        wall_ms = (time.perf_counter() - asked) * 1e3
        outside = self.worker.stores_outside()
        if outside:
            raise BenchFailure(Verdict.RUNTIME_ERROR, "\n".join(outside))
        try:
            audit = parse_audit(header)
        except ValueError as exc:
            raise BenchFailure(Verdict.RUNTIME_ERROR, f"malformed timed call from the solution's process: {exc}") from None
        forged = forged_call(audit, wall_ms)
        if forged:
            raise BenchFailure(Verdict.RUNTIME_ERROR, f"impossible timings from the solution's process: {forged} "
                                                      "(the worker's reply was tampered with)")
        self.timing_s += wall_ms / 1e3
        self.walls.append(wall_ms)
        if header.get("dropped") is True:
            self.dropped += 1
            return False
        flagged = disagrees(audit, self.overhead_ms, self.guard_holds_gpu)
        self.audits.append([audit.host_ms, audit.event_ms, audit.tail_ms, int(flagged)])
        self.samples.append(audited_sample(audit, self.overhead_ms, self.guard_holds_gpu))
        self.kept_exposed += header.get("exposed") is True
        return True

    def place(self, seed: int) -> dict:
        """The next timed call's inputs, drawn here from ``seed`` (a LeetGPU test: its generator run again from
        it, ``ShippedCase.redraw``) and placed while the solution's process is frozen, so that no timed call sees
        another's values; the seconds it takes count in the case's time budget."""
        started = time.perf_counter()
        redraw = getattr(self.case, "redraw", None)
        self.drawn = None  # freed before the next one is drawn
        if redraw is not None:
            self.drawn = redraw(seed)  # a generator that fails raises LeetGpuError, as when the test was first built
        fields = place_call(self.ctx, self.worker, self.case, seed, self.drawn)
        self.inputs_s += time.perf_counter() - started
        return fields

    def count_hidden_work(self) -> None:
        """Work the events missed in every call, each time under the per-call allowance (audit.case_excess_ms):
        then every call counts its host-clock time less the device's typical latency, and disagrees."""
        hidden = case_excess_ms(self.audits, self.latency_ms, self.guard_holds_gpu)
        if hidden is None:
            return
        typical = self.latency_ms[0]
        self.samples = [max(sample, a[1], seen_ms(a, self.guard_holds_gpu) - typical)
                        for sample, a in zip(self.samples, self.audits)]
        self.audits = [[*a[:3], 1] for a in self.audits]

    def verify(self, seed: int) -> None:
        """The last call's outputs, read from the shared memory, against the judge's reference for ``seed``; a
        mismatch is a wrong answer."""
        sent = time.perf_counter()
        ref = self.ctx.reference
        drawn = {"case": self.drawn} if self.drawn is not None else {}  # the values this call saw
        outputs = [p.name for p in self.ctx.reference.spec.parameters if getattr(p, "role", "in") != "in"]
        got = self.worker.results(outputs)
        try:
            bad = [m for m in ref.check(self.case.params, seed, got, **drawn) if not m.ok]
        except JudgeOutOfMemory as exc:
            if self.ctx.free_gpu_memory is not None:  # a rank's participant has none: it drops out
                self.ctx.free_gpu_memory()
            raise BenchFailure(Verdict.RUNTIME_ERROR, str(exc)) from None
        self.verified += 1
        self.verifying_s += time.perf_counter() - sent
        if bad:
            message = "a timed call returned a wrong result: " + " | ".join(m.message() for m in bad)
            message += UNWRITTEN_WHEN_TIMED if "never written" in message else ""
            diagnosis = _AGAIN.get(self.fails_again(seed, bad))
            raise BenchFailure(Verdict.WRONG_ANSWER, message + (f"\n{diagnosis}" if diagnosis else ""))

    def fails_again(self, seed: int, bad: list) -> str | None:
        """The failed timed call's inputs placed once more, in an untimed ``call``: "same" (it failed in the same
        elements), "differs" (it failed in others), "passes" (it was right: both are another answer from the
        same inputs, a race or undefined behaviour); None when that call could not be made or checked (the
        rejection stands either way).  The message's first line stays what happened, the timed call's wrong
        result; the diagnosis follows it (issue 45 item 7)."""
        ref = self.ctx.reference
        drawn = {"case": self.drawn} if self.drawn is not None else {}
        try:
            fields = place_call(self.ctx, self.worker, self.case, seed, self.drawn)
            _exchange(self.worker, self.worker.request, {"op": "call", **fields}, self.timeout, self.what)
            again = [m for m in ref.check(self.case.params, seed, self.worker.results(), **drawn) if not m.ok]
        except (BenchFailure, JudgeOutOfMemory, SubmissionInvalid, WorkerCrashed, WorkerTimeout):
            return None
        if not again:
            return "passes"
        return "same" if failed_alike(bad, again) else "differs"


# What the untimed call on a failed timed call's inputs says about the failure (TimedCalls.fails_again).
_AGAIN = {"same": SAME_AGAIN, "differs": NONDETERMINISTIC, "passes": f"{RIGHT_UNTIMED}; {NONDETERMINISTIC}"}


def _calibration(peaks: dict | None, key: str = "host_overhead_us") -> tuple[float, float] | None:
    """The device's host-clock latency around a timed call (median, 99th percentile; ms), from the peaks:
    ``host_overhead_us`` for ``Audit.host_ms``, ``seen_overhead_us`` for ``Audit.seen_ms`` (peaks.py)."""
    overhead = peaks.get(key) if isinstance(peaks, dict) else None
    if not isinstance(overhead, list) or len(overhead) < 2 or not all(type(x) in (int, float) for x in overhead[:2]):
        return None
    return overhead[0] / 1e3, overhead[1] / 1e3


def _check_now(n: int) -> bool:
    """Evaluate the stopping rule at every call up to 100, then every n/100 calls (sorting is O(n log n))."""
    return n <= 100 or n % max(1, n // 100) == 0


def _number(message: dict, key: str):
    value = message.get(key)
    return value if type(value) in (int, float) else None


def _median(values: list) -> float | None:
    return sorted(values)[len(values) // 2] if values else None


def _exchange(worker, method, *args):
    """``worker.request`` or ``worker.receive``, with failures as BenchFailure."""
    try:
        reply, blobs = method(*args)
    except WorkerTimeout as exc:
        raise BenchFailure(Verdict.TIME_LIMIT_EXCEEDED, str(exc)) from None
    except WorkerCrashed as exc:
        raise BenchFailure(Verdict.RUNTIME_ERROR, f"{exc}\n{worker.output_tail()}".strip()) from None
    return _ok(reply), blobs


def _ok(reply: dict) -> dict:
    if not reply.get("ok"):
        try:
            verdict = Verdict(reply.get("verdict", "runtime_error"))
        except ValueError:
            verdict = Verdict.RUNTIME_ERROR
        raise BenchFailure(verdict, str(reply.get("message", "")))
    return reply


def timing_summary(done: TimedRun, timer_floor_ms: float | None = None) -> dict:
    """Statistics of a case's timed calls: the samples (each the events' time, or the host clock's where
    the two disagreed: audit.py), the calls that disagreed, and the notes.

    ``timer_floor_ms`` (the device's, from the peaks) goes into a launch-bound case's note.  The dict is
    the statistics' wire shape: these keys of a JSON entry, in this order (CaseTiming.record keeps it).
    """
    stats = Stats(done.samples_ms)
    audits = done.audits
    flagged = sum(1 for a in audits if len(a) > 3 and a[3])
    out = {"median_ms": stats.median, "ci_low_ms": stats.ci_low, "ci_high_ms": stats.ci_high,
           "min_ms": stats.min, "max_ms": stats.max, "mean_ms": stats.mean, "calls": stats.n,
           "stop_reason": done.stop_reason, "verified_calls": done.verified, "audited_calls": len(audits),
           "disagreeing_calls": flagged, "launch_bound": launch_bound(stats.median),
           "timer_trusted": flagged * 2 < max(1, len(audits)), "notes": [],
           "samples_ms": [round(s, 6) for s in done.samples_ms],
           "phases_s": {k: round(v, 3) for k, v in done.phases().items()},
           "launch_guard_us": done.launch_guard_us, "exposed_dropped": done.exposed_dropped,
           "exposed_kept": done.exposed_kept, "guard_holds_gpu": done.guard_holds_gpu,
           "judge_wall_ms": done.judge_wall_ms, "audits_ms": audits}
    if flagged:
        events = sorted(a[1] for a in audits)
        out["event_median_ms"] = events[len(events) // 2]
        out["notes"].append(audit_note(flagged, len(audits), out["event_median_ms"], stats.median))
    if out["exposed_kept"]:
        out["notes"].append(exposed_note(out["exposed_kept"], stats.n))
    if out["guard_holds_gpu"] is False:
        out["notes"].append(unheld_guard_note())
    if out["launch_bound"]:
        out["timer_floor_ms"] = timer_floor_ms
        out["notes"].append(launch_bound_note(timer_floor_ms))
    return out


def baseline_reads(spec) -> tuple[str, ...]:
    """What the torch baseline's worker reads beside its file: a LeetGPU challenge's checkout, whose
    ``reference_impl`` (and ``core`` package) it imports (trusted code, as the judge's own imports of it)."""
    if getattr(spec, "shipped", False):
        return (str(Path(spec.source).resolve().parent.parent),)
    return ()


def baseline_file(spec, directory: str) -> str:
    path = Path(directory) / f"torch_{spec.name}.py"
    # The baseline computes in exact fp32, as the judge's reference does (exact_math.py): its time is
    # that of an answer the judge accepts (cuDNN's default TF32 convolution is not one).
    path.write_text("import math\nimport torch\n\n" + spec.baseline_code + "\n\n\ndef solve(*args):\n"
                    + exact_statements() + "    return baseline(*args)\n")
    return str(path)


def run_benchmarks(ctx: BenchContext, cases: list) -> BenchOutcome:
    """Time ``cases`` in the solution's worker, then the torch baseline; a case rejected stops the stage
    (and rejects the solution).  Returns the entries, the peaks, the notes and the phases' seconds, which
    the runner records (Runner.record_benchmarks)."""
    phases: dict[str, float] = {}
    started = time.perf_counter()
    if ctx.baseline is not None:  # loaded now, so that it is idle while the solution is timed
        ctx.baseline.ready(ctx.settings.compile_timeout)
    phases["baseline_ready"] = time.perf_counter() - started
    peaks = ctx.peaks  # measured while the worker imported (Runner.measure_peaks_first)
    if peaks is None:
        started = time.perf_counter()
        peaks = get_peaks(ctx.device, ctx.environment, ctx.settings.remeasure_peaks)
        phases["peaks"] = time.perf_counter() - started
    ctx = ctx.with_peaks(peaks)
    outcome = BenchOutcome(peaks, phases_s=phases)
    probe = Probe(ctx.device, peaks.get("copy_gbps"), ctx.own_pids)
    wait_s = ctx.settings.wait_for_gpu_s
    if wait_s > 0 and not wait_for_gpu(ctx.device, ctx.own_pids(), wait_s, ctx.status):
        outcome.notes.append(f"the GPU was still in use by another process after --wait-for-gpu {wait_s:g} s; "
                             "timed anyway")
    try:  # in this GPU's turn: Runner.run holds it
        outcome.entries = _time_cases(ctx, cases, probe)
        if all(entry.accepted for entry in outcome.entries):
            ctx.status("timing the torch baseline")
            started = time.perf_counter()
            ctx.stop_solution_worker()  # nothing of the solution's may run while torch is timed (and cached)
            outcome.notes.extend(_time_baseline(ctx, outcome.entries, cases, probe))
            phases["torch_baseline"] = time.perf_counter() - started
    finally:
        probe.close()
    return outcome


def _time_cases(ctx: BenchContext, cases: list, probe: Probe) -> list[CaseTiming]:
    """Each case timed and checked, with the GPU's state around it, up to the first case rejected."""
    entries = []
    for case in cases:
        ctx.status(f"timing {case.name} ({case.label()})")
        entries.append(_time_case(ctx, case, probe))
        if not entries[-1].accepted:
            break
    return entries


def _time_case(ctx: BenchContext, case, probe: Probe) -> CaseTiming:
    """One case in the solution's worker: its statistics, then the physical floor and the GPU's checks."""
    entry = CaseTiming(case.name, dict(case.params))
    started = time.perf_counter()
    try:
        worker = ctx.solution_worker()
        before = probe.check()
        done = bench_case(ctx.calls, worker, case, check=True)
        after = probe.check()
        entry.record(timing_summary(done, _floor_ms(ctx.peaks)))
        entry.phases_s["judge_wall_s"] = round(time.perf_counter() - started, 3)
        refuse_below_floor(entry.median_ms, ctx.spec, case, ctx.peaks, ctx.environment)
        note_contention(entry, before, after)
    except BenchFailure as exc:  # a rejection after the statistics keeps them (the floor's)
        entry.fail(exc.verdict, exc.message)
    except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
        entry.fail(Verdict.RUNTIME_ERROR, str(exc))
    return entry


def note_contention(entry: CaseTiming, before: dict, after: dict) -> None:
    """The GPU's state around a case's timed calls in its entry; a note when it was shared (contention.py)."""
    note = contention_note(before, after)
    entry.gpu_checks = {"before": before, "after": after}
    if note:
        entry.contention = True
        entry.notes.append(note)


def refuse_below_floor(median_ms: float, spec, case, peaks: dict | None, environment: dict) -> None:
    """Raise BenchFailure when a case's median is faster than the GPU can go (speed.below_floor):
    such a time is never reported, whatever fooled the timer (docs/timing.md, "Times obey physics")."""
    nbytes, flops = floor_cost(spec, case)
    why = below_floor(median_ms, nbytes, flops, peaks, int(environment.get("l2_bytes") or 0))
    if why:
        raise BenchFailure(Verdict.RUNTIME_ERROR, f"{case.name}: {why}; rejected")


def floor_cost(spec, case) -> tuple[float, float]:
    """(bytes, flops) the physical floor rests on: the spec's cost formulas (its author's "what a call must
    move at least"); for a LeetGPU test only the bytes its outputs must be written with, since nothing
    says its inputs are all read (a lookup into a table reads a few rows)."""
    if getattr(spec, "kernelbench", False):  # a KernelBench problem's outputs, which forward must write
        return float(spec.floor_bytes), 0.0
    if hasattr(case, "arguments"):
        return float(sum(value.nbytes for name, value in case.arguments.items()
                         if hasattr(value, "nbytes") and case.roles.get(name) != "in")), 0.0
    return spec.bytes_moved(case.params), spec.flops(case.params)


def _floor_ms(peaks: dict) -> float | None:
    floor_us = peaks.get("timer_floor_us")
    return floor_us / 1e3 if isinstance(floor_us, (int, float)) and floor_us > 0 else None


def _time_baseline(ctx: BenchContext, entries: list[CaseTiming], cases: list, probe: Probe | None = None) -> list[str]:
    """Rates and % of peak for every case, and the torch baseline (cached per device); the run's notes on it."""
    spec, settings = ctx.spec, ctx.settings
    wanted = []
    for entry, case in zip(entries, cases):
        entry.cost = case_cost(spec, case)
        entry.rates = speed_of_light(entry.median_ms, *entry.cost, spec.bound, ctx.peaks)
        wanted.append((entry, case, baseline_key(ctx.environment, spec, case.params, settings.budget_s)))
    missing = _still_missing(wanted, settings.remeasure_peaks)
    if not missing:
        return []
    with cache_lock(_baseline_lock(spec)):  # one process of this host times a challenge's baseline at a time
        missing = _still_missing(missing, settings.remeasure_peaks)
        return _measure_baselines(ctx, missing, probe) if missing else []


def _baseline_lock(spec) -> str:
    return "baseline-" + hashlib.sha256(spec.name.encode()).hexdigest()[:16]


def _still_missing(missing: list, remeasure: bool) -> list:
    """The (entry, case, key) that are not cached, the others filled from the cache.  Asked
    again under the lock: another process of this host (a Dask worker grading the same
    challenge on the next GPU) may have timed them while this one waited for it."""
    if remeasure:
        return missing
    left = []
    for entry, case, key in missing:
        cached = cached_baseline(key)
        if cached:
            entry.torch = TorchTiming.of(cached, cached=True)
        else:
            left.append((entry, case, key))
    return left


def case_cost(spec, case) -> tuple[float, float]:
    """(bytes, flops) of a case: the spec's formulas, or a shipped case's tensor bytes (no flop count)."""
    if hasattr(case, "nbytes"):
        return float(case.nbytes), 0.0
    return spec.bytes_moved(case.params), spec.flops(case.params)


class BaselineWorker:
    """The torch baseline's worker, spawned when a run starts if a baseline is not
    cached, so that its imports (seconds, on a fresh machine) overlap the solution's
    functional tests instead of following its benchmarks.  ``ready`` loads it before
    the solution's timed calls, so that it sits idle while they are timed."""

    def __init__(self, ctx: BenchContext):
        self.tmp = tempfile.TemporaryDirectory(prefix="judge-baseline-")
        self.worker = ctx.new_worker(baseline_file(ctx.spec, self.tmp.name), baseline_reads(ctx.spec))
        self.worker.spawn()
        self.started, self.problem = False, None

    def ready(self, timeout: float) -> None:
        try:
            self.worker.start(timeout)
            self.started = True
        except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
            self.problem = exc

    def stop(self) -> None:
        self.worker.stop()
        self.tmp.cleanup()


def baseline_needed(ctx: BenchContext, cases: list) -> bool:
    """Whether some benchmark case's torch baseline is not cached (so a run times it)."""
    if ctx.settings.remeasure_peaks:
        return bool(cases)
    return any(cached_baseline(baseline_key(ctx.environment, ctx.spec, c.params, ctx.settings.budget_s)) is None
               for c in cases)


def _measure_baselines(ctx: BenchContext, missing: list, probe: Probe | None = None) -> list[str]:
    """Time the torch baseline on the (entry, case, key) not cached, in its worker (the one spawned
    at the start, else a new one), and cache each time; the run's notes when it could not be timed."""
    baseline = ctx.baseline or BaselineWorker(ctx)
    ctx.release_baseline()  # stopped below, whatever happens
    try:
        if not baseline.started and baseline.problem is None:
            baseline.ready(ctx.settings.compile_timeout)
        if baseline.problem is not None:
            return [f"the torch baseline could not be timed: {baseline.problem}"]
        for entry, case, key in missing:
            _time_torch(ctx.calls, baseline.worker, entry, case, key, probe)
    except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
        return [f"the torch baseline could not be timed: {exc}"]
    finally:
        baseline.stop()
    return []


def _time_torch(calls: CallContext, worker: Worker, entry: CaseTiming, case, key: str, probe: Probe | None) -> None:
    """One case's torch baseline into its entry; cached unless the GPU was shared meanwhile."""
    started = time.perf_counter()
    before = probe.check() if probe is not None else {}
    try:
        summary = timing_summary(bench_case(calls, worker, case, check=False))
    except BenchFailure as exc:
        entry.notes.append(f"torch baseline failed: {exc.message.splitlines()[0]}")
        return
    entry.torch = TorchTiming.of(summary, cached=False)
    if contention_note(before, probe.check() if probe is not None else {}):  # a busy GPU: not cached
        entry.notes.append("the torch baseline was timed on a shared GPU: its time is not cached")
        return
    store_baseline(key, {k: summary[k] for k in ("median_ms", "ci_low_ms", "ci_high_ms", "calls")})
    entry.phases_s["torch_wall_s"] = round(time.perf_counter() - started, 3)
