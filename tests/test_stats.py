"""Tests for judge.timing.stats (pure statistics, stdlib only)."""

from __future__ import annotations

import json
import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.timing.stats import (
    EXACT_BINOMIAL_MAX_N,
    Decision,
    Ratio,
    Stats,
    StoppingRule,
    format_ratio,
    geometric_mean,
    geometric_mean_stats,
    median_ci_ranks,
    ratio,
    tied,
)


def brute_force_coverage(n: int, j: int, k: int) -> Fraction:
    """P(j <= B < k), B ~ Binomial(n, 1/2), by building Pascal's row by addition.

    Deliberately independent of math.comb and of the module's incremental sum.
    """
    row = [1]
    for _ in range(n):
        row = [a + b for a, b in zip([0] + row, row + [0])]
    return Fraction(sum(row[j:k]), 2**n)


# -- Stats: basic statistics --------------------------------------------------


def test_median_odd_n():
    assert Stats([5.0, 1.0, 3.0]).median == 3.0


def test_median_even_n():
    assert Stats([4.0, 1.0, 3.0, 2.0]).median == 2.5


def test_basic_statistics_hand_computed():
    s = Stats([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    assert (s.n, s.min, s.max) == (8, 2.0, 9.0)
    assert s.mean == 5.0
    assert s.stdev == pytest.approx(math.sqrt(32 / 7))
    assert s.cv == pytest.approx(math.sqrt(32 / 7) / 5.0)
    # Type-7 quartiles: q1 at position 1.75 -> 4.0, q3 at 5.25 -> 5.5.
    assert s.iqr == pytest.approx(1.5)


def test_single_sample():
    s = Stats([3.0])
    assert (s.median, s.stdev, s.iqr, s.cv) == (3.0, 0.0, 0.0, 0.0)
    assert (s.ci_low, s.ci_high, s.ci_exact) == (3.0, 3.0, False)


def test_samples_keep_input_order():
    assert Stats([3.0, 1.0, 2.0]).samples == (3.0, 1.0, 2.0)


@pytest.mark.parametrize("bad", [[], [1.0, 0.0], [1.0, -2.0], [float("nan")], [float("inf")]])
def test_invalid_samples_rejected(bad):
    with pytest.raises(ValueError):
        Stats(bad)


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5])
def test_invalid_confidence_rejected(confidence):
    with pytest.raises(ValueError):
        Stats([1.0, 2.0], confidence=confidence)


def test_as_dict_is_json_plain():
    d = Stats([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]).as_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["n"] == 7 and d["median"] == 4.0 and d["confidence"] == 0.95
    assert all(type(v) in (int, float, bool) for v in d.values())


# -- Median confidence interval -----------------------------------------------


def test_ci_ranks_n10_are_2_and_9():
    assert median_ci_ranks(10) == (2, 9, True)
    assert brute_force_coverage(10, 2, 9) >= Fraction(95, 100)  # 1002/1024
    assert brute_force_coverage(10, 3, 8) < Fraction(95, 100)  # 912/1024


def test_ci_n10_values_are_order_statistics():
    s = Stats([float(x) for x in (10, 3, 7, 1, 9, 2, 8, 4, 6, 5)])
    assert (s.ci_low, s.ci_high, s.ci_exact) == (2.0, 9.0, True)
    assert s.ci_half_width_rel == pytest.approx(3.5 / 5.5)


@pytest.mark.parametrize("n", list(range(6, 80)) + [101, 250])
def test_ci_ranks_are_narrowest_reaching_95(n):
    j, k, attained = median_ci_ranks(n)
    assert attained and k == n + 1 - j
    assert brute_force_coverage(n, j, k) >= Fraction(95, 100)
    # One rank narrower would fall below 95 % (or cross the median).
    assert j + 1 >= k - 1 or brute_force_coverage(n, j + 1, k - 1) < Fraction(95, 100)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_small_n_falls_back_to_min_max(n):
    assert median_ci_ranks(n) == (1, n, False)
    s = Stats([float(i) for i in range(1, n + 1)])
    assert (s.ci_low, s.ci_high, s.ci_exact) == (1.0, float(n), False)


def test_lower_confidence_gives_narrower_ranks():
    assert median_ci_ranks(10, 0.5) == (4, 7, True)
    assert brute_force_coverage(10, 4, 7) >= Fraction(1, 2)
    assert brute_force_coverage(10, 5, 6) < Fraction(1, 2)
    assert median_ci_ranks(5, 0.9) == (1, 5, True)  # 30/32 >= 0.9


def test_normal_approximation_close_to_exact_past_cutoff():
    # Exact ranks at the cutoff vs approximate ranks just above it differ by
    # the usual O(1) growth, never a jump.
    j_exact = median_ci_ranks(EXACT_BINOMIAL_MAX_N)[0]
    j_approx = median_ci_ranks(EXACT_BINOMIAL_MAX_N + 1)[0]
    assert abs(j_approx - j_exact) <= 1
    # And the approximate rank reaches ~95 % coverage (checked via lgamma tails).
    n = 4001
    j, k, _ = median_ci_ranks(n)
    log_half_n = n * math.log(0.5)
    tail = math.fsum(
        math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + log_half_n)
        for i in range(j)
    )
    assert 0.945 <= 1 - 2 * tail <= 0.96


@given(
    st.lists(
        st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False),
        min_size=1,
        max_size=100,
    )
)
def test_ci_brackets_median_for_any_samples(samples):
    s = Stats(samples)
    assert s.min <= s.ci_low <= s.median <= s.ci_high <= s.max
    assert s.median == statistics.median(samples)
    assert s.ci_half_width_rel >= 0.0
    assert s.ci_exact == (len(samples) >= 6)


