"""The benchmark stage of a run (GPU only), in the judge's process.

For each benchmark case: ask the solution's worker to time it (timed_loop.py),
check every verified call against the judge's own reference, cross-check the
events with the host clock, then time the challenge's torch baseline the same
way in a worker of its own, and add rates and % of peak.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from pathlib import Path

from judge.challenge.shipped import request_payload
from judge.judging.reference import BadReply, JudgeOutOfMemory
from judge.judging.verdict import Verdict
from judge.worker.client import SubmissionInvalid, Worker, WorkerCrashed, WorkerTimeout
from judge.timing.audit import cross_check, exposed_note, launch_bound, launch_bound_note, parse_audits, unheld_guard_note
from judge.timing.seeds import case_seed as derive_case_seed, timed_seed
from judge.timing.peaks import baseline_key, cache_lock, cached_baseline, get_peaks, store_baseline
from judge.timing.speed import speed_of_light, speedup_text
from judge.timing.stats import Stats

__all__ = ["run_benchmarks", "bench_case"]


# Outputs are poisoned again by the launch guard's kernel, before it flushes (timed_loop.Repoison).
UNWRITTEN_WHEN_TIMED = (" (in timed calls the outputs are poisoned again just before the timed region: work that"
                        " solve() puts on another stream must first wait for the current one, e.g."
                        " side.wait_stream(torch.cuda.current_stream()))")


class BenchFailure(Exception):
    def __init__(self, verdict: Verdict, message: str):
        super().__init__(message)
        self.verdict, self.message = verdict, message


def bench_case(runner, worker: Worker, case, check: bool, rule: dict | None = None) -> dict:
    """Time one case in ``worker``; returns the raw numbers (raises BenchFailure).

    ``rule`` is passed to the worker's StoppingRule; by default the run's time
    budget (``judge rank`` asks for exactly k calls per round instead).
    """
    opts = runner.options
    rule = rule or {"budget_s": opts.bench_budget_s}
    what = f"benchmark {case.name}"
    case_seed = derive_case_seed(runner.seed, case.name)  # the run's seed never reaches the worker
    if runner.reference is not None:
        worker.expect_reply(runner.reference.reply_sizes(case.params, outputs_only=True))
    shipped, inputs = request_payload(case)  # a LeetGPU test's inputs travel with the request
    request = {"op": "bench", "case": case.name, "params": case.params, "seed": case_seed, "rule": rule,
               "verify": check, **shipped}
    extra = {"blobs": inputs} if inputs else {}  # by name: request's fourth parameter is the compile cap
    header, _ = _exchange(worker, lambda: worker.request(request, opts.compile_timeout, f"warm-up of {what}", **extra))
    problems, verified = [], set()
    while True:
        header, blobs = _exchange(worker, worker.receive, opts.call_timeout() + 5.0, what)
        if header.get("op") == "bench_done":
            break
        if header.get("op") == "tick":  # the worker is alive and still timing
            continue
        if check:
            index = _verified_call(runner, case, header, blobs, case_seed, problems)
            verified.add(index)
            _say_checked(worker)  # the worker waits for this: its next timed call starts now
    if problems:
        raise BenchFailure(Verdict.WRONG_ANSWER, "a timed call returned a wrong result: " + problems[0]
                           + (UNWRITTEN_WHEN_TIMED if "never written" in problems[0] else ""))
    _check_bench_done(header, verified, check)
    return header


def _verified_call(runner, case, header: dict, blobs: list, case_seed: int, problems: list) -> int:
    """Check one ``verify`` message; the judge derives the call's seed from its index itself."""
    index = header.get("call")
    if type(index) is not int or index < 0:
        raise BenchFailure(Verdict.RUNTIME_ERROR, "malformed verify message from the solution's process")
    try:
        got = runner.reference.decode(case.params, header, blobs, outputs_only=True)
    except BadReply as exc:
        raise BenchFailure(Verdict.RUNTIME_ERROR, f"malformed reply from the solution's process: {exc}") from None
    try:
        bad = [m for m in runner.reference.check(case.params, timed_seed(case_seed, index), got) if not m.ok]
    except JudgeOutOfMemory as exc:
        runner.stop_worker_for_memory()
        raise BenchFailure(Verdict.RUNTIME_ERROR, str(exc)) from None
    if bad and not problems:
        problems.append(f"timed call {index}: " + " | ".join(m.message() for m in bad))
    return index


