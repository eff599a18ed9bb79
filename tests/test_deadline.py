"""A call's time limit counts the call, not Triton's compiling for it (issue 16):
a solve() that hangs in its first call is stopped after about the per-call
timeout, not the compile timeout; compiling is still bounded by the latter."""

from __future__ import annotations

import time

import pytest

from judge.challenge.cases import Case
from judge.challenge.spec import load_spec
from judge.judging.reference import Reference
from judge.judging.runner import Events, Options, Runner
from judge.judging.dispatch import judge_solution
from judge.judging.verdict import Verdict
from judge.worker.client import WorkerTimeout
from judge.worker.deadline import CallDeadline

from conftest import SOLUTIONS, SPECS

TINY = load_spec(SPECS / "tiny_transpose.yaml")
START, END = {"event": "compile", "state": "start"}, {"event": "compile", "state": "end"}


def test_without_compiles_the_deadline_is_the_per_call_timeout():
    clock = CallDeadline(100.0, 30.0, cap=180.0)
    assert clock.deadline() == 130.0
    assert clock.explain("solve() on n=1", 130.0) == "solve() on n=1 did not finish within 30 s; the worker was killed"


def test_compile_time_moves_the_deadline_and_an_open_compile_waits_for_the_cap():
    clock = CallDeadline(100.0, 30.0, cap=180.0)
    clock.note(START, 101.0)
    assert clock.deadline() == 280.0
    clock.note(END, 111.0)
    assert clock.deadline() == 140.0
    clock.note(START, 120.0)
    clock.note(START, 121.0)  # nested: counted once
    clock.note(END, 125.0)
    assert clock.deadline() == 280.0
    clock.note(END, 130.0)
    assert clock.deadline() == 150.0 and clock.compiling_s(150.0) == 20.0
    assert "(not counting 20.0 s of compiling)" in clock.explain("solve()", 150.0)


def test_compiles_never_extend_past_the_cap_and_stray_events_are_ignored():
    clock = CallDeadline(0.0, 30.0, cap=60.0)
    clock.note(END, 1.0)  # an end without a start
    clock.note({"event": "other", "state": "start"}, 1.0)
    assert clock.deadline() == 30.0
    clock.note(START, 2.0)
    clock.note(END, 200.0)
    assert clock.deadline() == 60.0
    assert "within 60 s (the compile timeout), 198.0 s of it compiling" in clock.explain("solve()", 60.0)


def test_without_a_cap_events_change_nothing():
    clock = CallDeadline(0.0, 5.0)
    clock.note(START, 1.0)
    assert clock.deadline() == 5.0


class _FakeWorker:
    alive = True

    def __init__(self):
        self.asked, self.what = [], []

    def place(self, parameters, call, zoned=True):
        return {}

    def request(self, header, timeout, what, cap=None):
        self.asked.append((timeout, cap))
        self.what.append(what)
        raise WorkerTimeout("stopped")

    def output_tail(self):
        return ""


def test_every_call_gets_the_per_call_timeout_of_the_detected_mode_and_the_compile_cap(monkeypatch):
    monkeypatch.setattr("judge.judging.runner.torch.cuda.is_available", lambda: False)
    runner = Runner(TINY, str(SOLUTIONS / "transpose_ok.py"), Options(seed=1), Events())  # CPU mode, not asked
    runner.reference, runner.worker = Reference(TINY, "cpu"), _FakeWorker()
    for _ in range(2):  # the first call (which compiles) and a later one alike
        outcome = runner.run_case(Case("c", "edge", {"rows": 2, "cols": 3}))
        assert outcome.verdict == Verdict.TIME_LIMIT_EXCEEDED
    assert runner.worker.asked == [(60.0, 180.0)] * 2  # 30 s was the GPU's default, used without --interpret


def test_a_time_out_names_the_case_and_which_call_it_was(monkeypatch):
    """Issue 49 item 5: a hang said only "solve() on rows=13, cols=17 did not finish"; which case, and which
    call of the run (the case's own, or a call the diagnosis made), is what a learner asks next."""
    monkeypatch.setattr("judge.judging.runner.torch.cuda.is_available", lambda: False)
    runner = Runner(TINY, str(SOLUTIONS / "transpose_ok.py"), Options(seed=1), Events())
    runner.reference, runner.worker = Reference(TINY, "cpu"), _FakeWorker()
    messages = [runner.run_case(Case("edge-6", "edge", {"rows": 13, "cols": 17})).message]
    runner.zero_outputs = True
    messages.append(runner.run_case(Case("edge-6", "edge", {"rows": 13, "cols": 17})).message)
    runner.zero_outputs = False
    messages.append(runner.run_case(Case("shrink:rows=2, cols=1", "shrink", {"rows": 2, "cols": 1})).message)
    assert messages == [
        "stopped (case edge-6, the run's first call)",
        "stopped (case edge-6, run with its outputs zeroed to tell an output never initialised, "
        "call 2 of this run; the 1 before it finished)",
        "stopped (a smaller size the search for the smallest failing one tried, call 3 of this run; "
        "the 2 before it finished)"]
    assert runner.worker.what == ["solve() on rows=13, cols=17"] * 2 + ["solve() on rows=2, cols=1"]  # causes alike


@pytest.mark.slow
def test_a_hang_in_the_first_call_is_stopped_at_the_per_call_timeout():
    started = time.monotonic()
    result = judge_solution(TINY, str(SOLUTIONS / "transpose_hang.py"),
                            Options(seed=1, interpret=True, timeout=2.0, benchmark=False))
    elapsed = time.monotonic() - started
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED
    assert "did not finish within 2 s; the worker was killed" in result.tests[0].message
    assert f"(case {result.tests[0].name}, the run's first call)" in result.tests[0].message
    assert elapsed < 40  # start-up (a few seconds on a busy machine) and 2 s, far from the 180 s compile timeout
    # where it hung: the worker's stacks, asked for before it was killed (issue 49)
    assert 'transpose_hang.py", line' in result.tests[0].message and " in solve" in result.tests[0].message


@pytest.mark.slow
def test_a_slow_compile_in_the_first_call_does_not_count_against_the_timeout():
    result = judge_solution(TINY, str(SOLUTIONS / "transpose_slow_compile.py"),
                            Options(seed=1, interpret=True, timeout=1.5, benchmark=False))
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.phases_s["first_call"] >= 3.0
