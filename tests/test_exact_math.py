"""Issue 39: every reference runs in exact fp32 arithmetic (judge/challenge/exact_math.py), the user's torch
switches are put back afterwards, and an output that a LeetGPU tolerance rejects is measured against a float64
run (judge/judging/error_order.py).  A reference that reads the switches stands in for a GPU's TF32: on the
CPU the switches change nothing, so what the reference saw is what the test checks."""

from __future__ import annotations

from dataclasses import replace

import threading

import pytest
import torch

from judge.challenge.exact_math import EXACT_FLAGS, exact_math, exact_statements, precision_flags
from judge.challenge.leetgpu import build_tests, expected_outputs, load_folder
from judge.challenge.spec import parse_spec
from judge.challenge.tensors import make_arguments
from judge.judging.checks import errors_against
from judge.judging.dispatch import judge_solution
from judge.judging.error_order import ORDER, OrderCheck, of_reference_order, order_note
from judge.judging.reference import Reference
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import ROOT, SOLUTIONS

PRECISION = ROOT / "tests" / "leetgpu" / "precision"
STABLE = PRECISION / "solutions"
READS_FLAGS = """
name: reads_flags
parameters:
  - {name: seen, tensor: float32, shape: [5], role: out}
sizes: {N: [1, 1]}
reference: |
  def reference(seen):
      matmul = torch.backends.cuda.matmul
      flags = [torch.backends.cudnn.allow_tf32, matmul.allow_tf32, torch.get_float32_matmul_precision() != "highest",
               matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction]
      seen.copy_(torch.tensor([float(bool(f)) for f in flags]))
"""


@pytest.fixture
def users_flags():
    """torch's switches as a user might leave them: TF32 allowed everywhere; put back to the defaults after."""
    before = precision_flags()
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_float32_matmul_precision("high")
    mine = precision_flags()
    yield mine
    torch.backends.cuda.matmul.allow_tf32 = before["cuda.matmul.allow_tf32"]
    torch.set_float32_matmul_precision(before["float32_matmul_precision"])
    torch.backends.cudnn.allow_tf32 = before["cudnn.allow_tf32"]


def test_exact_math_sets_every_switch_and_puts_the_users_back(users_flags):
    with exact_math():
        assert precision_flags() == {name: value for name, value in EXACT_FLAGS.items()}
    assert precision_flags() == users_flags


def test_the_switches_stay_exact_while_any_thread_holds_them(users_flags):
    """grade and ui judge in threads: one thread's reference ending must not undo another's exact switches."""
    inside, release, seen = threading.Event(), threading.Event(), []

    def other():
        with exact_math():
            inside.set()
            release.wait(10)
            seen.append(precision_flags())

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with exact_math():
        pass  # this holder leaves first
    release.set()
    thread.join(10)
    assert seen == [dict(EXACT_FLAGS)] and precision_flags() == users_flags


def test_a_specs_reference_sees_exact_switches_and_the_user_keeps_theirs(users_flags):
    spec = parse_spec(READS_FLAGS)
    reference = Reference(spec, "cpu")
    seen = reference.expected(make_arguments(spec, {"N": 1}, 0, "cpu"))["seen"]
    assert seen.tolist() == [0.0] * 5 and precision_flags() == users_flags


def test_a_leetgpu_reference_impl_sees_exact_switches_and_the_user_keeps_theirs(users_flags):
    spec = load_folder(PRECISION / "easy" / "2_reads_flags")
    (case, *_), _ = build_tests(spec, "cpu", seed=1)
    assert expected_outputs(spec.instance("cpu"), case)["output"].tolist() == [0.0] * 5
    assert precision_flags() == users_flags


def test_the_torch_baseline_sets_the_switches_exact_in_every_call(tmp_path):
    from judge.judging.benchmark_stage import baseline_file

    spec = parse_spec(READS_FLAGS)
    text = open(baseline_file(spec, str(tmp_path))).read()
    assert exact_statements() in text and text.rstrip().endswith("return baseline(*args)")
    namespace = {}
    exec(compile(text, "baseline", "exec"), namespace)  # noqa: S102 - our own generated file
    before, seen = precision_flags(), torch.empty(5)
    try:
        torch.backends.cudnn.allow_tf32 = True
        namespace["solve"](seen)
        assert seen.tolist() == [0.0] * 5
    finally:  # the worker puts them back after every call (process_state.ProcessState); here the test does
        torch.backends.cudnn.allow_tf32 = before["cudnn.allow_tf32"]
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True


# -- an answer of the reference's order -----------------------------------------------------------------------
def test_an_error_within_the_tolerance_of_the_truth_or_thirty_times_the_references_is_of_its_order():
    assert of_reference_order(0.9, 5.0, 0.0)  # within the tolerance of the float64 answer
    assert of_reference_order(40.0, 0.029, 0.001) and not of_reference_order(40.0, 0.031, 0.001)
    assert not of_reference_order(2.0, 1e-3, 0.0)  # an exact reference: only the tolerance counts
    assert not of_reference_order(float("inf"), float("inf"), 1.0)  # a NaN or infinite element
    assert ORDER == 30.0  # scripts/scan_order_sim.py: honest orders within 18x, half precision 63x and more


