"""Ranking several solutions: pure logic, no I/O, no GPU, no clock reads.

Two halves, both driven by functions passed in so tests can use a fake clock
and a fake timing source (docs/ranking.md states the method):

* **Ordering** -- :class:`Estimate` (a median with its CI), :func:`score`
  (geometric mean over benchmark cases), :func:`rank_entries` (order, ties,
  ratios to the best) and :func:`ratio_text`.
* **Rounds** -- :func:`measure_in_rounds` asks every participant for a few
  timed calls per case in turn (A B C, then B C A, ...), pools each one's
  samples per case, and stops when every CI is within the target or the
  budget is spent.  Interleaving means a drift of clocks or temperature hits
  every solution alike instead of favouring whoever ran first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from judge.timing.stats import Ratio, Stats, geometric_mean

__all__ = [
    "Estimate", "score", "ratio_to", "ratio_text", "Entry", "Standing", "rank_entries",
    "RoundPlan", "Rounds", "DroppedOut", "round_order", "calls_for_round", "converged",
    "measure_in_rounds",
]


# -- ordering ------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """A time in ms with its interval: ``low <= median <= high``."""

    median: float
    low: float
    high: float

    @classmethod
    def from_stats(cls, stats: Stats) -> Estimate:
        return cls(stats.median, stats.ci_low, stats.ci_high)

    @classmethod
    def from_samples(cls, samples: Iterable[float]) -> Estimate:
        return cls.from_stats(Stats(samples))

    @classmethod
    def exact(cls, value: float) -> Estimate:
        """A computed number with no uncertainty (the copy bound)."""
        return cls(value, value, value)

    @property
    def rel_half_width(self) -> float:
        """The larger side of the interval relative to the median."""
        return max(self.median - self.low, self.high - self.median) / self.median

    def overlaps(self, other: Estimate) -> bool:
        return self.low <= other.high and other.low <= self.high


def score(estimates: Iterable[Estimate]) -> Estimate:
    """Geometric mean over benchmark cases of medians, and of each CI end.

    Every case counts the same whatever its size (a 2x gain on a small case
    weighs as much as on a large one).  The band bounds the geometric mean of
    the true medians whenever every per-case interval holds: conservative,
    not a calibrated CI.
    """
    estimates = list(estimates)
    if not estimates:
        raise ValueError("score of no benchmark cases")
    return Estimate(geometric_mean(e.median for e in estimates), geometric_mean(e.low for e in estimates),
                    geometric_mean(e.high for e in estimates))


def ratio_to(estimate: Estimate, best: Estimate) -> Ratio:
    """``estimate / best`` with the conservative interval of stats.ratio (> 1: slower)."""
    return Ratio(estimate.median / best.median, estimate.low / best.high, estimate.high / best.low)


def ratio_text(ratio: Ratio | None) -> str:
    """``best``, ``1.84 ± 0.05× slower than best`` or ``1.03 ± 0.01× faster than best``.

    Like stats.format_ratio (faster: 1/value, error by the delta method), with
    a third decimal when the error would round to 0.00.
    """
    if ratio is None:
        return "-"
    if ratio.value == ratio.low == ratio.high == 1.0:
        return "best"
    value, err, word = ratio.value, ratio.err, "slower"
    if value < 1.0:
        value, err, word = 1.0 / value, err / value**2, "faster"
    digits = 3 if 0 < err < 0.005 else 2
    return f"{value:.{digits}f} ± {err:.{digits}f}× {word} than best"


@dataclass(frozen=True)
class Entry:
    """One solution as the ranking sees it.

    ``cases`` maps benchmark case names to estimates; it is empty when the
    solution was not timed (CPU mode, or rejected).
    """

    name: str
    verdict: str
    reason: str = ""
    cases: dict = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.verdict == "accepted"


@dataclass(frozen=True)
class Standing:
    """A solution's place: ``rank`` is None when rejected; ties share a rank."""

    name: str
    verdict: str
    reason: str
    rank: int | None
    score: Estimate | None = None
    ratio: Ratio | None = None
    tied_with: tuple = ()

    def as_dict(self) -> dict:
        return {
            "solution": self.name, "rank": self.rank, "verdict": self.verdict, "reason": self.reason,
            "score_ms": self.score.median if self.score else None,
            "score_ci_ms": [self.score.low, self.score.high] if self.score else None,
            "ratio_to_best": self.ratio.value if self.ratio else None,
            "ratio_ci": [self.ratio.low, self.ratio.high] if self.ratio else None,
            "vs_best": ratio_text(self.ratio) if self.ratio else None,
            "tied_with": list(self.tied_with),
        }


