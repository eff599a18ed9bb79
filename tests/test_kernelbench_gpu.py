"""KernelBench on a GPU (pytest -m gpu): the stand-in problems of tests/kernelbench with Triton and CUDA
(load_inline) solutions and GPU-only exploits (a side stream, patched timers); and, when a KernelBench checkout
is there ($JUDGE_KERNELBENCH, else .kernelbench in the repository's root: the folder that holds KernelBench/),
real level-1 problems with the Triton and CUDA solutions of solutions/kernelbench."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from judge.challenge.kernelbench import load_problem
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import ROOT

pytestmark = pytest.mark.gpu
LEVEL1 = ROOT / "tests" / "kernelbench" / "KernelBench" / "level1"
SOLUTIONS = ROOT / "tests" / "kernelbench" / "solutions"
CHECKOUT = Path(os.environ.get("JUDGE_KERNELBENCH") or ROOT / ".kernelbench")
REAL = [("19_ReLU", "triton"), ("19_ReLU", "cuda"), ("1_Square_matrix_multiplication_", "triton"),
        ("1_Square_matrix_multiplication_", "cuda"), ("88_MinGPTNewGelu", "triton"), ("88_MinGPTNewGelu", "cuda"),
        ("95_CrossEntropyLoss", "triton"), ("95_CrossEntropyLoss", "cuda")]


@pytest.fixture(autouse=True)
def _needs_a_gpu():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU")


def judge(problem: Path, solution: Path, **options):
    options.setdefault("seed", 5)
    options.setdefault("bench_budget_s", 1.0)
    return judge_solution(load_problem(problem), str(solution), Options(**options))


def test_a_triton_solution_is_accepted_and_timed_against_torch_eager():
    result = judge(LEVEL1 / "1_Scaled_ReLU.py", SOLUTIONS / "scaled_relu_triton.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    entry = result.benchmarks[0]
    assert entry["verdict"] == "accepted" and entry["verified_calls"] >= 1 and entry["speedup_vs_torch"] > 0


def test_the_torch_compile_baseline_is_timed_beside_eager():
    result = judge(LEVEL1 / "1_Scaled_ReLU.py", SOLUTIONS / "scaled_relu_triton.py", torch_compile=True)
    assert result.verdict == Verdict.ACCEPTED, result.message
    entry = result.benchmarks[0]
    assert entry["torch_compile_median_ms"] > 0 and entry["speedup_vs_torch_compile"] > 0, result.notes
    assert any("torch.compile (inductor, default mode)" in note for note in result.notes)


def test_a_load_inline_cuda_solution_builds_in_the_sandbox_and_is_accepted_twice():
    for _ in range(2):  # the second run loads the build the first left in the judge's cache
        result = judge(LEVEL1 / "1_Scaled_ReLU.py", SOLUTIONS / "scaled_relu_cuda.py", benchmark=False)
        assert result.verdict == Verdict.ACCEPTED, result.message


def test_the_zero_output_hole_and_result_reuse_are_closed_on_a_gpu():
    assert judge(LEVEL1 / "4_Small_MSE.py", SOLUTIONS / "small_mse_zeros.py").verdict == Verdict.WRONG_ANSWER
    assert judge(LEVEL1 / "1_Scaled_ReLU.py", SOLUTIONS / "cheat_result_reuse.py").verdict == Verdict.WRONG_ANSWER


def test_work_on_a_side_stream_is_timed_not_hidden():
    """KernelBench's non_default_stream kernel: its events-only timer (on the default stream) reported a speed-up;
    here the host clock's audit counts the side stream's work, or the call's poisoned inputs make it wrong."""
    result = judge(LEVEL1 / "3_Matmul.py", SOLUTIONS / "cheat_side_stream.py")
    if result.verdict == Verdict.ACCEPTED:
        entry = result.benchmarks[0]
        assert entry["speedup_vs_torch"] < 2.0, entry
        assert entry["disagreeing_calls"] > 0 or entry["speedup_vs_torch"] < 1.3, entry


def test_patched_timers_change_nothing():
    result = judge(LEVEL1 / "3_Matmul.py", SOLUTIONS / "cheat_patch_timers.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert 0.5 < result.benchmarks[0]["speedup_vs_torch"] < 2.0, result.benchmarks[0]


@pytest.mark.parametrize("problem, language", REAL)
def test_real_level1_problems_with_our_triton_and_cuda_solutions(problem, language):
    path = CHECKOUT / "KernelBench" / "level1" / f"{problem}.py"
    if not path.is_file():
        pytest.skip(f"no KernelBench checkout at {CHECKOUT} (set $JUDGE_KERNELBENCH)")
    result = judge(path, ROOT / "solutions" / "kernelbench" / f"{problem}_{language}.py", benchmark=False)
    assert result.verdict == Verdict.ACCEPTED, result.message