def test_an_error_within_thirty_times_float32s_rounding_on_homogeneous_inputs_is_of_the_references_order():
    """A reference that adds in float64 has no error of its own (reference_abs 0): float32's rounding on the inputs,
    2^-24 x reference_impl(|inputs|), is the measure there, where the reference is homogeneous."""
    exact = OrderCheck("output", 697.0, 0.007, 0.0, 0.0, 1, 1)
    assert not exact.accepted  # the two measures of before: an honest torch.sum rejected near a zero sum
    assert replace(exact, rounding_units=0.0234).accepted and not replace(exact, rounding_units=31.0).accepted
    assert not replace(exact, rounding_units=float("nan")).accepted


def test_only_a_positively_homogeneous_reference_has_float32s_rounding_as_its_measure():
    from judge.judging.shipped_runner import _degree

    x = torch.tensor([3.0, -1.5, 0.25], dtype=torch.float64)
    assert _degree(x.sum(), (2 * x).sum()) == 1 and _degree(torch.outer(x, x), torch.outer(2 * x, 2 * x)) == 2
    assert _degree(x.exp(), (2 * x).exp()) is None and _degree(x.softmax(0), (2 * x).softmax(0)) is None


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_float32_sum_against_a_float64_reference_is_one_verdict_whatever_the_seed(seed):
    """Issue 45: LeetGPU's medium/4_reduction adds in float64; ``output[:] = torch.sum(input)`` was a wrong answer in one
    run, accepted in the next.  The stand-in's functional-4 cancels to a sum near zero, where LeetGPU's tolerance
    rejects every float32 order: torch.sum and a blocked Triton sum are accepted with the note, a sum of inputs read
    in half precision is still rejected."""
    spec = load_folder(PRECISION / "medium" / "4_double_sum")
    for name in ("reduction_torch_sum", "reduction_blocked"):
        result = judge_solution(spec, str(STABLE / f"{name}.py"), Options(seed=seed, interpret=True))
        assert result.verdict == Verdict.ACCEPTED, (name, result.message)
        (note,) = [n for n in result.notes if n.startswith("LeetGPU's tolerance, not an error of your algorithm's order")]
        assert "float32's rounding on these inputs" in note and "functional-4" in note
    half = judge_solution(spec, str(STABLE / "reduction_half_inputs.py"), Options(seed=seed, interpret=True))
    assert half.verdict == Verdict.WRONG_ANSWER, half.message


def test_errors_are_measured_in_tolerances_and_absolutely():
    truth = torch.tensor([0.0, 1.0, -2.0, float("inf")], dtype=torch.float64)
    units, largest = errors_against(torch.tensor([0.0, 1.001, -2.0, float("inf")]), truth, 1e-3, 0.0)
    assert units == pytest.approx(1.0, rel=1e-3) and largest == pytest.approx(1e-3, rel=1e-3)
    assert errors_against(torch.tensor([float("nan"), 1.0, -2.0, float("inf")]), truth, 1.0, 1.0) == (
        float("inf"), float("inf"))


def test_the_note_names_the_tests_and_the_worst_errors():
    check = OrderCheck("output", 18.8, 0.00241, 4.75, 0.00127, 36, 4096)
    note = order_note(1e-5, 1e-5, [("functional-3", check), ("functional-4", check)])
    assert note.startswith("LeetGPU's tolerance, not an error of your algorithm's order: on functional-3, "
                           "functional-4,")
    assert "your largest error is 0.00241 (18.8x the tolerance)" in note and "0.00127 (4.75x)" in note


@pytest.mark.slow
def test_an_honest_blocked_scan_is_accepted_with_a_note_where_the_tolerance_alone_rejects_it():
    """The issue's Triton prefix sum (tl.cumsum per block, torch.cumsum of the block totals) against a reference
    that scans in a float32 tree, as a GPU does, with LeetGPU's 1e-5: elements differ by more than atol/rtol,
    but the float64 run shows both answers' errors of one order.  The same seed is the same verdict; a scan of
    inputs read in half precision is still rejected, saying why."""
    spec = load_folder(PRECISION / "medium" / "1_tree_scan")
    result = judge_solution(spec, str(STABLE / "prefix_sum_blocked.py"), Options(seed=1, interpret=True))
    assert result.verdict == Verdict.ACCEPTED, result.message
    (note,) = [n for n in result.notes if n.startswith("LeetGPU's tolerance, not an error of your algorithm's order")]
    assert "functional-4" in note and "so the judge accepts it" in note
    half = judge_solution(spec, str(STABLE / "prefix_sum_half_inputs.py"), Options(seed=1, interpret=True))
    assert half.verdict == Verdict.WRONG_ANSWER
    failed = next(t for t in half.tests if t.verdict == Verdict.WRONG_ANSWER)
    assert "an error of a larger order than the reference's own rounding" in failed.message


@pytest.mark.slow
def test_a_leetgpu_reference_judged_in_exact_arithmetic_accepts_the_exact_answer():
    spec = load_folder(PRECISION / "easy" / "2_reads_flags")
    result = judge_solution(spec, str(SOLUTIONS / "writes_zeros.py"), Options(seed=1, interpret=True))
    assert result.verdict == Verdict.ACCEPTED, result.message
    conv = load_folder(PRECISION / "medium" / "3_conv2d")
    result = judge_solution(conv, str(SOLUTIONS / "conv2d_fp32.py"), Options(seed=1, interpret=True))
    assert result.verdict == Verdict.ACCEPTED, result.message
