"""The red team's attacks on the timed path (2026-11-26), on the fake-GPU harness of test_bench_loop.py:
each was accepted at a fraction of its honest time before its fix, and must fail now.  The harness (issue 46)
made some moot: the outputs are read by the judge's process from the shared memory, after the worker froze (a
patched torch function or a thread finishing them later has nothing to act on then; tests/test_cheats.py runs
the thread through a real worker).  Bounded, not closed (docs/security.md): rewriting the timed loop's own
objects inside the worker changes only that process's word, which the judge's clock and the floor bound.
"""

from __future__ import annotations

import sys
import threading
import time

import pytest
import torch

from test_bench_loop import (CASE, GPU, FakeGPU, FakeWorker, RecordingSession, fake_calls,  # noqa: F401
                             cpu_events)
from judge.challenge.spec import parse_spec
from judge.judging.reference import Reference
from judge.judging.verdict import Verdict
from judge.timing import audit
from judge.timer import cover, timed_loop as bench
from judge.judging.benchmark_stage import BenchFailure, bench_case, timing_summary
from judge.worker.session import Session

HONEST_S = 0.002  # the honest kernel's (fake) GPU time: 2 ms


@pytest.fixture(autouse=True)
def settle_threads():
    before = set(threading.enumerate())
    yield
    sys.setprofile(None)
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=2.0)
    GPU.wait()


ArmedSession = RecordingSession  # the worker's session as Session.start leaves it before the solution loads


def find_session():
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, Session):
                return value
        frame = frame.f_back
    raise RuntimeError("no session on the stack")


def run_case(session, calls=None):
    return timing_summary(bench_case(calls or fake_calls(), FakeWorker(session), CASE, check=True))


def rejected(session) -> BenchFailure:
    with pytest.raises(BenchFailure) as info:
        run_case(session)
    return info.value


def test_a_profile_hook_cannot_finish_the_outputs_after_the_call():
    """Every timed call wrote garbage; a sys.setprofile hook saw which call the judge verified and computed the
    outputs then (accepted at the launch's 20 µs, not 2 ms).  The judge decides and reads in its own process
    now, and the hook is cleared as soon as solve() returns: here it waits for the worker's reply, in vain."""
    reply_code = Session.reply.__code__

    def hook(frame, event, arg):
        if event == "call" and frame.f_code is reply_code:
            args = frame.f_locals["self"].args
            args[1].copy_(args[0].T)

    def cheat(input, output, rows, cols):
        sys.setprofile(hook)  # cleared by the worker as soon as solve() returns
        output.fill_(0.0)

    assert rejected(ArmedSession(cheat)).verdict == Verdict.WRONG_ANSWER


def test_a_profile_hook_cannot_do_the_work_before_the_clock_starts():
    """A hook on measured_call's start queued the real kernel before the call's synchronize (untimed);
    solve() only copied its result."""
    measured = bench.measured_call.__code__
    scratch = {}

    def hook(frame, event, arg):
        if event == "call" and frame.f_code is measured and frame.f_locals.get("args"):
            scratch["y"] = frame.f_locals["args"][0].T.clone()
            GPU.run(HONEST_S)

    def cheat(input, output, rows, cols):
        sys.setprofile(hook)
        if "y" in scratch and scratch["y"].shape == output.shape:
            output.copy_(scratch.pop("y"))
        else:
            output.fill_(0.0)

    failure = rejected(ArmedSession(cheat))
    assert failure.verdict == Verdict.WRONG_ANSWER, str(failure)[-3000:]


