"""Failures grouped by cause (judge/judging/failures.py; issue 29 item 4): pure (one test borrows the worker's guard message)."""

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


def test_a_byte_count_is_one_cause_in_any_unit():
    """Issue 49 item 3: "188 bytes" and "5.9 KiB" past the end were two causes, so the search for a smaller
    failing size refused rows=32 (and rows=2) as failing otherwise and reported rows=33."""
    def past(reach: str) -> str:
        return message_cause("runtime_error", f"solve() wrote outside `output` (float32[48, 1]): up to {reach} past "
                                              "its end (an out-of-bounds store: check the kernel's masks)")
    assert past("188 bytes") == past("5.9 KiB") == past("1 byte") == past("64.0 MiB")
    assert message_cause("wrong_answer", "a BLOCK of 4 Bytes") == "wrong_answer: a BLOCK of # Bytes"  # words stay


def test_the_search_for_a_smaller_size_finds_the_smallest_out_of_bounds_store():
    """An unmasked 32 x 32 transpose tile stores up to ``31 * rows + 31`` elements into a ``rows * cols`` output:
    every size that is not a multiple of the tile fails alike, whatever its reach (bytes or KiB)."""
    from judge.challenge.cases import shrink
    from judge.challenge.spec import load_spec
    from judge.worker.arguments import GuardViolation

    from conftest import ROOT

    spec = load_spec(ROOT / "tests" / "specs" / "tiny_transpose.yaml")

    def cause(params: dict) -> str:
        rows, cols = params["rows"], params["cols"]
        reach = (31 * rows + 32 - rows * cols) * 4
        if rows % 32 == 0 and cols % 32 == 0 or rows == cols == 1:  # 1 x 1: its stray store copies canary
            return "accepted"
        return message_cause("runtime_error", GuardViolation("output", f"float32[{cols}, {rows}]", reach, 0).message())

    first = cause({"rows": 48, "cols": 1})
    smallest, _ = shrink(spec, {"rows": 48, "cols": 1}, lambda p: cause(p) == first, 30,
                         {"rows": (1, 48), "cols": (1, 48)})
    assert smallest == {"rows": 2, "cols": 1}
