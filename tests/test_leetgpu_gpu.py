"""LeetGPU challenge folders on a GPU (``pytest -m gpu tests/test_leetgpu_gpu.py``):
the performance test as the benchmark, with shipped inputs, the timing method,
guard and audits, GB/s from the tensors' bytes and the torch reference as the
baseline.  The last test runs real LeetGPU challenges when a checkout's
challenges/ folder is at .leetgpu/challenges (ignored by git; docs/leetgpu.md)."""

from __future__ import annotations

import pytest

from judge.challenge.leetgpu import load_folder
from judge.judging.runner import Options
from judge.judging.dispatch import judge_solution
from judge.judging.verdict import Verdict

from conftest import EXAMPLES, ROOT, SOLUTIONS

pytestmark = pytest.mark.gpu
CHALLENGES = ROOT / "tests" / "leetgpu" / "challenges"
REAL = ROOT / ".leetgpu" / "challenges"


def run(folder, solution, **options):
    options.setdefault("seed", 1)
    options.setdefault("bench_budget_s", 0.5)
    return judge_solution(load_folder(folder), str(solution), Options(**options))


def test_performance_test_is_timed_checked_and_compared_with_the_torch_reference():
    result = run(CHALLENGES / "easy" / "1_vec_add", SOLUTIONS / "leetgpu_vec_add.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert [t.name for t in result.tests][-1] == "functional-4"  # no CPU budget on the GPU
    (bench,) = result.benchmarks
    assert bench["name"] == "performance" and bench["params"] == {"N": 1 << 22}
    assert bench["bytes"] == 3 * 4 * (1 << 22) and bench["gbps"] > 100
    assert bench["verified_calls"] >= 1 and bench["timer_trusted"]
    assert bench["torch_median_ms"] > 0 and bench["vs_torch"].endswith("× torch")


@pytest.mark.parametrize("folder, solution", [
    ("easy/9_simple_inference", "leetgpu_simple_inference_triton.py"),  # a model argument, copied every call
    ("easy/2_count_positive", "leetgpu_count_positive.py"), ("medium/3_half_scale", "leetgpu_half_scale.py"),
    ("medium/4_inplace_affine", "leetgpu_inplace_affine.py"), ("hard/5_sum_diff", "leetgpu_sum_diff.py"),
    ("hard/6_xor_mask", "leetgpu_xor_mask.py"), ("easy/7_histogram", "leetgpu_histogram_atomic.py"),
])
def test_every_kind_of_signature_is_timed(folder, solution):
    """The inout case is not idempotent: each timed call must start from the shipped values; nor is the
    atomic histogram: each timed call must start from the zeros its test made (not poison)."""
    result = run(CHALLENGES / folder, SOLUTIONS / solution)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.benchmarks[0]["verdict"] == "accepted" and result.benchmarks[0]["calls"] >= 10


def test_a_wrong_result_while_timed_is_a_wrong_answer():
    result = run(CHALLENGES / "easy" / "1_vec_add", SOLUTIONS / "leetgpu_vec_add_wrong_when_large.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "timed call" in result.benchmarks[0]["message"]


def test_a_result_cached_between_calls_is_caught_when_timed():
    """Issue 27: every timed call gets the performance test drawn again (fresh values), so a solution that
    returns the first call's result in later calls fails a verified call; it passes every functional test."""
    result = run(CHALLENGES / "easy" / "1_vec_add", SOLUTIONS / "cheat_leetgpu_result_cache.py")
    assert all(t.verdict == Verdict.ACCEPTED for t in result.tests), result.message
    assert result.verdict == Verdict.WRONG_ANSWER and "timed call" in result.benchmarks[0]["message"]


@pytest.mark.skipif(not REAL.is_dir(), reason="no LeetGPU checkout at .leetgpu/challenges")
@pytest.mark.parametrize("folder, solution", [
    ("easy/1_vector_add", "leetgpu/1_vector_add.py"),
    ("medium/22_gemm", "leetgpu/22_gemm.py"),
    ("hard/15_sorting", "leetgpu/15_sorting.py"),
    ("easy/41_simple_inference", "leetgpu/41_simple_inference.py"),
])
def test_real_leetgpu_challenges(folder, solution):
    result = run(REAL / folder, EXAMPLES / solution, bench_budget_s=1.0)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.benchmarks[0]["verdict"] == "accepted"


def test_an_atomic_count_into_an_uninitialised_performance_output_is_a_wrong_answer_when_timed():
    """2_count_positive's tests zero their output (accepted) but its performance test's is an OutTensor,
    empty as on LeetGPU: the atomic count then adds to poison, and a verified timed call says so."""
    result = run(CHALLENGES / "easy" / "2_count_positive", SOLUTIONS / "leetgpu_count_positive_atomic.py")
    assert all(t.verdict == Verdict.ACCEPTED for t in result.tests), result.message
    assert result.verdict == Verdict.WRONG_ANSWER and "timed call" in result.benchmarks[0]["message"]


def test_an_uninitialised_accumulation_is_diagnosed_on_the_gpu():
    from test_gpu import small_bench_spec

    spec = small_bench_spec("reduce_sum", "  - {name: small, N: 4096}\n")
    result = judge_solution(spec, str(SOLUTIONS / "reduce_sum_atomic_unzeroed.py"), Options(seed=1, benchmark=False))
    failed = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert failed.details.get("passes_with_zeroed_outputs") is True and "output.zero_()" in failed.message


def test_a_default_precision_tl_dot_on_a_folder_gets_the_tf32_hint():
    result = run(CHALLENGES / "medium" / "8_matmul", SOLUTIONS / "leetgpu_matmul_tf32.py", benchmark=False)
    failed = [t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER]
    assert result.verdict == Verdict.WRONG_ANSWER and failed, result.message
    assert all("rounded to TF32" in t.message for t in failed), failed[0].message
