"""The 'what changed' lines of judge watch (judge/watch/run_changes.py)."""

from __future__ import annotations

from judge.watch.run_changes import changes_between, speed_change, verdict_change


def _bench(name, median, low=None, high=None, verdict="accepted"):
    return {"name": name, "verdict": verdict, "median_ms": median,
            "ci_low_ms": median if low is None else low, "ci_high_ms": median if high is None else high}


def _run(verdict="accepted", passed=3, total=3, benchmarks=(), seed=1, mode="gpu"):
    tests = [{"verdict": "accepted"}] * passed + [{"verdict": "wrong_answer"}] * (total - passed)
    return {"verdict": verdict, "tests": tests, "benchmarks": list(benchmarks), "seed": seed, "mode": mode}


def test_a_faster_median_reads_as_in_the_issue():
    assert speed_change(_bench("a", 0.1336), _bench("a", 0.1290)) == "0.1336 ms → 0.1290 ms, 1.036× faster"


def test_slower_and_microsecond_times_and_overlapping_intervals():
    text = speed_change(_bench("a", 0.090, 0.089, 0.091), _bench("a", 0.0905, 0.0895, 0.0915))
    assert text == "90.00 µs → 90.50 µs, 1.006× slower (the 95% intervals overlap: within noise)"
    assert speed_change(_bench("a", 12.5), _bench("a", 12.5)) == "12.50 ms → 12.50 ms, the same"


def test_the_first_judgement_has_nothing_to_compare():
    assert changes_between(None, _run()) == []


def test_a_verdict_change_and_the_tests_passed_get_a_line_each():
    assert verdict_change(_run(), _run()) is None
    lines = changes_between(_run("wrong_answer", passed=1), _run())
    assert lines == ["verdict: wrong_answer → accepted", "tests passed: 1 → 3 of 3"]


def test_benchmarks_are_compared_by_name_and_only_when_both_were_timed():
    before = _run(benchmarks=[_bench("square", 0.1336), _bench("tall", 1.0), _bench("wide", 2.0)])
    after = _run(benchmarks=[_bench("square", 0.1290), _bench("tall", 1.0, verdict="wrong_answer"),
                             _bench("new", 3.0)])
    assert changes_between(before, after) == ["square: 0.1336 ms → 0.1290 ms, 1.036× faster"]


def test_runs_of_another_seed_are_not_compared_case_by_case():
    lines = changes_between(_run(benchmarks=[_bench("a", 1.0)], seed=1), _run(benchmarks=[_bench("a", 2.0)], seed=2))
    assert lines == ["(another seed or mode: times are not compared)"]
