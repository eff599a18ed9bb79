"""The pure ranking logic, driven by a fake clock and a fake timing source."""

from __future__ import annotations

import random

import pytest

from judge.ranking.ranking_math import (DroppedOut, Entry, Estimate, RoundPlan, calls_for_round, converged,
                           measure_in_rounds, rank_entries, ratio_text, ratio_to, round_order, score)
from judge.timing.stats import Ratio


class FakeGPU:
    """Kernels with fixed true times, a clock that advances by what they run,
    and an optional linear drift: every call at time t takes (1 + drift * t)
    times its true time, as when a GPU heats up and its clock falls.
    """

    def __init__(self, true_ms: dict, drift_per_s: float = 0.0, noise: float = 0.0, seed: int = 0,
                 overhead_s: float = 0.02):
        self.true_ms, self.drift, self.noise = true_ms, drift_per_s, noise
        self.now, self.rng, self.overhead_s = 0.0, random.Random(seed), overhead_s
        self.calls = []

    def clock(self) -> float:
        return self.now

    def sample(self, name: str, case: str, round_index: int, calls: int) -> list[float]:
        self.calls.append((name, case, round_index, calls))
        self.now += self.overhead_s  # warm-up and messages
        out = []
        for _ in range(calls):
            ms = self.true_ms[name][case] if isinstance(self.true_ms[name], dict) else self.true_ms[name]
            ms *= (1.0 + self.drift * self.now) * (1.0 + self.rng.uniform(-self.noise, self.noise))
            out.append(ms)
            self.now += ms / 1e3
        return out


def est(median, half=0.0):
    return Estimate(median, median - half, median + half)


# -- ordering --------------------------------------------------------------------
def test_score_is_the_geometric_mean_of_each_end():
    s = score([Estimate(1.0, 0.9, 1.1), Estimate(4.0, 3.6, 4.4)])
    assert s.median == pytest.approx(2.0)
    assert s.low == pytest.approx((0.9 * 3.6) ** 0.5) and s.high == pytest.approx((1.1 * 4.4) ** 0.5)
    with pytest.raises(ValueError):
        score([])


def test_geometric_mean_weighs_every_case_alike():
    # A 2x gain on the small case counts as much as a 2x gain on the large one.
    a = score([est(1.0), est(100.0)])
    b = score([est(2.0), est(50.0)])
    assert a.median == pytest.approx(b.median)


def test_ranking_orders_by_score_and_lists_rejected_last_in_input_order():
    entries = [
        Entry("slow.py", "accepted", cases={"x": est(3.0, 0.01), "y": est(3.0, 0.01)}),
        Entry("broken.py", "wrong_answer", "wrong at rows=17"),
        Entry("fast.py", "accepted", cases={"x": est(1.0, 0.01), "y": est(1.0, 0.01)}),
        Entry("crash.py", "runtime_error", "IndexError"),
    ]
    standings = rank_entries(entries)
    assert [s.name for s in standings] == ["fast.py", "slow.py", "broken.py", "crash.py"]
    assert [s.rank for s in standings] == [1, 2, None, None]
    assert standings[0].ratio == Ratio(1.0, 1.0, 1.0) and ratio_text(standings[0].ratio) == "best"
    assert standings[1].ratio.value == pytest.approx(3.0)
    assert standings[1].tied_with == ()
    assert standings[2].score is None and standings[2].as_dict()["rank"] is None


def test_ratio_to_best_carries_the_uncertainty():
    r = ratio_to(Estimate(1.84, 1.80, 1.88), Estimate(1.0, 0.99, 1.01))
    assert r.value == pytest.approx(1.84)
    assert r.low == pytest.approx(1.80 / 1.01) and r.high == pytest.approx(1.88 / 0.99)
    assert ratio_text(r) == f"1.84 ± {r.err:.2f}× slower than best"
    assert ratio_text(ratio_to(est(0.5, 0.005), est(1.0, 0.01))) == "2.00 ± 0.04× faster than best"
    assert ratio_text(Ratio(1.05, 1.049, 1.051)) == "1.050 ± 0.001× slower than best"  # not "± 0.00"
    assert ratio_text(None) == "-"