def test_rebinding_the_sessions_clock_does_not_hide_work_on_another_stream(monkeypatch):
    """session.clock, an instance attribute, was the timed calls' host clock: one that ran 3 ms behind
    after each call hid 3 ms of unjoined work.  The calls use the timed loop's own clock now."""
    side = FakeGPU(held_by=GPU)
    monkeypatch.setattr(bench, "_synchronize", lambda: (GPU.wait(), side.wait()))
    state = {"offset": 0.0, "armed": False}

    def cheat(input, output, rows, cols):
        if not state["armed"]:
            session, real = find_session(), time.perf_counter
            session.clock = lambda: real() - state["offset"]
            state["armed"] = True
        output.copy_(input.T)
        side.run(0.003)
        state["offset"] += 0.003

    summary = run_case(ArmedSession(cheat))
    assert not summary["timer_trusted"] and summary["median_ms"] >= 3.0


SORT = parse_spec("""
name: rt_sort
title: sort (red team)
difficulty: easy
statement: Sort a vector.
parameters:
  - {name: x, tensor: float32, shape: [N], role: in, init: {dist: uniform, low: -10, high: 10}}
  - {name: y, tensor: float32, shape: [N], role: out}
  - {name: N, scalar: int}
sizes:
  N: [1, 100000]
reference: |
  def reference(x, y, N):
      y.copy_(torch.sort(x).values)
tolerance: {kind: exact}
tests:
  sizes:
    - {N: 17}
benchmarks:
  - {name: b, N: 4096}
cost:
  bytes: 2 * N * 4
  bound: memory
""", "rt_sort.yaml")


def test_a_sort_finished_after_the_call_is_refused():
    """The timed call only copied x to y; the sort ran after the judge had read the outputs (a plain sum of words
    could not tell a permutation, when the worker's digest was the check)."""
    calls = fake_calls(Reference(SORT, "cpu"))
    case = type(CASE)("b", "benchmark", {"N": 4096})
    pending = []

    class RoundTrip(FakeWorker):
        def request(self, header, timeout, what="", cap=None):
            if pending:  # the solution's thread, when the worker is thawed for the next request
                y = pending.pop()
                y.copy_(torch.sort(y).values)
            return super().request(header, timeout, what, cap)

    def cheat(x, y, N):
        pending[:] = [y]
        y.copy_(x)

    session = ArmedSession(cheat)
    session.spec = SORT
    session.solve = lambda *args: (cheat(*args), GPU.run(FakeGPU.KERNEL_S))
    with pytest.raises(BenchFailure) as info:
        bench_case(calls, RoundTrip(session), case, check=True)
    assert info.value.verdict in (Verdict.RUNTIME_ERROR, Verdict.WRONG_ANSWER)


def test_the_guards_tables_cannot_be_edited_in_place():
    """cover.SLOTS (the barrier's counter) and the poison patterns were a list and a dict edited in place: the
    guard's programs skipped the barrier.  Immutable, an honest worker's guard cannot be broken by accident either."""
    with pytest.raises(TypeError):
        cover.SLOTS[1] = 1 << 40
    with pytest.raises(TypeError):
        bench._POISON[torch.float32] = bytes(8)


def test_work_under_the_per_call_allowance_in_every_call_is_counted():
    """A 10 µs kernel with 25 µs of unjoined work after it in every call stayed under the per-call allowance
    (twice the calibrated 99th percentile, 40 µs): it read 10 µs, trusted."""
    latency = (0.008, 0.020)  # the device's median and 99th percentile, ms
    audits = [[0.010 + 0.025 + 0.008, 0.010, 0.04, 0] for _ in range(20)]
    assert not audit.disagrees(audit.Audit(*audits[0][:3]), latency[1])
    hidden = audit.case_excess_ms(audits, latency)
    assert hidden is not None and abs(hidden - 0.025) < 1e-9
    honest = [[0.010 + 0.008 + 0.001 * (i % 3), 0.010, 0.04, 0] for i in range(20)]
    assert audit.case_excess_ms(honest, latency) is None


