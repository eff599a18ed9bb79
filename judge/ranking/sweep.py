"""``judge sweep``: bandwidth (or TFLOP/s) against size, per solution, on a GPU.

The chart people draw by hand in transpose tutorials.  Every size is a case
timed in the same interleaved rounds as ``judge rank`` (the torch baseline
included), every timed call's output is verified, but the full functional
test suite is not run (``judge rank`` does that).
"""

from __future__ import annotations

import math
import random
import tempfile
from dataclasses import replace

from judge.challenge.cases import Case, describe
from judge.ranking.ranking_math import RoundPlan
from judge.ranking.rank_runner import TORCH, Participant, RankEvents, run_rounds, start_torch, timed_entry
from judge.judging.runner import Options, Runner, detect_mode, environment, headline
from judge.challenge.tensors import TORCH_DTYPES

__all__ = ["SweepUnavailable", "parse_sizes", "default_sizes", "sweep", "sweep_plan", "MAX_SWEEP_BYTES"]

MAX_SWEEP_BYTES = 2 * 1024**3  # tensors of one size, in all (as for GPU test cases)
DEFAULT_POINTS = 6


class SweepUnavailable(RuntimeError):
    """A sweep that cannot be done (CPU mode, bad sizes); the message is for the user."""


def parse_sizes(text: str, spec) -> list[dict]:
    """``1024,2048`` (every size parameter = N) or ``rows=7000:cols=6000,4096``."""
    sizes = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        if "=" in item:
            params = {}
            for pair in item.split(":"):
                name, _, value = pair.partition("=")
                params[name.strip()] = _int(value, item)
            missing = set(spec.sizes) - set(params)
            extra = set(params) - set(spec.sizes)
            if missing or extra:
                raise SweepUnavailable(f"size '{item}': give every size parameter of {spec.name} "
                                       f"({', '.join(spec.sizes)}) and no other")
        else:
            params = {name: _int(item, item) for name in spec.sizes}
        sizes.append({n: params[n] for n in spec.sizes})
    if not sizes:
        raise SweepUnavailable("--sizes is empty")
    for params in sizes:
        check_size(spec, params)
    return sizes


def _int(value: str, item: str) -> int:
    try:
        return int(value.strip())
    except ValueError:
        raise SweepUnavailable(f"size '{item}': '{value}' is not an integer") from None


def case_bytes(spec, params: dict) -> int:
    return sum(math.prod(spec.shape_of(t, params)) * TORCH_DTYPES[t.dtype].itemsize for t in spec.tensors)


def check_size(spec, params: dict) -> None:
    if not spec.satisfies(params):
        ranges = ", ".join(f"{lo} ≤ {n} ≤ {hi}" for n, (lo, hi) in spec.sizes.items())
        raise SweepUnavailable(f"size {describe(params)} is outside {spec.name}'s sizes ({ranges}) "
                               "or breaks one of its constraints")
    if case_bytes(spec, params) > MAX_SWEEP_BYTES:
        raise SweepUnavailable(f"size {describe(params)} needs more than {MAX_SWEEP_BYTES >> 30} GiB of tensors")


def default_sizes(spec, points: int = DEFAULT_POINTS) -> list[dict]:
    """The ``points`` largest powers of two N (all size parameters = N) that the spec allows."""
    low = max(lo for lo, _ in spec.sizes.values())
    high = min(hi for _, hi in spec.sizes.values())
    sizes = []
    for power in range(40, -1, -1):
        n = 2**power
        params = {name: n for name in spec.sizes}
        if low <= n <= high and spec.satisfies(params) and case_bytes(spec, params) <= MAX_SWEEP_BYTES:
            sizes.append(params)
        if len(sizes) == points:
            break
    if not sizes:
        raise SweepUnavailable(f"no power-of-two size fits {spec.name}'s ranges; give --sizes")
    return sorted(sizes, key=lambda p: max(p.values()))


def sweep_plan(participants: int, sizes: int, budget_s: float | None) -> RoundPlan:
    """Short rounds: at least 2, ±2 % is enough for a chart, 0.5 s per participant and size by default."""
    budget = budget_s if budget_s is not None else 0.5 * participants * sizes
    return RoundPlan(min_rounds=2, target_rel_ci=0.02, round_ms=50.0, budget_s=budget)


