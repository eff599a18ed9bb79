"""LeetGPU challenge folders end to end: the real worker, shipped inputs, Triton's
interpreter on the CPU (stand-in challenges of tests/leetgpu; docs/leetgpu.md)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from judge.challenge.leetgpu import load_folder
from judge.cli import main
from judge.judging.runner import Options
from judge.judging.dispatch import judge_solution
from judge.judging.verdict import Verdict

from conftest import ROOT, SOLUTIONS

pytestmark = pytest.mark.slow
CHALLENGES = ROOT / "tests" / "leetgpu" / "challenges"


def judge(folder: str, solution: str, **options):
    options.setdefault("seed", 7)
    options.setdefault("interpret", True)
    return judge_solution(load_folder(CHALLENGES / folder), str(SOLUTIONS / solution), Options(**options))


def test_a_triton_solution_in_leetgpus_shape_is_accepted_and_the_big_test_skipped_with_a_note():
    result = CliRunner().invoke(main, ["run", str(CHALLENGES / "easy" / "1_vec_add"),
                                       str(SOLUTIONS / "leetgpu_vec_add.py"), "--seed", "7", "--json"])
    doc = json.loads(result.stdout)  # stderr may hold progress lines (a slow step)
    assert result.exit_code == 0 and doc["verdict"] == "accepted", doc["message"]
    assert [t["name"] for t in doc["tests"]] == ["example", "functional-1", "functional-2", "functional-3"]
    assert doc["tests"][0]["params"] == {"N": 3}
    assert any("functional-4 (N=100000, 300000 elements)" in note and "--cpu-elements 300000 runs them all" in note
               for note in doc["notes"])  # the exact option (issue 29 item 7)


@pytest.mark.parametrize("folder, solution", [
    ("easy/1_vec_add", "leetgpu_vec_add_torch.py"),  # plain PyTorch
    ("easy/2_count_positive", "leetgpu_count_positive.py"),  # an int32 output
    ("medium/3_half_scale", "leetgpu_half_scale.py"),  # float16 and a float scalar
    ("medium/4_inplace_affine", "leetgpu_inplace_affine.py"),  # an inout tensor
    ("hard/5_sum_diff", "leetgpu_sum_diff.py"),  # two outputs
    ("hard/6_xor_mask", "leetgpu_xor_mask.py"),  # uint32 (LeetGPU's radix sort and rainbow table use it)
])
def test_each_kind_of_signature_is_judged(folder, solution):
    result = judge(folder, solution, cpu_elements=400_000)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert len(result.tests) >= 3 and all(t.verdict == Verdict.ACCEPTED for t in result.tests)


def test_unwritten_outputs_and_modified_inputs_are_wrong_answers():
    result = judge("easy/1_vec_add", "leetgpu_vec_add_half_written.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "never written" in result.tests[0].message and result.tests[0].name == "example"
    result = judge("easy/1_vec_add", "leetgpu_vec_add_mutates_input.py")
    assert result.verdict == Verdict.WRONG_ANSWER and "input 'A' was modified" in result.tests[0].message


def test_an_output_the_generator_zeroes_starts_at_zero():
    """2_count_positive's tests make its output with torch.zeros, as LeetGPU's histogram does: a solution that
    adds into it with atomics (never zeroing it) is right there, and must be accepted here too."""
    result = judge("easy/2_count_positive", "leetgpu_count_positive_atomic.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert len(result.tests) >= 4 and all(t.verdict == Verdict.ACCEPTED for t in result.tests)


def test_a_histogram_counted_with_atomics_into_its_zeroed_output_is_accepted():
    """LeetGPU's 13_histogramming makes its histogram with torch.zeros in every test; so does 7_histogram
    (and its performance test with a FullTensor of 0): an atomic histogram that never zeroes it is right."""
    result = judge("easy/7_histogram", "leetgpu_histogram_atomic.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert [t.name for t in result.tests][:2] == ["example", "functional-1"]


def test_a_tf32_matmul_on_a_leetgpu_folder_is_told_how_to_get_fp32():
    """As published LeetGPU matmuls with tl.dot's default precision were: rejected, now with the fix."""
    result = judge("medium/8_matmul", "leetgpu_matmul_tf32_sim.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = next(t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "rounded to TF32" in failed.message and 'input_precision="ieee"' in failed.message


def test_torch_cuda_calls_of_a_published_answer_answer_for_the_cpu_in_cpu_mode():
    """Issue 27: torch.cuda.synchronize(), current_stream(), Event(enable_timing=True), empty_cache(),
    is_available(), device_count(), get_device_properties(0).multi_processor_count, streams: each called by a
    Triton vector add through the real worker (and its integrity checks after every call), in CPU mode, where
    they answer for the CPU; the run's notes name them.  The judge's own torch.cuda is left as it was."""
    import torch

    from judge.worker.cpu_device import STAND_IN_NAMES

    real = {name: getattr(torch.cuda, name) for name in STAND_IN_NAMES}
    result = judge("easy/1_vec_add", "leetgpu_vec_add_cuda_calls.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    note = next(n for n in result.notes if "answer for this CPU" in n)
    assert all(f"torch.cuda.{name}," in note or f"torch.cuda.{name};" in note for name in STAND_IN_NAMES), note
    assert all(getattr(torch.cuda, name) is function for name, function in real.items())


@pytest.mark.parametrize("solution", ["leetgpu_simple_inference_torch.py", "leetgpu_simple_inference_triton.py"])
def test_a_model_argument_is_rebuilt_in_the_worker_and_judged(solution):
    """Issue 27: LeetGPU's 41_simple_inference passes an nn.Module; the stand-in 9_simple_inference does too
    (nn.Linear with and without bias).  The worker rebuilds it from torch.nn's own class and the weights'
    bytes (challenge/shipped_module.py), never from a pickle or the challenge's code."""
    result = judge("easy/9_simple_inference", solution)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert [t.name for t in result.tests] == ["example"] + [f"functional-{i}" for i in range(1, 5)]
    assert result.tests[0].params == {}


def test_a_solution_that_changes_the_models_weights_is_told_and_cannot_change_the_reference():
    """It computes the right output, then zeroes model.weight: every test is still checked against the
    reference on the judge's own model (the outputs match), and each says the input was modified."""
    result = judge("easy/9_simple_inference", "leetgpu_simple_inference_mutates_weights.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert all("input 'model.weight' was modified" in t.message for t in result.tests), result.tests[0].message
    assert all("output" not in t.message.split("input 'model.weight'")[0] for t in result.tests)


def test_no_code_of_the_solutions_runs_between_the_shipped_inputs_and_the_call():
    """The draw-to-call window (tests/test_sealed.py) where the judge ships a LeetGPU folder's inputs: a gc
    callback of the solution's saw each call's A before the call; it no longer runs there."""
    result = judge("medium/8_matmul", "leetgpu_matmul_gc_peek.py")
    accepted = [t.name for t in result.tests if t.verdict == Verdict.ACCEPTED]
    assert result.verdict == Verdict.WRONG_ANSWER and not accepted, (result.verdict, accepted, result.message)


def test_no_finalizer_run_by_reference_counting_sees_the_shipped_inputs():
    """Red team of the draw window (tests/test_sealed.py, test_no_finalizer_run_by_reference_counting_sees_the_next_draw)
    on a folder whose inputs the judge ships: a weakref.finalize on the A solve() was given ran as the worker
    sealed the next call's shipped inputs (Session.seal drops the previous call's tensors) and computed A @ B."""
    result = judge("medium/8_matmul", "hostile_window_leetgpu_finalize.py")
    accepted = [t.name for t in result.tests if t.verdict == Verdict.ACCEPTED]  # leaked: every case after the first
    assert result.verdict != Verdict.ACCEPTED and not accepted, (result.verdict, accepted, result.message)
