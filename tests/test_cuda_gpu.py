"""CUDA C++ solutions on a GPU (``pytest -m gpu tests/test_cuda_gpu.py``; needs nvcc): compiled
with nvcc inside the worker's sandbox, loaded, called with the tensors' pointers, and judged with the
same checks, guards and timing as a Triton solution."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from judge.challenge.catalog import load_challenge
from judge.challenge.leetgpu import load_folder
from judge.cli import main
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict
from judge.worker.cuda_build import find_nvcc

from conftest import EXAMPLES, ROOT, SOLUTIONS
from test_gpu import small_bench_spec

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(find_nvcc() is None, reason="no nvcc")]


def run(spec, path, **options):
    options.setdefault("seed", 1)
    options.setdefault("bench_budget_s", 0.5)
    return judge_solution(spec, str(path), Options(**options))


@pytest.mark.parametrize("challenge, example", [
    ("transpose", "transpose/naive.cu"), ("transpose", "transpose/tiled.cu"), ("copy", "copy/vectorized.cu"),
    ("matmul", "matmul/tiled.cu"),
])
def test_the_cuda_examples_are_accepted(challenge, example):
    result = run(load_challenge(challenge), EXAMPLES / example, benchmark=False)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.environment["cuda_build"]["arch"].startswith("sm_")
    assert any(note.startswith("CUDA C++: ") for note in result.notes)


def test_a_cuda_solution_is_timed_with_guard_audits_and_the_torch_baseline():
    spec = small_bench_spec("transpose", "  - {name: b4096, rows: 4096, cols: 4096}\n")
    result = run(spec, EXAMPLES / "transpose/tiled.cu")
    assert result.verdict == Verdict.ACCEPTED, result.message
    (bench,) = result.benchmarks
    assert bench["verdict"] == "accepted" and bench["calls"] >= 10 and bench["verified_calls"] >= 1
    assert bench["timer_trusted"] and bench["torch_median_ms"] > 0 and bench["gbps"] > 500


def test_a_solve_that_synchronizes_is_accepted_and_timed():
    spec = small_bench_spec("transpose", "  - {name: b4096, rows: 4096, cols: 4096}\n")
    result = run(spec, SOLUTIONS / "transpose_cuda_sync.cu")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.benchmarks[0]["verdict"] == "accepted"


def test_a_second_run_finds_the_build_in_the_cache():
    spec = load_challenge("transpose")
    run(spec, EXAMPLES / "transpose/naive.cu", benchmark=False)
    again = run(spec, EXAMPLES / "transpose/naive.cu", benchmark=False)
    assert again.environment["cuda_build"]["cached"] is True
    assert "found in the build cache" in " ".join(again.notes)


def test_a_wrong_cuda_solution_is_a_wrong_answer():
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_cuda_wrong.cu", benchmark=False)
    assert result.verdict == Verdict.WRONG_ANSWER


def test_a_compile_error_shows_nvccs_diagnostic_on_the_users_line():
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_cuda_compile_error.cu", benchmark=False)
    assert result.verdict == Verdict.COMPILE_ERROR, result.message
    assert result.message.startswith("transpose_cuda_compile_error.cu(4): error")
    assert "undefined_name" in result.message and ".build-" not in result.message


def test_an_out_of_bounds_store_names_the_tensor():
    spec = small_bench_spec("transpose", "  - {name: b1024, rows: 1024, cols: 1024}\n")
    result = run(spec, SOLUTIONS / "transpose_cuda_out_of_bounds.cu", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR and "outside `output`" in result.message


def test_a_kernel_fault_is_a_runtime_error_with_cudas_message_and_the_judge_goes_on():
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_cuda_fault.cu", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "illegal" in result.message.lower() or "misaligned" in result.message.lower(), result.message
    assert len(result.tests) > 1


def test_a_launch_that_never_ran_is_a_runtime_error_not_a_wrong_answer():
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_cuda_bad_launch.cu", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR
    # CUDA 13 says cudaErrorInvalidValue for 4096 threads a block (12.x: cudaErrorInvalidConfiguration)
    assert "after solve() returned" in result.message and "cudaErrorInvalid" in result.message, result.message
    assert "a kernel launch failed" in result.message


def test_a_solve_with_cpp_linkage_is_found_by_its_mangled_name():
    """LeetGPU's older starters had no extern "C" (a published PrefixSum.cu was refused for it)."""
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_cuda_no_extern_c.cu", benchmark=False)
    assert result.verdict == Verdict.ACCEPTED, result.message


def test_two_overloads_of_solve_are_an_invalid_submission_that_says_which_signature():
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_cuda_two_solves.cu", benchmark=False)
    assert result.verdict == Verdict.INVALID_SUBMISSION and "2 overloads of solve" in result.message
    assert 'extern "C" void solve(const float* input' in result.message


def test_nvcc_cannot_read_files_outside_the_sandbox(tmp_path):
    secret = tmp_path / "outside" / "secret.h"
    secret.parent.mkdir()
    secret.write_text("int the_secret_is_swordfish = 1;\n")
    solution = tmp_path / "mine" / "steal.cu"
    solution.parent.mkdir()
    solution.write_text(f'#include "{secret}"\nextern "C" void solve(const float* a, float* b, int r, int c) {{}}\n')
    result = run(load_challenge("transpose"), solution, benchmark=False)
    assert result.verdict == Verdict.COMPILE_ERROR, result.message
    assert "swordfish" not in result.message


def test_a_leetgpu_folder_runs_a_cuda_solution():
    folder = ROOT / "tests" / "leetgpu" / "challenges" / "easy" / "1_vec_add"
    result = run(load_folder(folder), SOLUTIONS / "leetgpu_vec_add.cu")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.benchmarks[0]["verdict"] == "accepted"


def test_judge_run_of_a_cu_file_from_the_command_line(tmp_path):
    result = CliRunner().invoke(main, ["run", "copy", str(EXAMPLES / "copy/vectorized.cu"), "--json", "--no-bench"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["verdict"] == "accepted" and doc["environment"]["cuda_build"]["arch"].startswith("sm_")


def test_rank_puts_cuda_and_triton_solutions_side_by_side():
    spec_args = ["rank", "copy", str(EXAMPLES / "copy/vectorized.cu"), str(EXAMPLES / "copy/tuned.py"),
                 "--budget", "3", "--json"]
    result = CliRunner().invoke(main, spec_args)
    assert result.exit_code == 0, result.output
    ranking = json.loads(result.stdout)["ranking"]
    assert sorted(os.path.basename(p["solution"]) for p in ranking) == ["tuned.py", "vectorized.cu"]
    assert all(p["verdict"] == "accepted" and p["score_ms"] > 0 for p in ranking)