def rank_entries(entries: Sequence[Entry]) -> list[Standing]:
    """Accepted solutions first, fastest score first; then the rejected, in input order.

    Ranks are competition ranks over tie groups: the fastest remaining
    solution leads a group, and every later one whose score interval overlaps
    the leader's shares its rank (1, 1, 3, ...).  ``tied_with`` lists every
    other solution whose interval overlaps, whether or not it shares the rank.
    Accepted solutions without timings (CPU mode) all share rank 1.
    """
    accepted = [e for e in entries if e.accepted]
    rejected = [Standing(e.name, e.verdict, e.reason, None) for e in entries if not e.accepted]
    timed = [e for e in accepted if e.cases]
    if len(timed) < len(accepted):  # nothing to order by: correctness only
        names = [e.name for e in accepted]
        untimed = [Standing(e.name, e.verdict, e.reason, 1, tied_with=tuple(n for n in names if n != e.name))
                   for e in accepted]
        return untimed + rejected
    scored = sorted(((score(e.cases.values()), e) for e in timed), key=lambda pair: pair[0].median)
    return _ordered(scored) + rejected


def _ordered(scored: list) -> list[Standing]:
    if not scored:
        return []
    best = scored[0][0]
    standings, leader, leader_rank = [], None, 0
    for position, (estimate, entry) in enumerate(scored, start=1):
        if leader is None or not estimate.overlaps(leader):
            leader, leader_rank = estimate, position
        ties = tuple(other.name for other_estimate, other in scored
                     if other is not entry and estimate.overlaps(other_estimate))
        ratio = Ratio(1.0, 1.0, 1.0) if position == 1 else ratio_to(estimate, best)
        standings.append(Standing(entry.name, entry.verdict, entry.reason, leader_rank, estimate, ratio, ties))
    return standings


# -- rounds --------------------------------------------------------------------
@dataclass(frozen=True)
class RoundPlan:
    """How the timing rounds run.

    Defaults: 10 timed calls per participant and case in the first round,
    then enough calls for about ``round_ms`` = 100 ms of kernel time, clamped
    to [``min_calls`` = 5, ``max_calls`` = 100]; at least ``min_rounds`` = 3
    rounds (even past the budget, so every solution is measured at three
    different times); stop when every CI is within ``target_rel_ci`` = ±1 %,
    when ``budget_s`` = 10 s of wall time is spent, or after ``max_rounds``
    = 100 rounds.  A round is never cut short, so every participant gets the
    same rounds.
    """

    first_calls: int = 10
    min_calls: int = 5
    max_calls: int = 100
    round_ms: float = 100.0
    min_rounds: int = 3
    max_rounds: int = 100
    target_rel_ci: float = 0.01
    budget_s: float = 10.0

    def __post_init__(self) -> None:
        if not 1 <= self.min_calls <= self.max_calls:
            raise ValueError(f"need 1 <= min_calls <= max_calls, got {self.min_calls}, {self.max_calls}")
        if not 1 <= self.min_rounds <= self.max_rounds:
            raise ValueError(f"need 1 <= min_rounds <= max_rounds, got {self.min_rounds}, {self.max_rounds}")
        if self.first_calls < 1 or self.round_ms <= 0 or self.budget_s < 0 or self.target_rel_ci < 0:
            raise ValueError("first_calls >= 1, round_ms > 0, budget_s >= 0 and target_rel_ci >= 0 are required")