def test_an_honest_case_whose_host_runs_slower_than_at_calibration_is_not_lifted():
    """H200, 2026-11-26: the calibration (torch's copy in the judge) read a median latency of 10 µs with a
    tight spread; an honest 36 µs transpose in its worker, later in a long session, read 19-23 µs (9-13 µs
    more).  That drift is no hidden work: every call was lifted by it (+25 %) under the old 5 µs floor."""
    latency = (0.010, 0.014)
    honest = [[0.0363 + 0.010 + 0.011 + 0.001 * (i % 3), 0.0363, 0.30, 0] for i in range(40)]
    assert not any(audit.disagrees(audit.Audit(*a[:3]), latency[1]) for a in honest)
    assert audit.case_excess_ms(honest, latency) is None


def test_work_under_the_allowance_is_counted_on_the_harness(monkeypatch):
    """0.4 ms on the timer's stream and 1.2 ms on a side stream after it, every call: under the harness's
    per-call allowance (2 ms), so only the case's median shows it.  Honest: 1.6 ms."""
    side = FakeGPU(held_by=GPU)
    monkeypatch.setattr(bench, "_synchronize", lambda: (GPU.wait(), side.wait()))

    def cheat(input, output, rows, cols):
        output.copy_(input.T)
        GPU.run(0.0004)
        side.busy_until = GPU.busy_until  # side.wait_stream(current): it starts after the timed kernel
        side.run(0.0012)

    summary = run_case(ArmedSession(cheat))
    assert summary["median_ms"] >= 1.4 and not summary["timer_trusted"]


def test_the_latency_allowance_is_calibrated_as_the_calls_are_compared(monkeypatch):
    """The calibration took the host clock's excess from calling solve() to the synchronize (tail_ms), which
    holds what is left of guard and flush (~0.1-0.2 ms on an H200), and the audit compared host_ms (guard
    subtracted) against twice that: a transpose doing 0.31 ms of torch's copy on a stream it never joined read
    0.11 ms, accepted (H200, 2026-11-26).  host_ms and seen_ms are calibrated apart now."""
    from judge.timer import cover as cover_module, flush
    from judge.timing import peaks

    class Guard:
        def absorb(self, call):
            return False

    calls = iter([bench.Call(0.002, 10.0, 90.0, host_ms=0.002 + 0.008 + 0.001 * (i % 3), tail_ms=0.15)
                  for i in range(1000)])
    monkeypatch.setattr(flush, "flush_buffer", lambda device: None)
    monkeypatch.setattr(cover_module, "Cover", lambda buffer: None)
    monkeypatch.setattr(bench.LaunchGuard, "measure", classmethod(lambda cls, cover, host: Guard()))
    monkeypatch.setattr(bench, "settle_guard", lambda *a: None)
    monkeypatch.setattr(bench, "measured_call", lambda *a: next(calls))
    floor, host, seen = peaks.timer_floor_us("cpu", calls=100, with_overhead=True)
    assert floor == pytest.approx(2.0) and host[1] == pytest.approx(10.0) and seen[0] == pytest.approx(148.0)
    # 0.25 ms hidden after a 2 µs kernel, every call: over the allowance of host_ms, under that of tail_ms
    hidden = audit.Audit(host_ms=0.002 + 0.25, event_ms=0.002, tail_ms=0.25 + 0.08)
    assert audit.disagrees(hidden, host[1] / 1e3) and audit.audited_sample(hidden, host[1] / 1e3) >= 0.25
    assert not audit.disagrees(hidden, seen[1] / 1e3)  # the old allowance


def test_case_level_work_is_judged_by_the_same_measure_as_the_calls():
    """Where the guard cannot hold the GPU the calls are compared by seen_ms (tail included), and so is the case."""
    latency = (0.10, 0.12)  # seen_ms's calibration: guard remainder included
    honest = [[0.010, 0.002, 0.102 + 0.001 * (i % 3), 0] for i in range(20)]
    assert audit.case_excess_ms(honest, latency, guard_holds_gpu=False) is None
    hidden = [[0.010, 0.002, 0.102 + 0.03, 0] for _ in range(20)]
    assert audit.case_excess_ms(hidden, latency, guard_holds_gpu=False) == pytest.approx(0.03)
