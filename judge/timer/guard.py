"""Pure sizing of the launch guard, the GPU work the worker queues ahead of each timed call
(docs/timing.md, section 2): how long to start with, when a call was exposed, how much to grow."""

from __future__ import annotations

__all__ = ["GUARD_MARGIN_US", "GUARD_MAX_US", "launch_guard_us", "exposed_call", "grown_guard_us"]

# The launch guard: GPU work queued ahead of the flush so that solve()'s launch
# is already waiting when the flush ends.  Without it, a call whose host-side
# launch outlasted the flush was timed from the flush's end to the kernel's
# end, launch latency included.  On an H200 host the launch of guard, flush,
# start event and a Triton kernel takes 50-120 µs (it varies from run to run),
# the flush alone covers ~67 µs: a 4.4 us transpose read medians of up to
# 25 us in some runs (docs/benchmarks.md, "Whole runs that read slow").
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


def grown_guard_us(guard_us: float, lead_us: float, cover_us: float) -> float:
    """The guard after an exposed call: at least doubled, and at least twice the shortfall longer; at most 2 ms."""
    return min(GUARD_MAX_US, max(2 * guard_us, guard_us + 2 * (lead_us - cover_us) + GUARD_MARGIN_US))
