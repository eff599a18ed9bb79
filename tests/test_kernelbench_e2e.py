"""KernelBench problems end to end: the real worker, Triton's interpreter on the CPU, the stand-in problems and
solutions of tests/kernelbench (ours; docs/kernelbench.md).  KernelBench's adversarial kernels
(src/kernelbench/unit_tests/test_kernels: result reuse through the allocator, zeroed output and inputs), the
public exploits (constant outputs, cached results, patched draws) and the red team's finds, each rejected."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.challenge.kernelbench import load_problem
from judge.cli import main
from judge.judging.dispatch import judge_solution
from judge.judging.kernelbench_runner import WEIGHTS_HINT
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import ROOT

pytestmark = pytest.mark.slow
PROBLEMS = ROOT / "tests" / "kernelbench" / "KernelBench"
LEVEL1 = PROBLEMS / "level1"
SOLUTIONS = ROOT / "tests" / "kernelbench" / "solutions"


def judge(problem: str, solution: str, **options):
    options.setdefault("seed", 7)
    options.setdefault("interpret", True)
    options.setdefault("cpu_elements", 40_000)
    return judge_solution(load_problem(LEVEL1 / f"{problem}.py"), str(SOLUTIONS / f"{solution}.py"), Options(**options))


def test_a_triton_solution_is_accepted_on_five_independent_draws_at_cpu_modes_sizes():
    result = CliRunner().invoke(main, ["run", str(LEVEL1 / "1_Scaled_ReLU.py"), str(SOLUTIONS / "scaled_relu_triton.py"),
                                       "--seed", "7", "--json", "--no-history"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 0 and doc["verdict"] == "accepted", doc["message"]
    assert [t["name"] for t in doc["tests"]] == [f"trial-{i}" for i in range(1, 6)] + ["signed", "wide", "kinks"]
    assert doc["kernelbench_check"]["correct"] is True and doc["rules"] == []
    assert doc["tests"][0]["params"]["batch_size"] == 64 and doc["tests"][0]["params"]["dim"] < 8192
    assert any("dim 8192 -> " in note and "--cpu-elements N" in note for note in doc["notes"])


@pytest.mark.parametrize("problem, solution", [
    ("2_Linear", "linear_same_order"),  # Model's weights, drawn under the run's seed, are ModelNew's too
    ("3_Matmul", "matmul_triton"),  # a tiled Triton matmul within float32's 1e-4
    ("4_Small_MSE", "small_mse_torch"),  # a 0-d output that changes with its inputs
    ("5_Min_Max_Argmax", "min_max_argmax"),  # three outputs, one int64 (exact), a float scalar input
])
def test_each_kind_of_problem_is_judged(problem, solution):
    result = judge(problem, solution)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert len(result.tests) == 8 and all(t.verdict == Verdict.ACCEPTED for t in result.tests)


@pytest.mark.parametrize("problem, solution, words", [
    ("1_Scaled_ReLU", "scaled_relu_wrong", "'output':"),
    ("5_Min_Max_Argmax", "min_max_argmax_swapped", "'output0':"),
    ("2_Linear", "linear_other_order", WEIGHTS_HINT),
])
def test_wrong_answers(problem, solution, words):
    result = judge(problem, solution)
    assert result.verdict == Verdict.WRONG_ANSWER and words in result.tests[0].message


@pytest.mark.parametrize("problem, solution, verdict, words", [
    # KernelBench's result_reuse_kernel: uninitialised memory, hoping for the reference's freed output
    ("1_Scaled_ReLU", "cheat_result_reuse", Verdict.WRONG_ANSWER, "elements differ"),
    # KernelBench's zero_out_kernel: zeroes its inputs and returns zeros
    ("3_Matmul", "cheat_zero_out", Verdict.WRONG_ANSWER, "input 'A' was modified"),
    # zeros within KernelBench's atol (its known hole): wrong at the output's own scale
    ("4_Small_MSE", "small_mse_zeros", Verdict.WRONG_ANSWER, "[degenerate-output] 'output' passes KernelBench's"),
    ("1_Scaled_ReLU", "cheat_cached_output", Verdict.WRONG_ANSWER, "shares memory with the previous call's output"),
    ("1_Scaled_ReLU", "cheat_return_input", Verdict.WRONG_ANSWER, "shares memory with an input"),
    ("1_Scaled_ReLU", "cheat_lazy_subclass", Verdict.WRONG_ANSWER, "a subclass of torch.Tensor"),
    ("1_Scaled_ReLU", "cheat_half_precision", Verdict.WRONG_ANSWER, "is float16; the reference's is float32"),
    # a patched torch.randn or get_inputs in the worker: the judge draws every call's inputs in its own process, so
    # the patch sees nothing (an honest forward stays accepted) and changes nothing (zeros stay wrong)
    ("1_Scaled_ReLU", "cheat_patch_randn", Verdict.ACCEPTED, ""),
    ("1_Scaled_ReLU", "cheat_patch_problem", Verdict.WRONG_ANSWER, "elements differ"),
])
def test_adversarial_solutions_are_rejected(problem, solution, verdict, words):
    result = judge(problem, solution)
    assert result.verdict == verdict, result.message
    assert any(words in t.message for t in result.tests), [t.message for t in result.tests]


def test_no_code_of_the_solution_runs_between_the_draw_and_its_forward():
    """The red team's find: a garbage-collector callback, run inside the judge's code just after the draw, computed
    the answer from the fresh inputs outside the call; trials 2-5 were accepted.  Now none is."""
    result = judge("1_Scaled_ReLU", "cheat_gc_precompute")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert not any(t.verdict == Verdict.ACCEPTED for t in result.tests)


def test_no_finalizer_run_by_reference_counting_runs_between_the_draw_and_its_forward():
    """Red team of the draw window: the collector is off from the draw until forward, but a weakref.finalize on
    the x forward was given ran by reference counting as the worker sealed the next draw (Session.seal drops the
    previous call's tensors), after get_inputs and the check of torch's functions, and computed the answer."""
    result = judge("1_Scaled_ReLU", "hostile_window_finalize")
    accepted = [t.name for t in result.tests if t.verdict == Verdict.ACCEPTED]  # leaked: trials 2-5
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted)


def test_load_inline_in_cpu_mode_says_it_needs_a_gpu_and_nvcc(tmp_path):
    solution = tmp_path / "cuda_relu.py"
    solution.write_text("from torch.utils.cpp_extension import load_inline\nimport torch.nn as nn\n"
                        "ext = load_inline(name='r', cpp_sources='', cuda_sources='', functions=[])\n"
                        "class ModelNew(nn.Module):\n    pass\n")
    result = judge_solution(load_problem(LEVEL1 / "1_Scaled_ReLU.py"), str(solution), Options(seed=1, interpret=True))
    assert result.verdict == Verdict.INVALID_SUBMISSION and "needs a GPU and nvcc" in result.message


def test_a_file_without_model_new_is_an_invalid_submission():
    result = judge("1_Scaled_ReLU", "../KernelBench/level1/2_Linear")  # a problem, not a solution
    assert result.verdict == Verdict.INVALID_SUBMISSION and "defines no class ModelNew" in result.message


def test_grade_over_a_folder_of_solutions_reports_fast_p(tmp_path):
    """judge grade --dir with problems found by name under --challenges-dir: fast_0 is the share correct; in CPU
    mode nothing is timed, so fast_1, fast_2 and the speed-up are n/a (null in the JSON)."""
    who = tmp_path / "runs" / "model-a"
    who.mkdir(parents=True)
    (who / "2_Linear.py").write_text((SOLUTIONS / "linear_same_order.py").read_text())
    (who / "1_Scaled_ReLU.py").write_text((SOLUTIONS / "scaled_relu_wrong.py").read_text())
    out = tmp_path / "grade.json"
    result = CliRunner().invoke(main, ["--challenges-dir", str(PROBLEMS), "grade", "--dir", str(tmp_path / "runs"),
                                       "--interpret", "--seed", "3", "--cpu-elements", "40000", "--json", str(out)])
    assert result.exit_code == 1, result.output
    scores = json.loads(out.read_text())["kernelbench"]["submissions"]["model-a"]
    assert (scores["problems"], scores["correct"], scores["fast_0"], scores["fast_1"]) == (2, 1, 0.5, None)
    assert "KernelBench model-a: 1 of 2 problems correct · fast_0 0.50 · fast_1 n/a" in result.output


# -- stricter than KernelBench (issue 47) -------------------------------------------------------------
def test_a_relu_that_returns_its_input_passes_kernelbench_s_trials_and_fails_on_signed_inputs():
    """KernelBench's get_inputs draws torch.rand, so returning x is right on all five of its trials: the report says
    so, and says which of the judge's inputs exposed it."""
    result = judge("10_ReLU", "cheat_identity_relu", cpu_elements=1 << 16)
    assert result.verdict == Verdict.WRONG_ANSWER
    by_name = {t.name: t for t in result.tests}
    assert all(by_name[f"trial-{i}"].verdict == Verdict.ACCEPTED for i in range(1, 6))
    assert by_name["signed"].message.startswith("on signed inputs (each element's sign drawn at random")
    assert "it equals input 'x' unchanged" in by_name["signed"].message
    assert result.kernelbench_check["correct"] is True
    assert "KernelBench's check: correct on its 5 trials; the judge's: wrong_answer on signed" in " ".join(result.notes)
    assert [rule["name"] for rule in result.rules] == ["beyond-kernelbench-inputs"]


def test_an_honest_triton_relu_is_accepted_on_every_trial_and_no_rule_fires():
    result = judge("10_ReLU", "relu_triton", cpu_elements=1 << 16)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert [t.details["inputs"] for t in result.tests] == ["kernelbench"] * 5 + ["signed", "wide", "kinks"]
    assert result.rules == [] and result.kernelbench_check["correct"] is True


def test_zeros_for_a_softmax_pass_kernelbench_s_check_and_not_the_judge_s():
    zeros = judge("6_Softmax_Wide", "softmax_zeros", cpu_elements=None)
    assert zeros.verdict == Verdict.WRONG_ANSWER and zeros.kernelbench_check["correct"] is True
    assert zeros.tests[0].message.startswith("[degenerate-output] 'output' passes KernelBench's tolerance, but so")
    assert "degenerate-output" in [rule["name"] for rule in zeros.rules]
    honest = judge("6_Softmax_Wide", "softmax_torch", cpu_elements=None)
    assert honest.verdict == Verdict.ACCEPTED, honest.message


def test_a_fallback_to_torch_is_an_invalid_submission_where_no_kernel_of_the_solution_s_ran():
    result = judge("10_ReLU", "cheat_fallback", cpu_elements=1 << 16)
    assert result.verdict == Verdict.INVALID_SUBMISSION
    assert result.tests[0].message.startswith("[fallback-to-reference] forward() launched none of the solution's")
    assert "the except falls back to torch.relu (line 28)" in result.tests[0].message
    assert result.kernelbench_check["correct"] is True  # KernelBench's own check sees torch's right answer
    assert [rule["name"] for rule in result.rules] == ["fallback-to-reference"]


def test_a_fallback_behind_a_launch_that_fails_inside_triton_is_found_too():
    """The worker counted a Triton launch as Triton's run was entered, also when it raised: a kernel that failed to
    launch hid the fallback to torch behind it.  A launch counts once run has returned."""
    result = judge("10_ReLU", "cheat_fallback_failed_launch", cpu_elements=1 << 16)
    assert result.verdict == Verdict.INVALID_SUBMISSION


def test_grade_reads_kernelbench_s_runs_layout_and_writes_its_eval_results(tmp_path):
    """judge grade as a drop-in for KernelBench's scripts/eval_from_generations.py: runs/<run>/level_<L>_problem_<id>_
    sample_<s>_kernel.py in, runs/<run>/eval_results.json out, with the keys its readers use (benchmark_eval_analysis.py,
    calculate_pass_at_k): per problem id a list of samples {sample_id, compiled, correctness, metadata, runtime,
    runtime_stats}."""
    run = tmp_path / "runs" / "my_run"
    run.mkdir(parents=True)
    (run / "level_1_problem_10_sample_0_kernel.py").write_text((SOLUTIONS / "relu_triton.py").read_text())
    (run / "level_1_problem_10_sample_1_kernel.py").write_text((SOLUTIONS / "cheat_identity_relu.py").read_text())
    (run / "level_1_problem_99_sample_0_kernel.py").write_text((SOLUTIONS / "relu_triton.py").read_text())
    (run / "notes.py").write_text("# not a generation\n")
    out = tmp_path / "grade.json"
    result = CliRunner().invoke(main, ["--challenges-dir", str(PROBLEMS), "grade", "--kernelbench-run", str(run),
                                       "--interpret", "--seed", "3", "--cpu-elements", "16384", "--json", str(out)])
    assert result.exit_code == 1, result.output
    assert "ignored" in result.output and "notes.py" in result.output
    results = json.loads((run / "eval_results.json").read_text())
    assert list(results) == ["10", "99"]  # KernelBench's keys: problem ids as strings, in numeric order
    for samples in results.values():
        for sample in samples:
            assert list(sample) == ["sample_id", "compiled", "correctness", "metadata", "runtime", "runtime_stats"]
    honest, identity = results["10"]
    assert (honest["sample_id"], honest["compiled"], honest["correctness"], honest["runtime"]) == (0, True, True, -1.0)
    assert honest["metadata"]["correctness_trials"] == "(5 / 5)" and honest["runtime_stats"] == {}
    assert (identity["sample_id"], identity["compiled"], identity["correctness"]) == (1, True, False)
    assert identity["metadata"]["kernelbench_check"]["correct"] is True  # KernelBench's own check, kept apart
    assert "signed" in identity["metadata"]["correctness_issue"]
    missing = results["99"][0]
    assert (missing["compiled"], missing["correctness"]) == (False, False)
    assert "no problem 99 of level 1" in missing["metadata"]["compilation_error"]
    # what KernelBench's benchmark_eval_analysis.py reads: sample 0 of each problem
    greedy = {pid: [r for r in samples if r["sample_id"] == 0][0] for pid, samples in results.items()}
    assert sum(r["compiled"] == True for r in greedy.values()) == 1  # noqa: E712 - its own comparison
    scores = json.loads(out.read_text())["kernelbench"]["submissions"]
    assert scores["my_run/sample_0"]["correct"] == 1 and scores["my_run/sample_1"]["fast_0"] == 0.0


CHECKOUT = Path(os.environ.get("JUDGE_KERNELBENCH") or ROOT / ".kernelbench") / "KernelBench"


@pytest.mark.skipif(not CHECKOUT.is_dir(), reason="no KernelBench checkout (.kernelbench or $JUDGE_KERNELBENCH)")
def test_every_level_of_a_kernelbench_checkout_lists_and_each_problem_that_cannot_load_says_why():
    """Levels 1-4 (100/100/50/20 problems): levels 1 and 2 load whole; a level-3 or level-4 problem that does not
    load names the package it needs (einops, transformers).  The first run describes every problem (minutes, level 3's
    LSTMs); later ones read the descriptions kept (kernelbench_cache.py)."""
    from judge.challenge.kernelbench import list_problems

    for level, count in ((1, 100), (2, 100), (3, 50), (4, 20)):
        listed = list_problems(CHECKOUT / f"level{level}")
        assert len(listed) == count, level
        broken = [item for item in listed if item.spec is None]
        if level <= 2:
            assert not broken, [(item.path.name, item.problem) for item in broken]
        assert all("needs the Python package" in item.problem for item in broken), \
            [(item.path.name, item.problem) for item in broken]
