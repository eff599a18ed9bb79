"""Red team on the launch guard's blocking mode (BLOCKING_EVIDENCE, commit 7ef2be8) and on the window its 2 ms
spin leaves (2026-11-26), on the fake-GPU harness of test_bench_loop.py.  Each test asserts the secure outcome.

Held: forcing blocking mode in the settling calls (told apart by their repeated inputs) and then hiding work on
an unjoined stream, or doing host work before the launch; alternating waiting and busy calls so the spin never
stops.  Not held until it was fixed: staying OUT of blocking mode keeps the 2 ms spin, during which the copy
engines run free; the inputs were copied to the host, the result computed there and copied into scratch, and
only a copy from scratch was timed (softmax on an H100: 0.0082 ms, trusted, against 0.0102 ms honest).  The
inputs now hold poison until the guard's fills run after the spin: tests/test_bench_loop.py (the fills) and
tests/test_gpu.py (the cheat, on a GPU).  This fake GPU applies the fills when the guard is launched, so it
cannot show what a copy engine reads during the spin.
"""

from __future__ import annotations

import time

import torch

from test_bench_loop import (CASE, CLOCK, GPU, FakeGPU, FakeWorker, RecordingSession,  # noqa: F401
                             cpu_events, fake_calls, steady_clock)
from judge.timer import timed_loop as bench
from judge.judging.benchmark_stage import bench_case, timing_summary


def run(session, monkeypatch=None, side=None):
    if side is not None:
        monkeypatch.setattr(bench, "_synchronize", lambda: (GPU.wait(), side.wait()))  # device-wide
    done = bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    return done, timing_summary(done)


def report(name, done, summary):
    print(f"\n{name}: median {summary['median_ms']:.4f} ms trusted={summary['timer_trusted']} "
          f"guard={done.launch_guard_us} dropped={done.exposed_dropped} kept_exposed={done.exposed_kept} "
          f"flagged={sum(a[3] for a in done.audits)}/{len(done.audits)}")


def bare_session(solve) -> RecordingSession:
    """The harness's session without its 20 µs kernel queued after solve(): ``solve`` queues its own."""
    session = RecordingSession(solve)
    session.solve = solve
    return session


def synchronize_past_the_cap() -> None:
    """A solve() that waits for the GPU, slow enough to be exposed even at the 2 ms cap: its stream idle."""
    GPU.run(FakeGPU.KERNEL_S)
    GPU.wait()
    time.sleep(0.0022)


class Settles:
    """Tells the guard's settling calls (one set of inputs, again and again) from timed ones (fresh inputs)."""

    def __init__(self):
        self.last = None

    def __call__(self, input) -> bool:
        same = self.last is not None and self.last.shape == input.shape and torch.equal(self.last, input)
        self.last = input.clone()
        return same


def sync_or_hide(sync_now, side: FakeGPU):
    """A cheat that waits for the GPU past the cap where ``sync_now(input)``, and elsewhere runs its kernel and
    leaves 3 ms of work on ``side``, a stream it never joins."""

    def cheat(input, output, rows, cols):
        output.copy_(input.T)
        if sync_now(input):
            synchronize_past_the_cap()
        else:
            GPU.run(FakeGPU.KERNEL_S)
            side.run(0.003)

    return cheat


def test_blocking_forced_in_the_settling_calls_then_work_on_an_unjoined_stream(monkeypatch):
    """The settling calls synchronize (exposed at the cap, stream idle: blocking), the timed calls then leave
    3 ms of work on a stream they never join, hoping the no-spin mode's shorter cover hides it."""
    side = FakeGPU(held_by=GPU)
    done, summary = run(bare_session(sync_or_hide(Settles(), side)), monkeypatch, side)
    report("blocking then unjoined", done, summary)
    assert not summary["timer_trusted"] and summary["median_ms"] >= 3.0


def test_blocking_then_no_synchronize_cannot_move_host_work_out_of_the_events(monkeypatch, steady_clock):
    """Blocking forced while settling, then the timed calls do 1 ms of host work before the launch: without
    the spin the start event fires first, so the events count it (never less than the honest 20 µs)."""
    settling = Settles()

    def cheat(input, output, rows, cols):
        output.copy_(input.T)
        if settling(input):
            GPU.run(FakeGPU.KERNEL_S)
            GPU.wait()
            CLOCK.sleep(0.0022)
        else:
            CLOCK.sleep(0.001)
            GPU.run(FakeGPU.KERNEL_S)

    done, summary = run(bare_session(cheat))
    report("blocking then host work", done, summary)
    assert summary["median_ms"] >= 0.9


def test_alternating_sync_keeps_the_spin_and_hides_nothing(monkeypatch):
    """Every second call waits past the cap (idle) and every other leaves the stream busy: BLOCKING_EVIDENCE
    is never reached, the guard keeps spinning; with 3 ms unjoined on the busy calls, none of it is hidden."""
    side = FakeGPU(held_by=GPU)
    calls = iter(range(1, 1 << 30))
    done, summary = run(bare_session(sync_or_hide(lambda input: next(calls) % 2, side)), monkeypatch, side)
    report("alternating", done, summary)
    flagged = sum(a[3] for a in done.audits)
    assert not summary["timer_trusted"] and flagged >= len(done.audits) // 3
