"""Hints beyond the numbers (judge/judging/hints.py; issue 49): pure, no worker."""

from __future__ import annotations

from judge.judging.hints import add_grid_hint
from judge.judging.verdict import CaseResult, Verdict

NEVER = "wrong_answer: 'C': never written"


def _case(name: str, n: int, verdict: Verdict, cause: str = "") -> CaseResult:
    return CaseResult(name, "edge", {"N": n}, verdict, f"'C': {n} of {n} elements never written" if cause else "",
                      cause=cause)


def test_the_headline_of_a_grid_one_block_short_gets_the_cdiv_hint():
    """vector_add with a grid of N // BLOCK programs: N=1 (the headline) is never written, N=5000 only in
    part; the hint came only with the second failure."""
    tests = [_case("edge-1", 1, Verdict.WRONG_ANSWER, NEVER),
             _case("edge-6", 5000, Verdict.WRONG_ANSWER, "wrong_answer: 'C': some elements never written"),
             _case("edge-2", 2, Verdict.WRONG_ANSWER, NEVER)]
    add_grid_hint(tests)
    first = tests[0].message.splitlines()[0]
    assert "triton.cdiv(N, BLOCK)" in first and "edge-6 (N=5000) was written in part" in first
    assert tests[2].message.startswith("no element of the output was written")
    assert tests[0].cause == NEVER  # still grouped with the other cases never written


def test_a_case_that_passed_at_a_larger_size_is_a_witness_too():
    tests = [_case("edge-1", 1, Verdict.WRONG_ANSWER, NEVER), _case("32", 32, Verdict.ACCEPTED)]
    add_grid_hint(tests)
    assert "while 32 (N=32) passed" in tests[0].message


def test_an_output_never_written_at_any_size_gets_no_grid_hint():
    """The empty starter: nothing says the grid is why; nor does a smaller size that passed."""
    tests = [_case(f"edge-{n}", n, Verdict.WRONG_ANSWER, NEVER) for n in (48, 5000)] + [_case("one", 1, Verdict.ACCEPTED)]
    add_grid_hint(tests)
    assert not any("triton.cdiv" in t.message for t in tests)