def _check_bench_done(done: dict, verified: set, check: bool) -> None:
    """The worker's ``bench_done`` is well formed and its last timed call was among the verified ones."""
    samples = done.get("samples_ms")
    if not isinstance(samples, list) or not samples or not all(isinstance(x, (int, float)) for x in samples):
        raise BenchFailure(Verdict.RUNTIME_ERROR, "the solution's process sent no timings")
    dropped = done.get("exposed_dropped", 0)  # calls whose samples held host time (timed_loop.py)
    if type(dropped) is not int or dropped < 0:
        raise BenchFailure(Verdict.RUNTIME_ERROR, "malformed bench_done message from the solution's process")
    try:
        parse_audits(done.get("audits"))
    except ValueError as exc:
        raise BenchFailure(Verdict.RUNTIME_ERROR,
                           f"malformed bench_done message from the solution's process: {exc}") from None
    if check and len(samples) + dropped - 1 not in verified:
        raise BenchFailure(Verdict.RUNTIME_ERROR, "the last timed call was not sent back for checking "
                                                  "(the worker's reply was tampered with)")


def _say_checked(worker) -> None:
    try:
        worker.checked()
    except WorkerCrashed as exc:
        raise BenchFailure(Verdict.RUNTIME_ERROR, f"{exc}\n{worker.output_tail()}".strip()) from None


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
        raise BenchFailure(Verdict(reply.get("verdict", "runtime_error")), reply.get("message", ""))
    return reply


def timing_summary(done: dict, timer_floor_ms: float | None = None) -> dict:
    """Statistics of a ``bench_done`` reply, with the host-clock cross-check applied.

    ``timer_floor_ms`` (the device's, from the peaks) goes into a launch-bound case's note.
    """
    stats = Stats(done["samples_ms"])
    check = cross_check(parse_audits(done["audits"]))
    out = {"median_ms": stats.median, "ci_low_ms": stats.ci_low, "ci_high_ms": stats.ci_high,
           "min_ms": stats.min, "max_ms": stats.max, "mean_ms": stats.mean, "calls": stats.n,
           "stop_reason": done["stop_reason"], "verified_calls": done["verified"], "audited_calls": len(done["audits"]),
           "launch_bound": launch_bound(stats.median), "timer_trusted": check.ok, "notes": [],
           "samples_ms": [round(s, 6) for s in done["samples_ms"]],
           "phases_s": {k: round(done.get(k, 0.0), 3) for k in ("warmup_s", "elapsed_s", "verifying_s")},
           "launch_guard_us": done.get("launch_guard_us"), "exposed_dropped": done.get("exposed_dropped", 0),
           "exposed_kept": done.get("exposed_kept", 0), "guard_holds_gpu": done.get("guard_holds_gpu"),
           "audits_ms": done["audits"]}
    if not check.ok:
        out.update(median_ms=check.honest_ms, ci_low_ms=check.honest_ms, ci_high_ms=check.honest_ms,
                   event_median_ms=stats.median)
        out["notes"].append(check.reason)
    if out["exposed_kept"]:
        out["notes"].append(exposed_note(out["exposed_kept"], stats.n))
    if out["guard_holds_gpu"] is False:
        out["notes"].append(unheld_guard_note())
    if out["launch_bound"]:
        out["timer_floor_ms"] = timer_floor_ms
        out["notes"].append(launch_bound_note(timer_floor_ms))
    return out


def baseline_file(spec, directory: str) -> str:
    path = Path(directory) / f"torch_{spec.name}.py"
    path.write_text("import math\nimport torch\n\n" + spec.baseline_code + "\n\nsolve = baseline\n")
    return str(path)