def test_overlapping_intervals_are_tied_and_share_a_rank():
    entries = [
        Entry("a", "accepted", cases={"x": Estimate(1.00, 0.98, 1.02)}),
        Entry("b", "accepted", cases={"x": Estimate(1.01, 0.99, 1.03)}),  # overlaps a
        Entry("c", "accepted", cases={"x": Estimate(1.04, 1.025, 1.06)}),  # overlaps b, not a
        Entry("d", "accepted", cases={"x": Estimate(2.00, 1.99, 2.01)}),
    ]
    standings = {s.name: s for s in rank_entries(entries)}
    assert standings["a"].rank == standings["b"].rank == 1
    assert standings["c"].rank == 3  # not tied with the leader of rank 1
    assert set(standings["c"].tied_with) == {"b"}
    assert set(standings["b"].tied_with) == {"a", "c"}
    assert standings["d"].rank == 4 and standings["d"].tied_with == ()
    assert standings["b"].ratio.low <= 1.0 <= standings["b"].ratio.high  # tied: the ratio's interval holds 1


def test_cpu_mode_ranks_by_correctness_only():
    standings = rank_entries([Entry("a", "accepted"), Entry("b", "wrong_answer", "x"), Entry("c", "accepted")])
    assert [(s.name, s.rank) for s in standings] == [("a", 1), ("c", 1), ("b", None)]
    assert standings[0].score is None and standings[0].ratio is None
    assert standings[0].tied_with == ("c",)
    assert standings[0].as_dict()["score_ms"] is None


def test_standing_as_dict_has_the_documented_keys():
    d = rank_entries([Entry("a", "accepted", cases={"x": est(1.0, 0.01)})])[0].as_dict()
    assert {"solution", "rank", "verdict", "score_ms", "ratio_to_best"} <= set(d)
    assert d["rank"] == 1 and d["ratio_to_best"] == 1.0 and d["vs_best"] == "best"


# -- rounds ------------------------------------------------------------------------
def test_round_order_rotates():
    assert [round_order("ABC", r) for r in range(4)] == [list("ABC"), list("BCA"), list("CAB"), list("ABC")]
    assert round_order([], 3) == []


def test_calls_per_round_aim_at_the_round_time():
    plan = RoundPlan(first_calls=10, min_calls=5, max_calls=100, round_ms=100.0)
    assert calls_for_round([], plan) == 10
    assert calls_for_round([40.0] * 10, plan) == 5  # a slow kernel: the minimum
    assert calls_for_round([2.0] * 10, plan) == 50
    assert calls_for_round([0.001] * 10, plan) == 100  # a fast one: the maximum


def test_converged_needs_coverage_and_a_narrow_interval():
    plan = RoundPlan(target_rel_ci=0.01)
    assert not converged([], plan)
    assert not converged([1.0] * 5, plan)  # n < 6 cannot attain 95 %
    assert converged([1.0] * 6, plan)
    assert not converged([1.0, 2.0] * 10, plan)


def test_rounds_interleave_and_pool_samples():
    gpu = FakeGPU({"A": 1.0, "B": 2.0, "C": 4.0}, noise=0.01)
    plan = RoundPlan(min_rounds=3, max_rounds=3, budget_s=1e9, target_rel_ci=0.0)
    rounds = measure_in_rounds(["A", "B", "C"], ["x"], gpu.sample, plan, gpu.clock)
    assert [c[0] for c in gpu.calls] == list("ABCBCACAB")
    assert rounds.rounds == 3 and rounds.stop_reason == "max_rounds"
    assert len(rounds.pooled("A", "x")) == sum(c[3] for c in gpu.calls if c[0] == "A")


def test_rounds_stop_when_every_ci_is_within_target():
    gpu = FakeGPU({"A": 1.0, "B": 2.0}, noise=0.002)
    rounds = measure_in_rounds(["A", "B"], ["x", "y"], gpu.sample, RoundPlan(budget_s=1e9), gpu.clock)
    assert rounds.stop_reason == "converged" and rounds.rounds == 3  # the minimum


def test_rounds_stop_on_the_budget_of_the_fake_clock_after_the_minimum():
    gpu = FakeGPU({"A": 1.0, "B": 1.0}, noise=0.5)  # too noisy for ±1 %
    plan = RoundPlan(budget_s=0.5, min_rounds=2)
    rounds = measure_in_rounds(["A", "B"], ["x"], gpu.sample, plan, gpu.clock)
    assert rounds.stop_reason == "budget"
    assert rounds.elapsed_s >= 0.5 and rounds.rounds >= 2
    # ... and never fewer rounds than the minimum, however small the budget
    tiny = measure_in_rounds(["A", "B"], ["x"], FakeGPU({"A": 1.0, "B": 1.0}, noise=0.5).sample,
                             RoundPlan(budget_s=0.0, min_rounds=3), gpu.clock)
    assert tiny.rounds == 3


