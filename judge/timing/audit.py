"""Pure decisions around the timed calls: which calls are verified, whether the
host clock agrees with the CUDA events, and when a case is launch-bound.

No GPU, no clock reads: the worker and the judge pass numbers in, tests pass
made-up ones (docs/timing.md explains the method).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from judge.timer.guard import GUARD_MAX_US

__all__ = ["VerifyPlan", "Audit", "parse_audit", "disagrees", "audited_sample", "audit_note", "case_excess_ms", "seen_ms", "launch_bound",
           "launch_bound_note", "exposed_note",
           "unheld_guard_note", "forged_call", "LAUNCH_BOUND_MS", "SLACK_FRACTION", "SLACK_MIN_MS", "CASE_SLACK_MIN_MS"]

# Below this median a kernel's time is dominated by launch overhead and
# clock granularity: report it, but do not pretend to sub-microsecond precision.
LAUNCH_BOUND_MS = 0.010
# The host clock of a timed call covers the launch, the solve() call and a
# device-wide synchronize: more than the events by launch and synchronize latency,
# which the device's calibration measures (peaks.py, ``host_overhead_us``).  A call
# disagrees when the host clock exceeds the events by more than a tenth of the
# events' time and more than this latency's allowance (SLACK_MIN_MS when the
# calibration is missing).
SLACK_FRACTION = 0.10
SLACK_MIN_MS = 0.020
SLACK_UNCALIBRATED_MS = 0.100
# A case's median call may sit this far above the calibration's median latency before it counts as hidden
# work: the calibration times torch's copy in the judge's process, the calls a solution's kernels in its
# worker, and the host's latency drifts between them.  On an H200 (2026-11-26) honest transposes in a long
# GPU test session read 9-13 µs above the calibrated median; at the earlier 5 µs every call of theirs was
# lifted (+25 % on a 36 µs kernel).  Hidden work of 25 µs a call is still caught.
CASE_SLACK_MIN_MS = 0.020


class VerifyPlan:
    """Which timed calls the judge verifies, decided after each call (the worker cannot know).

    Each call is verified with probability 1/2 among the first 16, 1/4 up to the 128th, 1/16 after,
    from the judge's own entropy; the last call always.  A solution that skips work in more than
    half of n timed calls (what it takes to move the median) goes unseen with probability about
    (1 - p)^(n/2), and only if the last call is one it did not skip: under 2 % for the 10-call
    minimum.  Verifying costs the outputs' trip to the judge and its reference (20-40 ms for a
    7000x6000 output on an H200), not timed: a lower rate after the first calls keeps it to a few
    tenths of a second a case."""

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.SystemRandom()

    def rate(self, index: int) -> float:
        return 0.5 if index < 16 else 0.25 if index < 128 else 1 / 16

    def wants(self, index: int) -> bool:
        return self.rng.random() < self.rate(index)


@dataclass(frozen=True)
class Audit:
    """One timed call, in ms: ``host_ms`` from launching guard and flush to the
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

    @property
    def seen_ms(self) -> float:
        """The most the host clock saw of this call: no less than any work hidden from the events, even
        work that overlapped guard and flush (it may count some of them, and the latency)."""
        return max(self.host_ms, self.tail_ms)


def parse_audit(raw: dict) -> Audit:
    """A ``timed`` message's numbers as an Audit; ValueError if any is not a finite number >= 0."""
    values = []
    for key in ("host_ms", "event_ms", "tail_ms"):
        value = raw.get(key)
        if type(value) not in (int, float) or not math.isfinite(value) or value < 0 or value > 1e9:
            raise ValueError(f"{key} is {str(value)[:40]}, not a time")
        values.append(float(value))
    return Audit(*values)


def forged_call(audit: Audit, judge_wall_ms: float) -> str:
    """Why a call's numbers are impossible ("" when they are not): no clock of the worker's can
    outlast the judge's own wait for the call, and the events cannot read zero."""
    if audit.event_ms <= 0:
        return f"a timed call read {audit.event_ms} ms by its events"
    if max(audit.event_ms, audit.host_ms, audit.tail_ms) > judge_wall_ms + 1.0:
        return (f"a timed call read {max(audit.event_ms, audit.host_ms):.3f} ms, longer than the "
                f"{judge_wall_ms:.3f} ms the judge waited for it")
    return ""


