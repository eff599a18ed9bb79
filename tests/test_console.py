"""The run report's wording (judge/report/console.py) on results made by hand: no worker (issue 49 item 4)."""

from __future__ import annotations

import io

from judge.judging.runner import RunResult
from judge.judging.verdict import CaseResult, Verdict
from judge.report.console import make_console, render_run

TRACEBACK = ("Traceback (most recent call last, solution frames only):\n  File \"s.py\", line 10, in solve\n"
             "    k[grid](x)\ntriton.runtime.errors.InterpreterError: NameError(\"name 'undefined_name' is not defined\")")


def _render(result: RunResult) -> str:
    stream = io.StringIO()
    render_run(make_console(stream, plain=True), result)
    return stream.getvalue()


def test_a_compile_error_rows_detail_is_the_error_not_the_traceback_header():
    """It was "Traceback (most recent call last, solution frames only):" in each of 18 rows."""
    result = RunResult("transpose", "s.py", "interpret", 1, "cpu", verdict=Verdict.COMPILE_ERROR, message="m")
    result.tests = [CaseResult("edge-1", "edge", {"rows": 1}, Verdict.COMPILE_ERROR, TRACEBACK),
                    CaseResult("edge-2", "edge", {"rows": 3}, Verdict.COMPILE_ERROR, TRACEBACK.replace("10", "11"))]
    table = _render(result).split("compile_error on edge-1")[0]
    assert "Traceback" not in table and "InterpreterError: NameError" in table


def test_an_invalid_submission_says_its_message_once():
    result = RunResult("transpose", "nosolve.py", "interpret", 1, "cpu", verdict=Verdict.INVALID_SUBMISSION,
                       message="nosolve.py defines no function named 'solve'; expected solve(input, output, rows, cols)")
    text = _render(result)
    assert text.count("defines no function named 'solve'") == 1, text
    assert "reproduce with" not in text
    imported = RunResult("transpose", "i.py", "interpret", 1, "cpu", verdict=Verdict.INVALID_SUBMISSION,
                         message=f"importing the solution failed:\n{TRACEBACK}")
    text = _render(imported)
    assert "INVALID_SUBMISSION importing the solution failed: triton.runtime.errors.InterpreterError" in text
    assert text.count("importing the solution failed") == 1 and 'File "s.py", line 10' in text


def test_the_reproduce_line_names_the_failing_case_and_its_smallest_size():
    """Issue 49 item 6: the diagnosis's "reproduce" hint suggests judging exactly the failing case again."""
    failed = CaseResult("edge-2", "edge", {"rows": 48, "cols": 1}, Verdict.RUNTIME_ERROR, "x",
                        details={"smallest_failing": {"rows": 2, "cols": 1}})
    result = RunResult("transpose", "s.py", "interpret", 7, "cpu", verdict=Verdict.RUNTIME_ERROR, message="m",
                       tests=[CaseResult("edge-1", "edge", {"rows": 1, "cols": 1}, Verdict.ACCEPTED), failed])
    assert "reproduce with: --seed 7; this case alone: --seed 7 --case edge-2; the smallest failing size alone: " \
           "--seed 7 --sizes rows=2,cols=1" in _render(result)
    alone = RunResult("transpose", "s.py", "interpret", 7, "cpu", verdict=Verdict.RUNTIME_ERROR, message="m",
                      tests=[CaseResult("rows=2, cols=1", "sizes", {"rows": 2, "cols": 1}, Verdict.RUNTIME_ERROR, "x")])
    text = _render(alone)
    assert "this case alone: --seed 7 --sizes rows=2,cols=1" in text and "--case" not in text
    assert "runtime_error on rows=2, cols=1:" in text  # named by its sizes, said once