def run_benchmarks(runner, cases: list) -> None:
    """Fill ``runner.result.benchmarks``; a failure there rejects the solution."""
    result = runner.result
    started = time.perf_counter()
    if runner.baseline is not None:  # loaded now, so that it is idle while the solution is timed
        runner.baseline.ready(runner.options.compile_timeout)
    result.phases_s["baseline_ready"] = time.perf_counter() - started
    peaks = getattr(runner, "peaks", None)  # measured while the worker imported (Runner.measure_peaks_first)
    if peaks is None:
        started = time.perf_counter()
        peaks = get_peaks(runner.device, result.environment, runner.options.remeasure_peaks)
        result.phases_s["peaks"] = time.perf_counter() - started
    result.environment["peaks"] = peaks
    for case in cases:
        runner.events.status(f"timing {case.name} ({case.label()})")
        entry = {"name": case.name, "params": dict(case.params), "verdict": "accepted", "message": ""}
        started = time.perf_counter()
        try:
            runner.ensure_worker()
            entry.update(timing_summary(bench_case(runner, runner.worker, case, check=True), _floor_ms(peaks)))
            entry["phases_s"]["judge_wall_s"] = round(time.perf_counter() - started, 3)
        except BenchFailure as exc:
            entry.update(verdict=exc.verdict.value, message=exc.message)
        except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
            entry.update(verdict=Verdict.RUNTIME_ERROR.value, message=str(exc))
        result.benchmarks.append(entry)
        if entry["verdict"] != "accepted":
            return
    runner.events.status("timing the torch baseline")
    started = time.perf_counter()
    _time_baseline(runner, cases, peaks)
    result.phases_s["torch_baseline"] = time.perf_counter() - started


def _floor_ms(peaks: dict) -> float | None:
    floor_us = peaks.get("timer_floor_us")
    return floor_us / 1e3 if isinstance(floor_us, (int, float)) and floor_us > 0 else None


def _time_baseline(runner, cases: list, peaks: dict) -> None:
    """Rates and % of peak for every case, and the torch baseline (cached per device)."""
    spec, result = runner.spec, runner.result
    wanted = []
    for entry, case in zip(result.benchmarks, cases):
        entry["bytes"], entry["flops"] = case_cost(spec, case)
        entry.update(speed_of_light(entry["median_ms"], entry["bytes"], entry["flops"], spec.bound, peaks))
        wanted.append((entry, case, baseline_key(result.environment, spec, case.params, runner.options.bench_budget_s)))
    missing = _still_missing(wanted, runner.options.remeasure_peaks)
    if not missing:
        return
    with cache_lock(_baseline_lock(spec)):  # one process of this host times a challenge's baseline at a time
        missing = _still_missing(missing, runner.options.remeasure_peaks)
        if missing:
            _measure_baselines(runner, missing)


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
            _add_torch(entry, dict(cached, cached=True))
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

    def __init__(self, runner):
        self.tmp = tempfile.TemporaryDirectory(prefix="judge-baseline-")
        self.worker = runner.new_worker(baseline_file(runner.spec, self.tmp.name))
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


def baseline_needed(runner, cases: list) -> bool:
    """Whether some benchmark case's torch baseline is not cached (so a run times it)."""
    if runner.options.remeasure_peaks:
        return bool(cases)
    return any(cached_baseline(baseline_key(runner.result.environment, runner.spec, c.params,
                                            runner.options.bench_budget_s)) is None for c in cases)


def _measure_baselines(runner, missing: list) -> None:
    baseline = runner.baseline or BaselineWorker(runner)
    runner.baseline = None
    try:
        if not baseline.started and baseline.problem is None:
            baseline.ready(runner.options.compile_timeout)
        if baseline.problem is not None:
            runner.result.notes.append(f"the torch baseline could not be timed: {baseline.problem}")
            return
        for entry, case, key in missing:
            started = time.perf_counter()
            try:
                summary = timing_summary(bench_case(runner, baseline.worker, case, check=False))
            except BenchFailure as exc:
                entry["notes"].append(f"torch baseline failed: {exc.message.splitlines()[0]}")
                continue
            _add_torch(entry, summary)
            store_baseline(key, {k: summary[k] for k in ("median_ms", "ci_low_ms", "ci_high_ms", "calls")})
            entry.setdefault("phases_s", {})["torch_wall_s"] = round(time.perf_counter() - started, 3)
    except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
        runner.result.notes.append(f"the torch baseline could not be timed: {exc}")
    finally:
        baseline.stop()


def _add_torch(entry: dict, torch_timing: dict) -> None:
    entry["torch_cached"] = bool(torch_timing.get("cached"))
    entry["torch_median_ms"] = torch_timing["median_ms"]
    entry["torch_ci_ms"] = [torch_timing["ci_low_ms"], torch_timing["ci_high_ms"]]
    entry["speedup_vs_torch"] = torch_timing["median_ms"] / entry["median_ms"]
    entry["vs_torch"] = speedup_text(entry["median_ms"], torch_timing["median_ms"])