class DroppedOut(Exception):
    """Raised by a sampler when a participant fails during timing (it leaves the rounds)."""

    def __init__(self, verdict: str, message: str):
        super().__init__(message)
        self.verdict, self.message = verdict, message


@dataclass
class Rounds:
    """What the rounds measured: pooled samples per (participant, case name)."""

    samples: dict = field(default_factory=dict)
    failures: dict = field(default_factory=dict)  # participant -> DroppedOut
    rounds: int = 0
    stop_reason: str = ""  # "converged", "budget" or "max_rounds"
    elapsed_s: float = 0.0
    schedule: list = field(default_factory=list)  # (round, participant, case, calls), in order

    def pooled(self, name: str, case: str) -> list[float]:
        return self.samples.get((name, case), [])


def round_order(names: Sequence, round_index: int) -> list:
    """Round r starts with participant r mod n: A B C, B C A, C A B, ...

    Rotating (rather than A B C every round) means nobody always goes first,
    so even a drift within a round averages out over a cycle of rounds.
    """
    if not names:
        return []
    shift = round_index % len(names)
    return list(names[shift:]) + list(names[:shift])


def calls_for_round(samples: Sequence[float], plan: RoundPlan) -> int:
    """Timed calls to ask for next: ``first_calls`` at first, then ~``round_ms`` of kernel time."""
    if not samples:
        return plan.first_calls
    median = Stats(samples).median
    wanted = math.ceil(plan.round_ms / median)
    return max(plan.min_calls, min(plan.max_calls, wanted))


def converged(samples: Sequence[float], plan: RoundPlan) -> bool:
    """True when the median's CI attains 95 % coverage and is within ±target."""
    if not samples:
        return False
    stats = Stats(samples)
    return stats.ci_exact and stats.ci_half_width_rel <= plan.target_rel_ci


Sampler = Callable[[str, str, int, int], Sequence[float]]


def measure_in_rounds(names: Sequence[str], cases: Sequence[str], sample: Sampler, plan: RoundPlan,
                      clock: Callable[[], float], on_round: Callable[[Rounds], None] | None = None) -> Rounds:
    """Interleaved timing rounds.

    ``sample(name, case, round_index, calls)`` returns ``calls`` timed samples
    in ms, or raises :class:`DroppedOut`; ``clock()`` returns seconds.  Each
    round visits every case, and within it every remaining participant in
    :func:`round_order`.  A case whose participants have all converged is
    left out of later rounds.
    """
    out = Rounds()
    started = clock()
    active_cases = list(cases)
    while not out.stop_reason:
        live = [n for n in names if n not in out.failures]
        for case in active_cases:
            for name in round_order(live, out.rounds):
                if name not in out.failures:
                    _take(out, name, case, sample, plan)
        out.rounds += 1
        out.elapsed_s = clock() - started
        live = [n for n in names if n not in out.failures]
        pending = [c for c in active_cases if not all(converged(out.pooled(n, c), plan) for n in live)]
        if out.rounds >= plan.min_rounds:  # before that every case keeps being measured
            active_cases = pending
        out.stop_reason = _stop_reason(out, pending, live, plan)
        if on_round is not None:
            on_round(out)
    return out


def _take(out: Rounds, name: str, case: str, sample: Sampler, plan: RoundPlan) -> None:
    calls = calls_for_round(out.pooled(name, case), plan)
    out.schedule.append((out.rounds, name, case, calls))
    try:
        got = list(sample(name, case, out.rounds, calls))
    except DroppedOut as exc:
        out.failures[name] = exc
        return
    out.samples.setdefault((name, case), []).extend(got)


def _stop_reason(out: Rounds, pending: list, live: list, plan: RoundPlan) -> str:
    """Why to stop after this round ("" to go on); ``pending``: cases not yet converged."""
    if not live:
        return "no participants left"
    if out.rounds < plan.min_rounds:
        return ""
    if not pending:
        return "converged"
    if out.elapsed_s >= plan.budget_s:
        return "budget"
    if out.rounds >= plan.max_rounds:
        return "max_rounds"
    return ""