def test_a_converged_case_leaves_the_rounds_but_others_go_on():
    gpu = FakeGPU({"A": {"quiet": 1.0, "noisy": 1.0}})
    gpu_noise = FakeGPU({"A": 1.0}, noise=0.3)

    def sample(name, case, r, calls):
        return (gpu if case == "quiet" else gpu_noise).sample(name, case, r, calls)

    rounds = measure_in_rounds(["A"], ["quiet", "noisy"], sample, RoundPlan(budget_s=1e9, max_rounds=6),
                               lambda: 0.0)
    quiet_rounds = {c[2] for c in gpu.calls}
    assert quiet_rounds == {0, 1, 2}  # measured until min_rounds, then left out
    assert rounds.rounds == 6 and rounds.stop_reason == "max_rounds"


def test_a_participant_that_fails_leaves_the_rounds_and_the_others_go_on():
    gpu = FakeGPU({"A": 1.0, "B": 1.0}, noise=0.01)

    def sample(name, case, r, calls):
        if name == "B" and r == 1:
            raise DroppedOut("wrong_answer", "a timed call returned a wrong result")
        return gpu.sample(name, case, r, calls)

    rounds = measure_in_rounds(["A", "B"], ["x"], sample, RoundPlan(budget_s=1e9, target_rel_ci=0.0,
                                                                     max_rounds=4), gpu.clock)
    assert rounds.failures["B"].verdict == "wrong_answer"
    assert {c[2] for c in gpu.calls if c[0] == "B"} == {0}
    assert {c[2] for c in gpu.calls if c[0] == "A"} == {0, 1, 2, 3}


def _ratio_b_over_a(rounds) -> Ratio:
    a = Estimate.from_samples(rounds["A"])
    b = Estimate.from_samples(rounds["B"])
    return ratio_to(b, a), a.overlaps(b)


def test_interleaving_cancels_a_linear_drift_that_biases_a_sequential_schedule():
    """Two identical kernels on a GPU that slows down by 2 % per second.

    Timed one after the other, the second looks ~10 % slower and the
    intervals do not overlap: a wrong, confident verdict.  Timed in
    interleaved rounds for the same total time, they come out equal and tied.
    """
    plan = RoundPlan(budget_s=5.0, min_rounds=3, target_rel_ci=0.0, max_rounds=1000)

    sequential_gpu = FakeGPU({"A": 1.0, "B": 1.0}, drift_per_s=0.02, noise=0.001, seed=1)
    half = RoundPlan(budget_s=2.5, min_rounds=3, target_rel_ci=0.0, max_rounds=1000)
    a_alone = measure_in_rounds(["A"], ["x"], sequential_gpu.sample, half, sequential_gpu.clock)
    b_alone = measure_in_rounds(["B"], ["x"], sequential_gpu.sample, half, sequential_gpu.clock)
    seq_ratio, seq_tied = _ratio_b_over_a({"A": a_alone.pooled("A", "x"), "B": b_alone.pooled("B", "x")})

    interleaved_gpu = FakeGPU({"A": 1.0, "B": 1.0}, drift_per_s=0.02, noise=0.001, seed=1)
    both = measure_in_rounds(["A", "B"], ["x"], interleaved_gpu.sample, plan, interleaved_gpu.clock)
    int_ratio, int_tied = _ratio_b_over_a({"A": both.pooled("A", "x"), "B": both.pooled("B", "x")})

    assert abs(sequential_gpu.now - interleaved_gpu.now) < 0.5  # the same total time
    assert seq_ratio.value > 1.04 and not seq_tied  # biased against whoever ran second
    assert abs(int_ratio.value - 1.0) < 0.005 and int_tied
    assert int_ratio.low <= 1.0 <= int_ratio.high


def test_interleaving_keeps_a_real_difference_under_drift():
    gpu = FakeGPU({"A": 1.0, "B": 1.5}, drift_per_s=0.02, noise=0.001, seed=2)
    plan = RoundPlan(budget_s=5.0, target_rel_ci=0.0, max_rounds=1000)
    rounds = measure_in_rounds(["A", "B"], ["x"], gpu.sample, plan, gpu.clock)
    ratio, tied = _ratio_b_over_a({"A": rounds.pooled("A", "x"), "B": rounds.pooled("B", "x")})
    assert ratio.value == pytest.approx(1.5, rel=0.01) and not tied


def test_round_plan_validates():
    with pytest.raises(ValueError):
        RoundPlan(min_calls=0)
    with pytest.raises(ValueError):
        RoundPlan(min_rounds=5, max_rounds=2)