def sweep(spec, solutions: list[str], options: Options, sizes: list[dict], budget_s: float | None = None,
          events: RankEvents | None = None) -> dict:
    """Time every solution and the torch baseline at every size; the ``--json`` document's body."""
    interpret, device = detect_mode(options)
    if interpret:
        raise SweepUnavailable("judge sweep plots GPU timings, and this is CPU mode (Triton's interpreter, no "
                               "CUDA GPU): interpreter times say nothing about GPUs. Run it on a GPU; here, "
                               "'judge rank' checks correctness")
    events = events or RankEvents()
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    options = replace(options, seed=seed, benchmark=False)
    env = environment(device)
    cases = [Case(describe(p), "sweep", p) for p in sizes]
    doc = _new_doc(spec, seed, device, env, cases)
    runners, participants = [], []
    try:
        with tempfile.TemporaryDirectory(prefix="judge-sweep-") as tmp:
            participants = _start(spec, solutions, options, env, tmp, doc, runners)
            if participants:
                plan = sweep_plan(len(participants), len(cases), budget_s)
                rounds = run_rounds(participants, cases, plan, events)
                doc["method"] = {"rounds": rounds.rounds, "stop_reason": rounds.stop_reason,
                                 "elapsed_s": round(rounds.elapsed_s, 3), "budget_s": plan.budget_s}
                _fill_series(doc, spec, participants, cases, rounds)
    finally:
        for p in participants:
            p.close()
        for r in runners:
            r.close()
    return doc


def _new_doc(spec, seed: int, device: str, env: dict, cases: list[Case]) -> dict:
    from judge.timing.peaks import get_peaks

    peaks = get_peaks(device, env)
    metric, peak = _metric(spec, peaks)
    square = all(len(set(c.params.values())) == 1 for c in cases)
    return {"challenge": spec.name, "seed": seed, "mode": "gpu", "device": env.get("gpu", device),
            "bound": spec.bound, "metric": metric, "peak": peak, "peaks": peaks, "environment": env,
            "x_label": f"N ({' = '.join(spec.sizes)} = N)" if square else "size",
            "sizes": [{"label": c.name, "params": c.params, "x": max(c.params.values()) if square else i}
                      for i, c in enumerate(cases)],
            "series": [], "method": None,
            "notes": ["timed calls are verified at every size; the full functional tests are not run "
                      "(judge rank runs them)"]}


def _metric(spec, peaks: dict) -> tuple[str, dict | None]:
    if spec.bound == "compute" and spec.flops_formula not in (0, "0", None):
        return "tflops", {"name": "fp32 matmul peak (cuBLAS)", "value": peaks.get("fp32_tflops")}
    if spec.bytes_formula not in (0, "0", None):
        return "gbps", {"name": "copy bandwidth", "value": peaks.get("copy_gbps")}
    return "ms", None


def _start(spec, solutions, options, env, tmp, doc, runners) -> list[Participant]:
    """A worker per solution (and torch); one that cannot start becomes a failed series."""
    from judge.judging.reference import Reference
    from judge.worker.client import SubmissionInvalid, WorkerCrashed, WorkerTimeout

    reference = Reference(spec, detect_mode(options)[1])
    participants = []
    for path in solutions:
        runner = Runner(spec, path, options, RankEvents())
        runner.result.environment, runner.reference = env, reference
        runners.append(runner)
        if runner.start_worker():
            participants.append(Participant(path, options, options.seed, runner=runner))
        else:
            doc["series"].append(_failed(path, runner.result.verdict.value, runner.result.message))
    try:
        participants.append(start_torch(spec, detect_mode(options)[1], options, options.seed, tmp, reference))
    except (SubmissionInvalid, WorkerCrashed, WorkerTimeout) as exc:
        doc["notes"].append(f"the torch baseline could not be timed: {headline(str(exc))}")
    return participants


def _failed(name: str, verdict: str, message: str) -> dict:
    return {"name": name, "kind": "torch" if name == TORCH else "solution", "verdict": verdict,
            "message": headline(message), "points": []}


def _fill_series(doc: dict, spec, participants, cases, rounds) -> None:
    from judge.ranking.ranking_math import Estimate

    for p in participants:
        failure = rounds.failures.get(p.name)
        if failure is not None:
            where = f" at {p.failed_case.name}" if p.failed_case else ""
            doc["series"].append(_failed(p.name, failure.verdict, f"{failure.verdict}{where}: {failure.message}"))
            continue
        points = []
        for case in cases:
            entry = timed_entry(rounds, p, case)  # the host-clock cross-check applies here too
            e = Estimate(entry.median_ms, entry.ci_low_ms, entry.ci_high_ms)
            points.append(dict(_point(doc["metric"], spec, case, e), notes=entry.notes))
        doc["series"].append({"name": p.name, "kind": "torch" if p.name == TORCH else "solution",
                              "verdict": "accepted", "message": "", "points": points})


def _point(metric: str, spec, case: Case, e) -> dict:
    """Time and rate at one size; a rate's interval comes from the time's, flipped."""
    point = {"case": case.name, "params": case.params, "median_ms": e.median, "ci_low_ms": e.low,
             "ci_high_ms": e.high, "rate": None, "rate_low": None, "rate_high": None}
    amount = {"gbps": spec.bytes_moved(case.params) / 1e9, "tflops": spec.flops(case.params) / 1e12}.get(metric)
    if amount:
        point.update(rate=amount / (e.median * 1e-3), rate_low=amount / (e.high * 1e-3),
                     rate_high=amount / (e.low * 1e-3))
    return point
