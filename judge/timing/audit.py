"""Pure decisions around the timed calls: which calls are verified, whether the
host clock agrees with the CUDA events, and when a case is launch-bound.

No GPU, no clock reads: the worker and the judge pass numbers in, tests pass
made-up ones (docs/timing.md explains the method).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["VerifyPlan", "Audit", "parse_audits", "cross_check", "CrossCheck", "launch_bound", "launch_bound_note",
           "launch_guard_us", "exposed_call", "exposed_note", "grown_guard_us", "unheld_guard_note", "LAUNCH_BOUND_MS"]

# Below this median a kernel's time is dominated by launch overhead and
# clock granularity: report it, but do not pretend to sub-microsecond precision.
LAUNCH_BOUND_MS = 0.010
# The host clock of an audited call covers the launch, the solve() call and a
# device-wide synchronize.  It may exceed the CUDA-event time by launch and
# sync latency; more than this says work ran outside the events.
AUDIT_SLACK_MS = 0.100
AUDIT_SLACK_RATIO = 1.5


class VerifyPlan:
    """Which timed calls get their outputs checked (and their clocks audited).

    The first timed call, ``extra_early`` random calls among the first
    ``min_calls``, then later calls with probability ``rate`` each until
    ``extra_late`` of them have been picked (seeded, so a run is reproducible,
    and unknown to the solution).  The last call is always checked as well
    (timed_loop.py).  The count is capped because every check moves the outputs to
    the judge: a 4 µs kernel timed 10 000 times must not mean 300 transfers.
    """

    def __init__(self, seed: int, min_calls: int = 10, extra_early: int = 2, rate: float = 1 / 32,
                 extra_late: int = 2):
        self.rng = random.Random(seed)
        early = list(range(1, max(min_calls, 2)))
        self.early = {0, *self.rng.sample(early, min(extra_early, len(early)))}
        self.min_calls, self.rate, self.late_left = min_calls, rate, extra_late

    def wants(self, index: int) -> bool:
        """Should timed call ``index`` (0-based) be verified?  (The last always is.)"""
        if index in self.early:
            return True
        if index < self.min_calls or self.late_left <= 0 or self.rng.random() >= self.rate:
            return False
        self.late_left -= 1
        return True


@dataclass(frozen=True)
class Audit:
    """One audited call, in ms: ``host_ms`` from launching guard and flush to the
    device-wide synchronize, less their GPU time; ``event_ms`` the call's CUDA
    events; ``tail_ms`` from the host calling solve() to the synchronize.

    ``host_ms`` is the fair comparison with the events, but work a solution hides
    on a stream of its own starts as soon as it is launched, while guard and
    flush still run, and the subtraction hides that overlap; nothing the
    solution launched can start before solve() is called, so ``tail_ms`` bounds
    the hidden work from above.
    """

    host_ms: float
    event_ms: float
    tail_ms: float = 0.0


def parse_audits(raw) -> list[Audit]:
    """The worker's ``audits`` list ([host, event] or [host, event, tail] in ms); ValueError if malformed."""
    if not isinstance(raw, list):
        raise ValueError("audits is not a list")
    audits = []
    for item in raw:
        if (not isinstance(item, list) or len(item) not in (2, 3)
                or not all(type(x) in (int, float) and x == x and abs(x) < 1e9 for x in item)):
            raise ValueError(f"malformed audit {str(item)[:60]}")
        audits.append(Audit(*map(float, item)))
    return audits


@dataclass(frozen=True)
class CrossCheck:
    ok: bool
    honest_ms: float | None  # the host-clock median when the events cannot be trusted
    reason: str = ""