def disagrees(audit: Audit, overhead_ms: float | None, guard_holds_gpu: bool = True) -> bool:
    """Did the host clock see more work than the events of this call?  ``overhead_ms``: the device's
    calibrated host-clock latency (its 99th percentile), or None where it was not measured.

    ``host_ms`` decides where the guard's kernel holds the GPU (no hidden work can overlap guard and
    flush; ``tail_ms`` also holds what is left of them); where it cannot, ``seen_ms`` does."""
    allowance = SLACK_UNCALIBRATED_MS if overhead_ms is None else max(SLACK_MIN_MS, 2.0 * overhead_ms)
    seen = audit.host_ms if guard_holds_gpu else audit.seen_ms
    return seen > audit.event_ms + max(SLACK_FRACTION * audit.event_ms, allowance)


def audited_sample(audit: Audit, overhead_ms: float | None, guard_holds_gpu: bool = True) -> float:
    """The time a call counts for: its events' when the host clock agrees, else the most the host clock
    saw (``Audit.seen_ms``): never less than the work hidden from the events."""
    if disagrees(audit, overhead_ms, guard_holds_gpu):
        return max(audit.event_ms, audit.seen_ms)
    return audit.event_ms


def seen_ms(audit_row: list, guard_holds_gpu: bool = True) -> float:
    """What the host clock is compared by in a recorded call ([host, event, tail, ...]): as ``disagrees``."""
    return audit_row[0] if guard_holds_gpu else max(audit_row[0], audit_row[2])


def case_excess_ms(audits: list, latency_ms: tuple[float, float] | None, guard_holds_gpu: bool = True) -> float | None:
    """The work the host clock saw in the median call beyond the events and the device's typical latency,
    when that is more than the latency's own spread allows (else None): hidden work below the per-call
    allowance, done in every call (25 µs after a 10 µs kernel, on a stream of its own).  ``audits``: [host,
    event, tail, ...] per call; ``latency_ms``: the calibration's (median, 99th percentile), measured the
    same way (``seen_ms``)."""
    if not audits or latency_ms is None:
        return None
    typical, high = latency_ms
    excess = sorted(seen_ms(a, guard_holds_gpu) - a[1] for a in audits)
    events = sorted(a[1] for a in audits)
    hidden = excess[len(excess) // 2] - typical
    if hidden > max(SLACK_FRACTION * events[len(events) // 2], high - typical, CASE_SLACK_MIN_MS):
        return hidden
    return None


def audit_note(flagged: int, calls: int, event_median_ms: float, reported_ms: float) -> str:
    """Why some samples are the host clock's (``flagged`` of ``calls`` disagreed)."""
    return (f"in {flagged} of {calls} timed calls the host clock, across a device-wide synchronize, saw more work "
            f"than the CUDA events (work on an unjoined stream, in a thread, deferred, or a patched timer): those "
            f"calls count the host clock's time (median of the events alone {event_median_ms:.4f} ms, as reported "
            f"{reported_ms:.4f} ms)")


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


def exposed_note(kept: int, calls: int) -> str:
    """Why some samples hold host time: solve() outlasted even the longest guard."""
    return (f"{kept} of {calls} calls took longer to launch than the {GUARD_MAX_US / 1e3:.0f} ms launch guard "
            "covers: solve() waits for the GPU (a cudaDeviceSynchronize() or torch.cuda.synchronize() in it) or does "
            "long host work, so the guard stopped spinning and these times include the host's latency around it "
            "(leave the synchronize out for the fastest honest time: the judge synchronizes after every call)")


def unheld_guard_note() -> str:
    """Why a GPU whose SMs the guard's kernel cannot fill weakens the timings (cover.py)."""
    return ("the launch guard's kernel could not hold every SM of this GPU at once, so work that solve() "
            "starts on a stream of its own during the guard may go untimed (docs/security.md)")
