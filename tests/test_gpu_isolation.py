"""One bad submission must not harm the next one on the same GPU (GPU only).

As in a long ``judge grade`` on one GPU: a hostile submission, then an honest
one (solutions/transpose/tuned.py) judged right after it on the same device.
The honest one must get the verdict and time it gets alone: accepted, its
median within the two runs' confidence intervals (plus 1 % for the drift
between runs that docs/benchmarks.md measures).  Each test prints one JSON
line (``isolation:``) with the numbers; scripts/gpu_check.sh keeps them.
"""

from __future__ import annotations

import json
import time

import pytest

from judge.judging.runner import Options

from judge.judging.dispatch import judge_solution
from judge.judging.verdict import Verdict
from judge.defence.limits import Limits

from conftest import EXAMPLES, SOLUTIONS
from test_gpu import small_bench_spec

pytestmark = pytest.mark.gpu

HONEST = EXAMPLES / "transpose" / "tuned.py"
PER_CALL_TIMEOUT_S = 5.0


def _spec():
    return small_bench_spec("transpose", "  - {name: b4096, rows: 4096, cols: 4096}\n")


def _judge(path, **options):
    options.setdefault("seed", 1)
    options.setdefault("bench_budget_s", 1.0)
    started = time.perf_counter()
    result = judge_solution(_spec(), str(path), Options(**options))
    return result, time.perf_counter() - started


def _timing(result) -> dict:
    bench = result.benchmarks[0]
    return {k: bench[k] for k in ("median_ms", "ci_low_ms", "ci_high_ms", "calls")}


@pytest.fixture(scope="module")
def alone() -> dict:
    result, _ = _judge(HONEST)
    assert result.verdict == Verdict.ACCEPTED, result.message
    return _timing(result)


def _same_time(a: dict, b: dict) -> bool:
    half = lambda t: (t["ci_high_ms"] - t["ci_low_ms"]) / 2  # noqa: E731
    return abs(a["median_ms"] - b["median_ms"]) <= half(a) + half(b) + 0.01 * a["median_ms"]


@pytest.mark.parametrize("hostile, expected, options", [
    ("hostile_device_loop.py", Verdict.TIME_LIMIT_EXCEEDED, {"timeout": PER_CALL_TIMEOUT_S, "benchmark": False}),
    ("transpose_illegal_address.py", Verdict.RUNTIME_ERROR, {"benchmark": False}),
    ("hostile_leaks.py", Verdict.ACCEPTED, {}),
    ("abuse_host_memory.py", Verdict.RUNTIME_ERROR,
     {"benchmark": False, "limits": Limits(host_memory_bytes=4 * 1024**3)}),
    ("abuse_gpu_memory.py", Verdict.RUNTIME_ERROR, {"benchmark": False}),
], ids=["device-loop", "illegal-address", "leaks", "host-memory", "gpu-memory"])
def test_a_hostile_submission_does_not_harm_the_next_one(alone, hostile, expected, options):
    bad, bad_wall = _judge(SOLUTIONS / hostile, **options)
    after, after_wall = _judge(HONEST)
    report = {"hostile": hostile, "verdict": bad.verdict.value, "wall_s": round(bad_wall, 2),
              "phases_s": {k: round(v, 2) for k, v in bad.phases_s.items()},
              "next_verdict": after.verdict.value, "next_wall_s": round(after_wall, 2), "alone": alone,
              "next": _timing(after) if after.benchmarks else None}
    print("isolation:", json.dumps(report))
    assert bad.verdict == expected, bad.message
    assert after.verdict == Verdict.ACCEPTED, after.message
    assert _same_time(alone, report["next"]), report


def test_a_kernel_that_never_ends_is_stopped_within_the_per_call_timeout():
    """time_limit_exceeded within the per-call timeout plus a few seconds of the hanging call's
    start.  The first call (the 1x1 case, which compiles) is correct; the second hangs on the GPU,
    and the rest are skipped, so the tests' time less the first call's is the hang and the kill."""
    bad, wall = _judge(SOLUTIONS / "hostile_device_loop.py", timeout=PER_CALL_TIMEOUT_S, benchmark=False)
    assert bad.verdict == Verdict.TIME_LIMIT_EXCEEDED, bad.message
    phases = bad.phases_s
    print("device-loop:", json.dumps({"wall_s": round(wall, 2), "phases_s": phases}))
    assert phases["tests"] - phases["first_call"] <= PER_CALL_TIMEOUT_S + 5.0, phases