def cross_check(audits: list[Audit]) -> CrossCheck:
    """Do the CUDA events account for the work the host clock saw?

    Honest work on the current stream makes ``host >= event`` with a small
    difference (launch and sync latency).  Work on a stream the solution does
    not join to the current one, a patched timer, or work deferred past the
    end event all make the events much shorter than the host time of the same
    call.  Then the honest number is the median over the audited calls of the
    larger of ``host_ms`` and ``tail_ms`` (see ``Audit``): it may count some
    guard and flush time, never less than the hidden work.
    """
    if not audits:
        return CrossCheck(True, None)
    suspicious = [a for a in audits if a.host_ms > AUDIT_SLACK_RATIO * a.event_ms + AUDIT_SLACK_MS]
    if len(suspicious) * 2 <= len(audits):  # a majority must disagree: one hiccup is not a cheat
        return CrossCheck(True, None)
    hosts = sorted(max(a.host_ms, a.tail_ms) for a in audits)
    events = sorted(a.event_ms for a in audits)
    honest = hosts[len(hosts) // 2]
    reason = (f"CUDA events ({events[len(events) // 2]:.4f} ms) did not cover the work the host clock saw "
              f"({honest:.4f} ms, device-wide synchronize) in {len(suspicious)} of {len(audits)} audited calls: "
              "work on an unjoined stream, a patched timer or deferred work; reporting the host-clock time")
    return CrossCheck(False, honest, reason)


def launch_bound(median_ms: float) -> bool:
    return median_ms < LAUNCH_BOUND_MS


def launch_bound_note(timer_floor_ms: float | None = None) -> str:
    """What a launch-bound case's time means, with the device's timer floor when it is known.

    CUDA events around a kernel also count the GPU front end's work on the
    launch and the events themselves: about 2 µs on an H200, the time an empty
    kernel reads (docs/benchmarks.md, "Launch-bound kernels").
    """
    floor = ""
    if timer_floor_ms:
        floor = f"; an empty kernel timed the same way reads {timer_floor_ms * 1e3:.1f} µs on this device"
    return (f"launch-bound: a few µs, mostly launch and timer overhead{floor}; differences under ~1 µs are "
            "noise (docs/benchmarks.md)")


# The launch guard: GPU work queued ahead of the flush so that solve()'s launch
# is already waiting when the flush ends.  Without it, a call whose host-side
# launch outlasted the flush was timed from the flush's end to the kernel's
# end, launch latency included.  On an H200 host the launch of guard, flush,
# start event and a Triton kernel takes 50-120 µs (it varies from run to run),
# the flush alone covers ~67 µs: a 4.4 us transpose read medians of up to
# 25 us in some runs (research/lead_probe.py, docs/benchmarks.md).
GUARD_MARGIN_US = 50.0
GUARD_MAX_US = 2000.0


def launch_guard_us(host_call_us: list[float], flush_us: float) -> float:
    """The guard to start with, in µs (``exposed_call`` and ``grown_guard_us`` correct it).

    ``host_call_us``: the host time of solve() in the warm-up calls after the
    first (which compiles); ``flush_us``: the flush's own GPU time.  The guard
    covers twice the 90th percentile of the host time plus a margin, less what
    the flush already covers, capped at 2 ms.
    """
    if not host_call_us:
        return 0.0
    ordered = sorted(host_call_us)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return min(GUARD_MAX_US, max(0.0, 2 * p90 + GUARD_MARGIN_US - flush_us))


def exposed_call(lead_us: float, cover_us: float) -> bool:
    """Did the start event fire before solve() had been launched?

    ``lead_us``: host time from launching the guard to solve() returning;
    ``cover_us``: GPU time from the guard's start to the start event (guard
    and flush).  The GPU is idle when the guard is launched, so it starts no
    earlier than the host launches it: when the host needed longer than the
    GPU was kept busy, the sample holds host time.  (A conservative test: GPU
    launch latency makes the real cover a little longer.)
    """
    return lead_us > cover_us


def exposed_note(kept: int, calls: int) -> str:
    """Why some samples hold host time: solve() outlasted even the longest guard."""
    return (f"{kept} of {calls} calls took longer to launch than the {GUARD_MAX_US / 1e3:.0f} ms launch guard "
            "covers, so their times include host time (does solve() synchronize or do host work?)")


def unheld_guard_note() -> str:
    """Why a GPU whose SMs the guard's kernel cannot fill weakens the timings (cover.py)."""
    return ("the launch guard's kernel could not hold every SM of this GPU at once, so work that solve() "
            "starts on a stream of its own during the guard may go untimed (docs/security.md)")


def grown_guard_us(guard_us: float, lead_us: float, cover_us: float) -> float:
    """The guard after an exposed call: at least doubled, and at least twice the shortfall longer; at most 2 ms."""
    return min(GUARD_MAX_US, max(2 * guard_us, guard_us + 2 * (lead_us - cover_us) + GUARD_MARGIN_US))
