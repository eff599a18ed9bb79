"""Pure statistics over kernel timing samples.

Everything here is a pure function of its inputs: no I/O, no GPU, no clock
reads (elapsed time is passed in), standard library only, so it imports
instantly and can be tested anywhere.

The central quantity is the *median* time with a distribution-free
confidence interval built from binomial order statistics.  GPU timings are
skewed and heavy-tailed (clock boosts, preemption, cache state), so the
median and a rank-based interval are far more robust than mean +- t*stdev.

Contents:

* :class:`Stats` -- summary of one sample list (milliseconds).
* :func:`median_ci_ranks` -- the order-statistic ranks behind ``Stats.ci_*``.
* :class:`StoppingRule` / :class:`Decision` -- adaptive "take more samples?".
* :class:`Ratio`, :func:`ratio`, :func:`tied`, :func:`format_ratio` --
  comparisons between solutions.
* :func:`geometric_mean`, :func:`geometric_mean_stats` -- aggregation over
  several benchmark cases.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

__all__ = [
    "DEFAULT_CONFIDENCE",
    "EXACT_BINOMIAL_MAX_N",
    "Decision",
    "Ratio",
    "Stats",
    "StoppingRule",
    "format_ratio",
    "geometric_mean",
    "geometric_mean_stats",
    "median_ci_ranks",
    "ratio",
    "tied",
]

DEFAULT_CONFIDENCE = 0.95

# Up to this many samples the binomial tail is summed exactly with
# math.comb; beyond it a continuity-corrected normal approximation is used.
# (The approximation picks the same rank as the exact sum for almost every
# n in this range and is off by at most one rank when it differs.)
EXACT_BINOMIAL_MAX_N = 1000


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _exact_lower_rank(n: int, confidence: float) -> int:
    """Largest rank j with P(j <= B <= n - j) >= confidence, or 0 if none.

    B ~ Binomial(n, 1/2) counts samples below the true median, so
    [x_(j), x_(n+1-j)] covers it with probability
    1 - 2 * P(B <= j - 1).  Coverage shrinks as j grows, so we walk j up
    while the interval still attains the requested confidence.

    All arithmetic is on integers, so the comparison is exact: with
    confidence = num/den (the float's exact value), coverage >= confidence
    iff 2 * tail * den <= (den - num) * 2**n, tail = sum of C(n, i), i < j.
    """
    num, den = Fraction(confidence).as_integer_ratio()
    allowed_tail = (den - num) * 2**n
    best = 0
    tail = 0
    term = 1  # C(n, j - 1), updated incrementally (math.comb per step is O(n^2) overall)
    for j in range(1, n // 2 + 1):
        tail += term
        if 2 * tail * den > allowed_tail:
            break
        best = j
        term = term * (n - j + 1) // j
    return best


def _approx_lower_rank(n: int, confidence: float) -> int:
    """Normal approximation of :func:`_exact_lower_rank` for large n.

    B ~ N(n/2, n/4); requiring P(B <= j - 1) <= (1 - confidence) / 2 with a
    continuity correction gives j <= n/2 + 1/2 - z * sqrt(n) / 2.
    """
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2.0)
    j = math.floor(n / 2.0 + 0.5 - z * math.sqrt(n) / 2.0)
    return max(0, min(j, n // 2))


@functools.lru_cache(maxsize=4096)
def median_ci_ranks(n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[int, int, bool]:
    """Order-statistic ranks (1-based) of a confidence interval for the median.

    Returns ``(j, k, attained)`` with ``k = n + 1 - j`` (symmetric ranks) and
    j the largest rank such that ``P(j <= B < k) >= confidence`` for
    B ~ Binomial(n, 0.5), i.e. the narrowest symmetric interval
    ``[x_(j), x_(k)]`` of the sorted samples that still covers the true
    median with at least that probability, whatever the distribution
    (continuous case).  Probabilities are exact (math.comb) for
    ``n <= EXACT_BINOMIAL_MAX_N`` and a continuity-corrected normal
    approximation above.

    If even ``[x_(1), x_(n)]`` cannot reach the confidence (for 95 %: n < 6)
    the result is ``(1, n, False)``.  Cached: stopping rules call this for
    every n.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    _check_confidence(confidence)
    if n <= EXACT_BINOMIAL_MAX_N:
        j = _exact_lower_rank(n, confidence)
    else:
        j = _approx_lower_rank(n, confidence)
    if j == 0:
        return 1, n, False
    return j, n + 1 - j, True


def _validated_samples(samples: Iterable[float]) -> tuple[float, ...]:
    values = tuple(float(x) for x in samples)
    if not values:
        raise ValueError("Stats needs at least one sample")
    for x in values:
        # A timing of zero, a negative one or NaN/inf is a measurement bug;
        # silently accepting it would poison the ratios downstream.
        if not (math.isfinite(x) and x > 0.0):
            raise ValueError(f"samples must be finite and > 0 ms, got {x!r}")
    return values


def _linear_quantile(sorted_values: Sequence[float], q: float) -> float:
    """Quantile by linear interpolation between order statistics.

    Hyndman-Fan type 7 (numpy's default, ``statistics.quantiles(...,
    method="inclusive")``); works for a single sample too.
    """
    position = q * (len(sorted_values) - 1)
    lower = math.floor(position)
    upper = min(lower + 1, len(sorted_values) - 1)
    fraction = position - lower
    return sorted_values[lower] + fraction * (sorted_values[upper] - sorted_values[lower])


class Stats:
    """Summary statistics of timing samples in milliseconds.

    Every statistic is a cached property computed on first access, so cheap
    questions (e.g. the stopping rule's CI width) do not pay for the
    expensive ones.

    Args:
        samples: timings in ms; all finite and > 0 (ValueError otherwise,
            including when empty).  Order is preserved in ``samples``.
        confidence: coverage of the median interval, default 0.95.

    ``ci_low``/``ci_high`` are the order statistics given by
    :func:`median_ci_ranks`.  When n is too small for the interval to reach
    ``confidence`` (n < 6 at 95 %) they fall back to (min, max) and
    ``ci_exact`` is False: the interval is then narrower in probability than
    advertised and should not be trusted for decisions.
    """

    def __init__(self, samples: Iterable[float], confidence: float = DEFAULT_CONFIDENCE):
        _check_confidence(confidence)
        self.samples: tuple[float, ...] = _validated_samples(samples)
        self.confidence: float = confidence

    def __repr__(self) -> str:
        return (
            f"Stats(n={self.n}, median={self.median:.6g} ms, "
            f"ci=[{self.ci_low:.6g}, {self.ci_high:.6g}])"
        )

    @functools.cached_property
    def sorted_samples(self) -> tuple[float, ...]:
        return tuple(sorted(self.samples))

    @functools.cached_property
    def n(self) -> int:
        return len(self.samples)

    @functools.cached_property
    def min(self) -> float:
        return self.sorted_samples[0]

    @functools.cached_property
    def max(self) -> float:
        return self.sorted_samples[-1]

    @functools.cached_property
    def mean(self) -> float:
        return statistics.fmean(self.samples)

    @functools.cached_property
    def stdev(self) -> float:
        """Sample standard deviation (n - 1 denominator); 0 for one sample."""
        if self.n < 2:
            return 0.0
        mean = self.mean
        # Two-pass with fsum: accurate and much faster than statistics.stdev's
        # exact-fraction arithmetic on thousands of samples.
        squares = math.fsum((x - mean) ** 2 for x in self.samples)
        return math.sqrt(squares / (self.n - 1))

    @functools.cached_property
    def median(self) -> float:
        """Middle sample; for even n the mean of the two middle samples."""
        values, mid = self.sorted_samples, self.n // 2
        if self.n % 2:
            return values[mid]
        return (values[mid - 1] + values[mid]) / 2.0

    @functools.cached_property
    def _ci_ranks(self) -> tuple[int, int, bool]:
        return median_ci_ranks(self.n, self.confidence)

    @functools.cached_property
    def ci_low(self) -> float:
        """Lower end of the distribution-free CI of the median."""
        return self.sorted_samples[self._ci_ranks[0] - 1]

    @functools.cached_property
    def ci_high(self) -> float:
        """Upper end of the distribution-free CI of the median."""
        return self.sorted_samples[self._ci_ranks[1] - 1]

    @functools.cached_property
    def ci_exact(self) -> bool:
        """True when [ci_low, ci_high] attains ``confidence`` (False: min..max fallback)."""
        return self._ci_ranks[2]

    @functools.cached_property
    def ci_half_width_rel(self) -> float:
        """Larger side of the median CI relative to the median.

        The interval is asymmetric in general; taking the larger side keeps
        "within +-1 %" an honest claim.
        """
        spread = max(self.median - self.ci_low, self.ci_high - self.median)
        return spread / self.median

    @functools.cached_property
    def iqr(self) -> float:
        """Interquartile range, quartiles by linear interpolation (type 7)."""
        return _linear_quantile(self.sorted_samples, 0.75) - _linear_quantile(
            self.sorted_samples, 0.25
        )

    @functools.cached_property
    def cv(self) -> float:
        """Coefficient of variation, stdev / mean (mean > 0 by validation)."""
        return self.stdev / self.mean

    def as_dict(self) -> dict[str, float | int | bool]:
        """All statistics as plain JSON-serialisable Python scalars."""
        return {
            "n": self.n,
            "min": self.min,
            "max": self.max,
            "mean": self.mean,
            "stdev": self.stdev,
            "median": self.median,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_exact": self.ci_exact,
            "ci_half_width_rel": self.ci_half_width_rel,
            "iqr": self.iqr,
            "cv": self.cv,
            "confidence": self.confidence,
        }


StopReason = Literal["converged", "budget", "max_calls", ""]


@dataclass(frozen=True)
class Decision:
    """Outcome of :meth:`StoppingRule.decide`; ``reason`` is "" while continuing."""

    stop: bool
    reason: StopReason = ""


_CONTINUE = Decision(stop=False)


@dataclass(frozen=True)
class StoppingRule:
    """Adaptive rule deciding when a benchmark case has enough samples.

    Precedence, for n samples after ``elapsed_s`` seconds:

    1. ``n >= max_calls`` always stops ("max_calls"), even below min_calls.
    2. Below ``min_calls`` it never stops otherwise -- not even past the
       budget: at least ``min_calls`` samples are always taken.
    3. Then: stop "converged" when the median CI at ``confidence`` attains
       its coverage (``Stats.ci_exact``) and its relative half-width is
       ``<= target_rel_ci``; else "budget" when ``elapsed_s >= budget_s``;
       else "max_calls".

    Defaults: min_calls=10, target_rel_ci=0.01 (+-1 % of the median at
    95 %), budget_s=2.0 s, max_calls=10_000.  The rule is pure: elapsed
    time is an argument, so tests drive it with a fake clock.
    """

    min_calls: int = 10
    target_rel_ci: float = 0.01
    budget_s: float = 2.0
    max_calls: int = 10_000
    confidence: float = DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        if self.min_calls < 1:
            raise ValueError(f"min_calls must be >= 1, got {self.min_calls!r}")
        if self.max_calls < 1:
            raise ValueError(f"max_calls must be >= 1, got {self.max_calls!r}")
        if not self.target_rel_ci >= 0.0:
            raise ValueError(f"target_rel_ci must be >= 0, got {self.target_rel_ci!r}")
        if not self.budget_s >= 0.0:
            raise ValueError(f"budget_s must be >= 0, got {self.budget_s!r}")
        _check_confidence(self.confidence)

    def decide(self, samples_ms: Sequence[float], elapsed_s: float) -> Decision:
        """Whether to stop sampling after ``samples_ms`` and ``elapsed_s`` seconds.

        Costs one sort of the samples (about 2 ms for 10_000); for
        microsecond kernels call it once per batch of samples, not per call.
        """
        n = len(samples_ms)
        if n < self.min_calls:
            return Decision(True, "max_calls") if n >= self.max_calls else _CONTINUE
        stats = Stats(samples_ms, self.confidence)
        if stats.ci_exact and stats.ci_half_width_rel <= self.target_rel_ci:
            return Decision(True, "converged")
        if elapsed_s >= self.budget_s:
            return Decision(True, "budget")
        if n >= self.max_calls:
            return Decision(True, "max_calls")
        return _CONTINUE


@dataclass(frozen=True)
class Ratio:
    """A ratio of medians with a conservative uncertainty interval.

    ``low <= value <= high``; ``err`` is the interval's half-width.
    """

    value: float
    low: float
    high: float

    @property
    def err(self) -> float:
        return (self.high - self.low) / 2.0

    def overlaps(self, other: Ratio) -> bool:
        """True when the two intervals share at least one point."""
        return self.low <= other.high and other.low <= self.high


def ratio(a: Stats, b: Stats) -> Ratio:
    """Median of ``a`` over median of ``b`` (> 1: a is slower than b).

    The interval divides the CI extremes (a.ci_low / b.ci_high ..
    a.ci_high / b.ci_low).  It is conservative: if both CIs hold, the true
    ratio lies inside it, so its coverage is at least 1 - 2 * (1 - confidence).
    """
    return Ratio(
        value=a.median / b.median,
        low=a.ci_low / b.ci_high,
        high=a.ci_high / b.ci_low,
    )


def tied(a: Stats, b: Stats) -> bool:
    """True when the median CIs of ``a`` and ``b`` overlap (no clear winner)."""
    return a.ci_low <= b.ci_high and b.ci_low <= a.ci_high


def geometric_mean(values: Iterable[float]) -> float:
    """Geometric mean of positive values (ValueError if empty or any <= 0)."""
    logs = []
    for v in values:
        if not v > 0.0:
            raise ValueError(f"geometric_mean needs positive values, got {v!r}")
        logs.append(math.log(v))
    if not logs:
        raise ValueError("geometric_mean of no values")
    # Summing logs avoids overflow/underflow of a long product; fsum keeps it exact-ish.
    return math.exp(math.fsum(logs) / len(logs))


def geometric_mean_stats(stats_list: Iterable[Stats]) -> tuple[float, float, float]:
    """Geometric means of medians, of ci_lows and of ci_highs over cases.

    Used to rank a solution over several benchmark cases.  The (low, high)
    pair bounds the geometric mean of the true medians whenever every
    per-case interval holds; it is a conservative band, not a calibrated
    confidence interval.
    """
    stats_list = list(stats_list)
    if not stats_list:
        raise ValueError("geometric_mean_stats of no Stats")
    return (
        geometric_mean(s.median for s in stats_list),
        geometric_mean(s.ci_low for s in stats_list),
        geometric_mean(s.ci_high for s in stats_list),
    )


def format_ratio(r: Ratio) -> str:
    """Human-readable ratio of a solution's time to a reference (e.g. the best).

    * value == 1 with a collapsed interval (low == high == 1): ``"best"``;
    * value > 1: ``"1.84 ± 0.05× slower"``;
    * value < 1: ``"2.00 ± 0.10× faster"`` using 1/value, with the error
      propagated to first order (delta method): err / value**2;
    * value == 1 with a non-zero interval: ``"1.00 ± 0.03×"``.
    """
    if r.value == 1.0 and r.low == 1.0 and r.high == 1.0:
        return "best"
    if r.value > 1.0:
        return f"{r.value:.2f} ± {r.err:.2f}× slower"
    if r.value < 1.0:
        return f"{1.0 / r.value:.2f} ± {r.err / r.value**2:.2f}× faster"
    return f"{r.value:.2f} ± {r.err:.2f}×"