# -- Stopping rule ------------------------------------------------------------


TIGHT = [1.0 + 0.0001 * (i % 3) for i in range(40)]
NOISY = [1.0 if i % 2 else 2.0 for i in range(40)]


def test_default_rule_parameters():
    rule = StoppingRule()
    assert (rule.min_calls, rule.target_rel_ci, rule.budget_s, rule.max_calls) == (
        10,
        0.01,
        2.0,
        10_000,
    )


def test_continues_before_min_calls_even_past_budget():
    rule = StoppingRule()
    assert rule.decide(NOISY[:9], elapsed_s=100.0) == Decision(False, "")
    assert rule.decide(TIGHT[:9], elapsed_s=100.0) == Decision(False, "")
    assert rule.decide([], elapsed_s=100.0) == Decision(False, "")


def test_converged_for_tight_samples_at_min_calls():
    rule = StoppingRule()
    assert rule.decide(TIGHT[:10], elapsed_s=0.01) == Decision(True, "converged")


def test_noisy_samples_stop_on_budget_only():
    rule = StoppingRule()
    clock = [0.0]

    def fake_elapsed(step: float) -> float:
        clock[0] += step
        return clock[0]

    # Steps of 0.25 s are exact in binary, so the last call sees exactly 2.0 s.
    decisions = [rule.decide(NOISY[: 10 + i], fake_elapsed(0.25)) for i in range(7)]
    assert all(not d.stop for d in decisions)  # t = 0.25 .. 1.75 s
    assert rule.decide(NOISY[:17], fake_elapsed(0.25)) == Decision(True, "budget")  # t = 2.0 s


def test_max_calls_stops_noisy_samples():
    rule = StoppingRule(max_calls=20)
    assert not rule.decide(NOISY[:19], elapsed_s=0.0).stop
    assert rule.decide(NOISY[:20], elapsed_s=0.0) == Decision(True, "max_calls")


def test_max_calls_below_min_calls_wins():
    rule = StoppingRule(min_calls=10, max_calls=4)
    assert not rule.decide(NOISY[:3], elapsed_s=0.0).stop
    assert rule.decide(NOISY[:4], elapsed_s=0.0) == Decision(True, "max_calls")


def test_converged_preferred_over_budget():
    assert StoppingRule().decide(TIGHT[:12], elapsed_s=5.0) == Decision(True, "converged")


def test_small_n_never_counts_as_converged():
    # Three identical samples have a zero-width interval that only covers 75 %.
    rule = StoppingRule(min_calls=3)
    assert not rule.decide([1.0, 1.0, 1.0], elapsed_s=0.0).stop
    assert rule.decide([1.0] * 6, elapsed_s=0.0) == Decision(True, "converged")


@pytest.mark.parametrize(
    "kwargs", [{"min_calls": 0}, {"max_calls": 0}, {"target_rel_ci": -0.1}, {"confidence": 1.0}]
)
def test_invalid_rule_rejected(kwargs):
    with pytest.raises(ValueError):
        StoppingRule(**kwargs)


# -- Ratios, ties, aggregation ------------------------------------------------

# Sorted 1..10 scaled: median 5.5*scale, CI = (2*scale, 9*scale).
A = Stats([2.0 * x for x in range(1, 11)])  # median 11, CI [4, 18]
B = Stats([float(x) for x in range(1, 11)])  # median 5.5, CI [2, 9]
FAR = Stats([100.0 + x for x in range(1, 11)])  # median 105.5, CI [102, 109]


def test_ratio_value_and_interval():
    r = ratio(A, B)
    assert r.value == 2.0
    assert r.low == pytest.approx(4.0 / 9.0)
    assert r.high == pytest.approx(18.0 / 2.0)
    assert r.err == pytest.approx((9.0 - 4.0 / 9.0) / 2.0)
    assert r.low <= r.value <= r.high


def test_ratio_overlaps():
    assert Ratio(1.0, 0.9, 1.1).overlaps(Ratio(1.15, 1.1, 1.2))
    assert not Ratio(1.0, 0.9, 1.1).overlaps(Ratio(1.3, 1.2, 1.4))


def test_tied():
    assert tied(A, B) and tied(B, A)
    assert not tied(B, FAR) and not tied(FAR, B)


def test_geometric_mean():
    assert geometric_mean([1.0, 4.0, 16.0]) == pytest.approx(4.0)
    assert geometric_mean([2.0]) == pytest.approx(2.0)
    for bad in ([], [1.0, 0.0], [-1.0]):
        with pytest.raises(ValueError):
            geometric_mean(bad)


def test_geometric_mean_stats():
    gm, lo, hi = geometric_mean_stats([A, B])
    assert gm == pytest.approx(math.sqrt(11.0 * 5.5))
    assert lo == pytest.approx(math.sqrt(4.0 * 2.0))
    assert hi == pytest.approx(math.sqrt(18.0 * 9.0))
    with pytest.raises(ValueError):
        geometric_mean_stats([])


@pytest.mark.parametrize(
    "r, text",
    [
        (Ratio(1.0, 1.0, 1.0), "best"),
        (Ratio(1.84, 1.79, 1.89), "1.84 ± 0.05× slower"),
        (Ratio(0.5, 0.49, 0.51), "2.00 ± 0.04× faster"),  # err 0.01 / 0.25
        (Ratio(1.0, 0.97, 1.03), "1.00 ± 0.03×"),
    ],
)
def test_format_ratio(r, text):
    assert format_ratio(r) == text
