"""Failures grouped by cause (judge/judging/failures.py; issue 29 item 4): pure, no torch."""

from __future__ import annotations

from judge.judging.failures import group_failures, headline, message_cause


def test_a_cause_leaves_out_numbers_and_what_the_solution_printed():
    one = message_cause("runtime_error", "Traceback (most recent call last):\n  File \"s.py\", line 3\n"
                                         "IndexError: index 48 is out of bounds for size 48\n"
                                         "--- solution output (tail) ---\nrows=48")
    two = message_cause("runtime_error", "Traceback (most recent call last):\n  File \"s.py\", line 9\n"
                                         "IndexError: index 7 is out of bounds for size 7\n"
                                         "--- solution output (tail) ---\nsomething else")
    assert one == two == "runtime_error: IndexError: index # is out of bounds for size #"
    assert message_cause("time_limit_exceeded", "solve() on rows=3, cols=1.5e3 took over 60 s") == \
        "time_limit_exceeded: solve() on rows=#, cols=# took over # s"
    assert message_cause("runtime_error", "boom") != message_cause("wrong_answer", "boom")


def test_groups_keep_the_order_of_their_first_failure_and_causes_left_out_stand_alone():
    assert group_failures(["a", "b", "a", None, "", "b", "a"]) == [[0, 2, 6], [1, 5], [3], [4]]
    assert group_failures([]) == []


def test_headline_is_a_tracebacks_last_line_after_a_shrink_note():
    message = "fails at rows=2 (smallest found in 3 tries)\nTraceback (most recent call last):\n  x\nValueError: no"
    assert headline(message) == "fails at rows=2 (smallest found in 3 tries): ValueError: no"
