"""The benchmark loop and its checks without a GPU: the worker side
(judge/timer/timed_loop.py) runs in-process with CUDA events and synchronize
replaced by host-clock fakes, and its messages feed the judge side
(judge/judging/benchmark_stage.py) through a fake worker that places each call's
arguments in the real shared memory (judge/worker/arguments.py, a memfd mapped twice in
this process).  This covers the protocol between the two: each timed call's inputs
placed by the judge, verified calls read from the shared memory, forged replies.
"""

from __future__ import annotations

import ctypes
import importlib.util
import time

import pytest
import torch

from judge.challenge.cases import Case
from judge.judging.reference import Reference
from judge.judging.runner import Options
from judge.challenge.spec import load_spec, parse_spec
from judge.challenge.tensors import make_arguments, poison_value
from judge.timer import timed_loop as bench
from judge.judging.bench_context import BenchSettings, CallContext
from judge.judging.benchmark_stage import BenchFailure, bench_case, timing_summary
from judge.judging.failures import NONDETERMINISTIC, RIGHT_UNTIMED, SAME_AGAIN
from judge.judging.verdict import Verdict
from judge.worker.arguments import JudgeArguments, WorkerArguments
from judge.worker.client import Worker
from judge.worker.session import Session

from conftest import SOLUTIONS, SPECS

SPEC = load_spec(SPECS / "tiny_transpose.yaml")
CASE = Case("b", "benchmark", {"rows": 7, "cols": 5})
CASE_BYTES = 7 * 5 * 4  # one float32 tensor of the case


class HostClock:
    """The fake GPU's and the timed calls' host clock: the wall clock (``time.perf_counter``), or with
    ``steady()`` this thread's CPU time plus the sleeps it asked for.

    The steady clock leaves out the time the machine took the test off the CPU: on a loaded 2-core CI
    machine such stalls (5-10 ms) looked like host time around a call to the audit and like a solve() that
    waits to the guard, and honest solutions' tests failed by chance.  Tests that assert an honest result
    use it; tests with threads keep the wall clock (a thread's CPU time is its own)."""

    def __init__(self):
        self.now, self.slept = time.perf_counter, 0.0

    def steady_now(self) -> float:
        return time.thread_time() + self.slept

    def sleep(self, seconds: float) -> None:
        """Sleep on the host; the steady clock moves by exactly ``seconds``, the wall clock by at least."""
        time.sleep(seconds)
        self.slept += seconds


CLOCK = HostClock()


def now() -> float:
    return CLOCK.now()


class FakeGPU:
    """A GPU stream on the host clock: work runs after what is queued before it and never before it is launched.

    So, as on a real GPU, the start event fires when the guard's kernel ends,
    and a solve() whose launch takes longer than that is timed with its
    launch.  A stream ``held_by`` another (a side stream) starts nothing
    while the other's guard kernel holds the SMs (``held_until``).
    """

    KERNEL_S = 20e-6  # every solve() queues one kernel of this length
    FLUSH_S = 65e-6

    def __init__(self, held_by: "FakeGPU | None" = None):
        self.busy_until = 0.0
        self.held_until = 0.0
        self.held_by = held_by

    def run(self, seconds: float) -> None:
        held = self.held_by.held_until if self.held_by else 0.0
        self.busy_until = max(now(), self.busy_until, held) + seconds

    def stamp(self) -> float:
        self.busy_until = max(now(), self.busy_until)
        return self.busy_until

    def wait(self, until: float | None = None) -> None:
        remaining = (self.busy_until if until is None else until) - now()
        if remaining > 0:
            CLOCK.sleep(remaining)


GPU = FakeGPU()


class FakeEvent:
    def __init__(self, enable_timing=True):
        self.at = None

    def record(self, stream=None):
        self.at = GPU.stamp()

    def elapsed_time(self, other):
        return max((other.at - self.at) * 1e3, 1e-6)


def apply_fills(fills) -> None:
    """What the guard's kernel writes, done on CPU memory at once."""
    for fill in fills:
        if fill.src is None:
            ctypes.memmove(fill.dst, (fill.pattern * (fill.nbytes // 8 + 1))[:fill.nbytes], fill.nbytes)
        else:
            ctypes.memmove(fill.dst, fill.src, fill.nbytes)


class FakeCover:
    """The guard's kernel (cover.py) on the fake GPU: it spins, flushes and holds the SMs meanwhile,
    and puts the outputs back when it is launched (the host's writes in solve() come after)."""

    flush_bytes = 4096
    fills_sm = True

    def __init__(self, flush=None, log=None):
        self.log = log if log is not None else []

    def prepare(self, fills, keep=None):
        return list(fills), keep  # as the real table does, it holds what its copies read from

    def __call__(self, spin_ns: int, prepared) -> None:
        fills, _ = prepared
        self.log.append(("cover", spin_ns, fills))
        apply_fills(fills)
        GPU.run(spin_ns * 1e-9 + FakeGPU.FLUSH_S)
        GPU.held_until = GPU.busy_until

    def residency_spread_us(self) -> float:
        return 0.0


@pytest.fixture(autouse=True)
def cpu_events(monkeypatch):
    monkeypatch.setattr(bench, "_Event", FakeEvent)
    monkeypatch.setattr(bench, "_record", FakeEvent.record)
    monkeypatch.setattr(bench, "_elapsed", FakeEvent.elapsed_time)
    monkeypatch.setattr(bench, "_event_sync", lambda event: GPU.wait(event.at))
    monkeypatch.setattr(bench, "_synchronize", GPU.wait)
    monkeypatch.setattr(bench, "_stream_idle", lambda stream: GPU.busy_until <= now())
    monkeypatch.setattr(bench, "flush_buffer", lambda device: None)
    monkeypatch.setattr(bench, "Cover", FakeCover)
    monkeypatch.setattr(bench, "_current_stream", lambda: None)
    from judge.worker import session

    monkeypatch.setattr(session, "_Event", FakeEvent)  # the warm-up times with the session's events
    monkeypatch.setattr(session, "_synchronize", GPU.wait)


@pytest.fixture
def steady_clock(monkeypatch):
    """The steady host clock (HostClock) for the timed calls, the warm-up and the fake GPU."""
    GPU.busy_until = GPU.held_until = 0.0  # wall-clock readings: far ahead of a steady clock's
    monkeypatch.setattr(CLOCK, "now", CLOCK.steady_now)
    monkeypatch.setattr(bench, "_clock", now)
    yield
    GPU.busy_until = GPU.held_until = 0.0  # and the reverse for the next test


class RecordingSession(Session):
    """A worker session on the CPU whose replies are collected, not written to a pipe."""

    def __init__(self, solve):
        super().__init__({"device": "cpu", "solution": "x.py", "spec": SPEC.source}, -1, now)
        self.spec, self.messages = SPEC, []
        self.solve = lambda *args: (solve(*args), GPU.run(FakeGPU.KERNEL_S))  # the host part, then its kernel
        self.gpu = True  # time with the (fake) events, as on a GPU
        self.warm = False  # the warm-up is over

    def reply(self, header, blobs=()):
        self.warm = self.warm or header.get("op") == "warm"
        self.messages.append((header, []))

    def timer_stream(self):
        return None


class FakeWorker:
    """The worker as the judge sees it: the judge's side of the shared memory (client.Worker's own place, results
    and stores_outside), and each request served at once by the session, in this process."""

    device = "cpu"
    place, results, stores_outside = Worker.place, Worker.results, Worker.stores_outside

    def __init__(self, session):
        self.session, self.ops = session, []
        self.arguments = JudgeArguments("cpu")
        session.arguments = WorkerArguments("cpu", self.arguments.fd)

    def request(self, header, timeout, what="", cap=None):
        self.ops.append(header["op"])
        self.session.handle(header)
        return self.session.messages.pop(0)

    def output_tail(self):
        return ""


def fake_calls(reference=None, budget_s: float = 0.2) -> CallContext:
    """What a run hands bench_case: its seed, a 0.2 s budget, the judge's reference (the spec's unless
    given), and the device's peaks (no memory callback, as for a rank's participant)."""
    # The fake GPU's host-clock latency around a call (sleep granularity, on a loaded CI machine), as
    # peaks.py would measure it: every hidden work below is longer than twice its 99th percentile.
    return CallContext(seed=3, settings=BenchSettings.of(Options(bench_budget_s=budget_s, seed=3)),
                       reference=reference if reference is not None else Reference(SPEC, "cpu"),
                       peaks={"host_overhead_us": [200.0, 1000.0]})


def load_solve(name):
    spec = importlib.util.spec_from_file_location(name, SOLUTIONS / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.solve


def honest(input, output, rows, cols):
    output.copy_(input.T)


def test_an_honest_solution_is_timed_and_its_verified_calls_pass(steady_clock):
    done = bench_case(fake_calls(), FakeWorker(RecordingSession(honest)), CASE, check=True)
    summary = timing_summary(done)
    assert summary["calls"] >= 10 and summary["verified_calls"] >= 1 and summary["median_ms"] > 0
    assert summary["timer_trusted"] and summary["audited_calls"] == summary["calls"]  # every call is audited


def test_a_wrong_result_while_timed_is_a_wrong_answer():
    session = RecordingSession(load_solve("transpose_wrong_when_timed.py"))
    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    assert info.value.verdict == Verdict.WRONG_ANSWER and "timed call" in info.value.message


def test_a_solution_that_writes_an_earlier_calls_outputs_is_a_wrong_answer():
    """The judge verifies the call it chose, after it ran, from the shared memory: a solve() that answers every call
    with the outputs of its first (whose inputs it kept) fails the check against the inputs of this one."""
    first = []

    def stale(input, output, rows, cols):
        first.append(first[0] if first else input.T.clone())
        output.copy_(first[-1])

    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), FakeWorker(RecordingSession(stale)), CASE, check=True)
    assert info.value.verdict == Verdict.WRONG_ANSWER


def test_no_seed_reaches_the_worker_and_every_timed_call_gets_inputs_of_its_own():
    """The judge draws every timed call's inputs from its own entropy and places them before the call: no request
    holds a seed (the run's or a call's), and no two timed calls see the same values."""
    seen, inputs = [], []
    session = RecordingSession(lambda input, output, rows, cols: (inputs.append(input.clone()), output.copy_(input.T)))
    worker = FakeWorker(session)
    original = worker.request

    def spy(header, timeout, what="", cap=None):
        seen.append(header)
        return original(header, timeout, what, cap)

    worker.request = spy
    bench_case(fake_calls(), worker, CASE, check=True)
    assert not any("seed" in header or "params" in header for header in seen)
    assert seen[0]["op"] == "bench" and seen[-1]["op"] == "end"
    timed = inputs[-sum(h["op"] == "time" for h in seen):]
    assert len(timed) >= 10 and len({tuple(t.flatten().tolist()) for t in timed}) == len(timed)


def test_a_slow_launch_gets_a_guard_queued_before_every_call(monkeypatch, steady_clock):
    """solve() takes 0.5 ms of host time to launch, far longer than the (fake) flush: every timed call
    must queue the guard's kernel, spinning, with the output's poison in its table (work hidden on
    another stream is overwritten), then solve(), and bench_done says how long the guard is."""
    log = []
    monkeypatch.setattr(bench, "Cover", lambda flush: FakeCover(log=log))

    def slow_launch(input, output, rows, cols):
        CLOCK.sleep(0.0005)
        output.copy_(input.T)
        log.append(("solve",))

    session = RecordingSession(slow_launch)
    done = bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    assert 2 * 500 <= done.launch_guard_us <= 2000  # twice the launch, plus margin and sleep jitter
    timed = log[-2 * len(done.samples_ms):]
    covers, solves = timed[0::2], timed[1::2]
    assert all(c[0] == "cover" and c[1] > 0 and [f.pattern for f in c[2] if f.src is None] == [bytes.fromhex("0000c07f") * 2]
               and [f.nbytes for f in c[2] if f.src is not None] == [CASE_BYTES] for c in covers)  # the output's NaN
    # and the input's drawn values, hidden (poisoned) until then
    assert solves == [("solve",)] * len(solves)
    # The 20 µs kernel, not the 500 µs launch.  A sample that does hold host time (the
    # machine stalled the test for longer than the capped guard) must be counted as such.
    flagged = sum(a[3] for a in done.audits)
    assert sum(s >= 0.3 for s in done.samples_ms) <= done.exposed_kept + flagged
    assert sorted(done.samples_ms)[len(done.samples_ms) // 2] < 0.3


def test_a_fast_launch_needs_no_guard(monkeypatch):
    log = []
    monkeypatch.setattr(bench, "Cover", lambda flush: FakeCover(log=log))
    monkeypatch.setattr(bench, "launch_guard_us", lambda host_us, flush_us: 0.0)
    monkeypatch.setattr(FakeGPU, "FLUSH_S", 0.005)  # covers any launch, even on a busy CI machine
    done = bench_case(fake_calls(), FakeWorker(RecordingSession(honest)), CASE, check=True)
    spins = [spin for _, spin, _ in log if spin != 200_000]  # 200 µs: the residency check
    assert done.launch_guard_us == 0.0 and set(spins) == {0} and done.exposed_dropped == 0


def test_a_call_whose_launch_outlasted_the_guard_is_dropped_and_the_guard_grows():
    """Past the warm-up and the guard's settling calls, every 5th launch stalls for 1 ms on the host (as
    Python launches did on the H200 host, 2026-11-21): those calls' events would count the stall.
    Their samples are dropped and the guard grows to cover it."""
    calls = []

    def stalling(input, output, rows, cols):
        if session.warm:  # the timed calls (the guard settles before the warm-up's reply)
            calls.append(1)
            if len(calls) % 5 == 0:
                time.sleep(0.001)
        output.copy_(input.T)

    session = RecordingSession(stalling)
    done = bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    assert done.exposed_dropped >= 1 and done.launch_guard_us >= 1000
    # No uncounted 1 ms stall: a slow sample is either counted as exposed, or is a call the host clock
    # audited (a loaded machine's hiccup), which the report counts too.
    flagged = sum(a[3] for a in done.audits)
    assert sum(s >= 0.5 for s in done.samples_ms) <= done.exposed_kept + flagged
    assert timing_summary(done)["exposed_dropped"] == done.exposed_dropped


def test_a_solve_that_synchronizes_is_timed_without_the_guards_spin():
    """A solve() that waits for its own kernel is exposed on every call however long the guard: at the
    cap the guard stops spinning (a solve() that waits would wait for the spin too, and the host clock
    charged it: 2.47 ms for a 0.098 ms transpose on an H200), the samples are kept and counted, they hold
    the kernel and not the guard, and the report says so."""

    def synchronizing(input, output, rows, cols):
        output.copy_(input.T)
        GPU.run(FakeGPU.KERNEL_S)
        GPU.wait()  # torch.cuda.synchronize() inside solve(), after its last kernel

    session = RecordingSession(synchronizing)
    session.solve = synchronizing  # not RecordingSession's kernel queued after it: this solve() ends waiting
    done = bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    assert done.launch_guard_us == 0.0 and done.exposed_kept == len(done.samples_ms) >= 10
    # not the 2 ms guard, which every sample held before: the fastest sample, since on a loaded machine (a
    # 2-core box running the suite beside other work) half the samples held 5-10 ms of descheduling, and its
    # lower quartile 1.03 ms once
    assert min(done.samples_ms) < 1e3 * FakeGPU.KERNEL_S + 1.0, done.samples_ms
    summary = timing_summary(done)
    assert any("launch guard" in note and "synchronize" in note for note in summary["notes"])


def test_host_work_longer_than_the_cap_before_the_launch_keeps_the_guard_spinning():
    """A solve() that works 3 ms on the host and then launches (a stall, or Python before the launch) is
    exposed at the cap too, but its stream is busy when it returns: it does not wait for the GPU, the cap's
    spin still covers most of its launch, and the guard must not stop spinning (it did: CI on a loaded
    machine saw a slow launch end with a 0 µs guard once the 'solve() waits' mode took any exposure)."""

    def slow_host(input, output, rows, cols):
        time.sleep(0.003)
        output.copy_(input.T)
        GPU.run(0.002)  # a kernel still running when solve() returns, however slow the machine's return path

    done = bench_case(fake_calls(), FakeWorker(RecordingSession(slow_host)), CASE, check=True)
    assert done.launch_guard_us == 2000.0 and done.exposed_kept >= 1


@pytest.mark.parametrize("held", [True, False], ids=["guard-holds-the-GPU", "guard-cannot-hold-the-GPU"])
def test_work_hidden_on_an_unjoined_stream_is_reported_at_no_less_than_its_time(monkeypatch, held):
    """solve() takes 0.3 ms to launch (so the guard is long), then starts 3 ms of work on a stream
    of its own that it never joins.  The events see only the 20 µs kernel; the judge must report at
    least the 3 ms, both where the guard's kernel holds the SMs (the side work starts after it) and
    where it cannot (the side work starts at once, while guard and flush still run).
    (3 ms outlasts even the capped guard, so the audit flags it however the guard grows.)
    (The GPU test with real streams: test_gpu.py::test_unjoined_stream_is_not_faster_than_the_honest_twin.)"""
    side = FakeGPU(held_by=GPU if held else None)
    monkeypatch.setattr(bench, "_synchronize", lambda: (GPU.wait(), side.wait()))  # device-wide
    monkeypatch.setattr(FakeCover, "fills_sm", held)  # the guard's own check tells whether it holds the GPU

    def side_stream(input, output, rows, cols):
        time.sleep(0.0003)
        output.copy_(input.T)
        side.run(0.003)

    summary = timing_summary(bench_case(fake_calls(), FakeWorker(RecordingSession(side_stream)), CASE, check=True))
    assert not summary["timer_trusted"]
    assert summary["median_ms"] >= 3.0


def test_no_call_starts_or_is_read_while_work_left_on_another_stream_still_runs(monkeypatch):
    """The rule for unjoined streams (docs/security.md): after every call the worker waits for the whole device
    before it replies, so work solve() left on a stream of its own is done before the judge places the next
    inputs or reads the outputs.  Before, a timed call waited only for its end event: the verdict was a race."""
    side = FakeGPU(held_by=GPU)
    from judge.worker import session as session_module

    for module in (bench, session_module):  # torch.cuda.synchronize waits for every stream
        monkeypatch.setattr(module, "_synchronize", lambda: (GPU.wait(), side.wait()))
    busy_when = []

    class Watching(RecordingSession):
        def take_arguments(self, header):
            busy_when.append(side.busy_until > time.perf_counter())  # the judge placed these: nothing runs now
            return super().take_arguments(header)

        def reply(self, header, blobs=()):
            busy_when.append(side.busy_until > time.perf_counter())  # the judge reads after this
            super().reply(header, blobs)

    def side_stream(input, output, rows, cols):
        output.copy_(input.T)
        side.run(0.002)  # its kernel, on a stream nobody joins

    bench_case(fake_calls(), FakeWorker(Watching(side_stream)), CASE, check=True)
    assert len(busy_when) > 10 and not any(busy_when)


def test_no_timed_call_runs_unless_the_judge_asked_for_it():
    """The judge runs its reference on the same GPU (judge rank read matmuls up to 2x slow when the two
    overlapped): the worker times a call only when asked, each on inputs the judge placed just before."""
    order = []
    worker = FakeWorker(RecordingSession(honest))
    original_place, original_request = worker.place, worker.request
    worker.place = lambda *a, **k: (order.append("place"), original_place(*a, **k))[1]
    worker.request = lambda header, *a, **k: (order.append(header["op"]), original_request(header, *a, **k))[1]
    bench_case(fake_calls(), worker, CASE, check=True)
    timed = order[order.index("time"):]
    assert all(order[i - 1] == "place" for i, what in enumerate(order) if what in ("time", "bench"))
    assert "send" not in timed and timed.count("time") >= 10


@pytest.mark.parametrize("forged, words", [
    ({"event_ms": "fast"}, "malformed timed call"),
    ({"event_ms": float("nan")}, "malformed timed call"),
    ({"event_ms": -1.0}, "malformed timed call"),  # issue 25: every call reported -1 ms, accepted at 0.0000 ms
    ({"host_ms": float("inf")}, "malformed timed call"),
    ({"event_ms": 0.0}, "impossible timings"),
    ({"event_ms": 5e5}, "impossible timings"),  # longer than the judge waited for the call
])
def test_forged_timings_are_a_runtime_error_not_a_crash_of_the_judge(forged, words):
    class Forging(RecordingSession):
        def reply(self, header, blobs=()):
            if header.get("op") == "timed":
                header = dict(header, **forged)
            super().reply(header, blobs)

    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), FakeWorker(Forging(honest)), CASE, check=True)
    assert info.value.verdict == Verdict.RUNTIME_ERROR and words in info.value.message


def _inout_spec():
    """tiny_transpose with an inout tensor that solve() increments."""
    text = (SPECS / "tiny_transpose.yaml").read_text().replace(
        "  - {name: output, tensor: float32, shape: [cols, rows], role: out}",
        "  - {name: output, tensor: float32, shape: [cols, rows], role: out}\n"
        "  - {name: scratch, tensor: int32, shape: [rows], role: inout, init: {dist: randint, low: 0, high: 9}}")
    text = text.replace("def reference(input, output, rows, cols):", "def reference(input, output, scratch, rows, cols):")
    return parse_spec(text.replace("output.copy_(input.T)", "output.copy_(input.T); scratch.add_(1)"), "inout.yaml")


def test_repoison_puts_the_poison_back_in_outputs_and_the_drawn_values_in_inouts():
    """What the guard's kernel writes after its spin: anything solve() wrote before the start event is undone."""
    spec = _inout_spec()
    args = make_arguments(spec, {"rows": 3, "cols": 2}, 5, "cpu")
    drawn = args[2].clone()
    repoison = bench.Repoison(spec, args)
    args[1].fill_(7.0)  # hidden work that "ran" during the guard
    args[2].add_(1)
    apply_fills(repoison.fills)
    assert args[1].isnan().all() and torch.equal(args[2], drawn) and not args[0].isnan().any()


def test_the_inputs_hold_poison_while_the_guard_spins_and_their_values_after(monkeypatch):
    """Red team, 2026-11-26: during the spin the copy engines run free, and the inputs held this call's values:
    a solve() copied them to the host, computed there (its host time hidden under the guard) and copied the
    result into scratch, then timed one copy (softmax on an H100: 0.0082 ms against 0.0102 ms honest).  The
    inputs and inouts are poisoned before the guard is launched and hold their drawn values again only when
    its fills run, after the spin: such a copy reads poison."""
    spec = _inout_spec()
    args = make_arguments(spec, {"rows": 3, "cols": 2}, 5, "cpu")
    drawn_in, drawn_inout = args[0].clone(), args[2].clone()
    monkeypatch.setattr(torch.Tensor, "fill_", lambda *a, **k: None)  # a patched torch does not keep them visible
    repoison = bench.Repoison(spec, args)
    assert args[0].isnan().all() and (args[2] == poison_value(torch.int32)).all()  # what a copy engine reads now
    apply_fills(repoison.fills)
    assert torch.equal(args[0], drawn_in) and torch.equal(args[2], drawn_inout) and args[1].isnan().all()


def test_repoison_leaves_out_empty_tensors():
    """A shape like [n - 1] can be empty; an empty tensor's address is 0, which a fill refused (review)."""
    args = [torch.ones(3, 2), torch.empty(0), 3, 2]
    assert [(f.nbytes, f.src is not None) for f in bench.Repoison(SPEC, args).fills] == [(24, True)]  # the input only


def test_the_timer_floor_probe_runs_through_the_same_timed_call(monkeypatch):
    """peaks.timer_floor_us times an empty solve() with bench.timed_call (a GPU-only path, so
    it broke unseen on CPU once: its stand-in session had no spec for the re-poisoning)."""
    from judge.timer import cover, flush
    from judge.timing import peaks

    monkeypatch.setattr(flush, "flush_buffer", lambda device: None)
    monkeypatch.setattr(cover, "Cover", FakeCover)
    assert 0 < peaks.timer_floor_us("cpu", calls=20) < 1e3  # µs: the empty call, not the 65 µs flush


def test_an_honest_in_place_solution_is_trusted_though_its_inout_is_copied_every_call(monkeypatch, steady_clock):
    """The copy of an inout tensor that re-poisoning needs is GPU work as long as an in-place kernel.
    Made after the call's synchronize, it fell inside the audit's host time and not in the cover it
    subtracts, and a correct in-place solution read as a cheat at ~2.5x its time (review, 2026-11-21)."""
    kernel_s, spec = 0.0007, _inout_spec()
    real_clone = torch.Tensor.clone
    monkeypatch.setattr(bench, "_clone", lambda self, *a, **k: (GPU.run(kernel_s), real_clone(self, *a, **k))[1])
    session = RecordingSession(lambda input, output, scratch, rows, cols: (output.copy_(input.T), scratch.add_(1)))
    session.spec = spec
    session.solve = lambda *args: (args[1].copy_(args[0].T), args[2].add_(1), GPU.run(kernel_s))
    summary = timing_summary(bench_case(fake_calls(Reference(spec, "cpu")), FakeWorker(session), CASE, check=True))
    assert summary["timer_trusted"], summary["notes"]
    assert summary["median_ms"] < 1.5 * kernel_s * 1e3


def two_phase_session(side: FakeGPU) -> RecordingSession:
    """1.5 ms of work into scratch on a side stream, then the current stream waits for it and copies
    scratch to the output in 0.2 ms (covered by the events), then a 1 ms host sleep that grows the guard
    to its cap.  With a guard that sleeps on one SM, the side work ran during the guard: 0.2 ms."""

    def two_phase(input, output, rows, cols):
        side.run(0.0015)
        GPU.busy_until = max(GPU.stamp(), side.busy_until)  # current_stream().wait_stream(side)
        output.copy_(input.T)
        GPU.run(0.0002)
        time.sleep(0.001)

    session = RecordingSession(two_phase)
    session.solve = lambda *args: two_phase(*args)  # no extra kernel: the copy above is the only one
    return session


def test_two_phase_work_hidden_in_the_guards_shadow_is_timed(monkeypatch):
    """The guard's kernel holds every SM, so the side work cannot start before the start event."""
    side = FakeGPU(held_by=GPU)
    monkeypatch.setattr(bench, "_synchronize", lambda: (GPU.wait(), side.wait()))
    summary = timing_summary(bench_case(fake_calls(), FakeWorker(two_phase_session(side)), CASE, check=True))
    assert summary["median_ms"] >= 1.5 or not summary["timer_trusted"]


def test_a_guard_that_cannot_hold_the_gpu_is_reported(monkeypatch):
    """Where the kernel's programs do not fill an SM (a GPU unlike those measured), work on another
    stream can run during the guard; the report must say that its times are open to such work."""
    side = FakeGPU()
    monkeypatch.setattr(bench, "_synchronize", lambda: (GPU.wait(), side.wait()))
    monkeypatch.setattr(FakeCover, "fills_sm", False)
    done = bench_case(fake_calls(), FakeWorker(two_phase_session(side)), CASE, check=True)
    assert done.guard_holds_gpu is False
    assert any("could not hold every SM" in note for note in timing_summary(done)["notes"])


def test_outputs_left_unwritten_in_timed_calls_get_a_hint_about_other_streams():
    session = RecordingSession(lambda input, output, rows, cols: None if session.warm else output.copy_(input.T))
    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    assert info.value.verdict == Verdict.WRONG_ANSWER
    assert "never written" in info.value.message and "wait_stream" in info.value.message


# -- shipped inputs (LeetGPU challenge folders, docs/leetgpu.md) ----------------------------------------
def shipped_bench(solve, folder="medium/4_inplace_affine", test=2, on_draw=None, budget_s=0.2):
    """bench_case on a stand-in LeetGPU challenge: the test's values placed for the warm-up, and every timed call's
    own placed before it (drawn again, as the performance test's ``redraw`` does).  Returns the timed run, the
    session and the ops the worker was sent."""
    from dataclasses import replace

    from judge.challenge.leetgpu import build_tests, load_folder
    from judge.challenge.shipped import signature_from_message, signature_message
    from judge.judging.shipped_runner import ShippedReference

    from conftest import ROOT

    spec = load_folder(ROOT / "tests" / "leetgpu" / "challenges" / folder)
    session = RecordingSession(solve)
    session.spec = signature_from_message(signature_message(spec))  # what the worker knows
    reference = ShippedReference(spec, "cpu")

    def drawn(seed):  # a functional test as the benchmark: the warm-up's 25 ms of fake GPU time take ~1000 calls
        if on_draw is not None:
            on_draw()
        return replace(build_tests(spec, "cpu", seed=seed)[0][test], name="performance", kind="benchmark",
                       redraw=drawn)

    case = reference.benchmark = drawn(3)
    pristine = {name: value.clone() for name, value in case.arguments.items() if isinstance(value, torch.Tensor)}
    shape = list(next(iter(pristine.values())).shape)

    class ShippedWorker(FakeWorker):
        def request(self, header, timeout, what="", cap=None):
            if header["op"] in ("bench", "time"):
                assert header["slots"][0][2] == shape  # the test's values placed, in the signature's order
            return super().request(header, timeout, what, cap)

    worker = ShippedWorker(session)
    done = bench_case(fake_calls(reference, budget_s), worker, case, check=True)
    assert all(torch.equal(case.arguments[name], value) for name, value in pristine.items())  # the judge's own
    return done, session, worker.ops


def test_shipped_inputs_are_copied_for_every_timed_call_and_inout_restored():
    """data = 2 * data + 1 in place is right only if every call starts from the shipped values."""
    done, session, ops = shipped_bench(lambda data, n: data.mul_(2).add_(1))
    assert done.verified >= 1 and len(done.samples_ms) >= 10
    assert session.args[1] == 999 and "inputs" not in ops and done.inputs_s > 0


def test_every_timed_call_on_a_leetgpu_test_gets_values_of_its_own():
    """Issue 27: the performance test's generator runs again for every timed call (not the warm-up's values
    again), and verified calls are checked against the reference on the values that call got."""
    seen = []

    def honest(a, b, c, n):
        seen.append(a[:8].clone())
        torch.add(a, b, out=c)

    done, _, ops = shipped_bench(honest, "easy/1_vec_add", test=3)  # functional-3: 1025 elements
    timed = seen[-ops.count("time"):]
    assert done.verified >= 1 and len(timed) >= 10
    assert len({tuple(t.tolist()) for t in timed}) == len(timed)  # no two timed calls saw the same values


def test_drawing_fresh_values_counts_in_the_time_budget(monkeypatch):
    """A large performance test costs a generator run and a transfer per timed call: those seconds count in the
    case's budget (the stopping rule's elapsed time), so a case whose times do not converge stops at the budget
    after the minimum 10 calls, instead of drawing until its timed calls alone have spent the budget.  Each draw
    takes 1 s on the judge's clock here (a clock that jumps, so that the test takes no such time)."""
    import random
    from types import SimpleNamespace

    from judge.judging import benchmark_stage

    jumped = [0.0]
    monkeypatch.setattr(benchmark_stage, "time", SimpleNamespace(perf_counter=lambda: time.perf_counter() + jumped[0]))

    def noisy(a, b, c, n):
        torch.add(a, b, out=c)
        GPU.run(random.uniform(0.0, 0.002))  # its kernel's time varies: no ±1 % interval within 10 calls

    def draw():
        jumped[0] += 1.0

    done, _, ops = shipped_bench(noisy, "easy/1_vec_add", test=3, on_draw=draw, budget_s=5.0)
    assert done.stop_reason == "budget" and done.inputs_s >= 10 and ops.count("time") <= 12


def test_a_leetgpu_solution_that_caches_its_result_between_calls_is_a_wrong_answer():
    """tests/solutions/cheat_leetgpu_result_cache.py returns the first call's sum in every later call: right
    in every functional test and when every timed call re-used the warm-up's values, as they did before."""
    with pytest.raises(BenchFailure) as info:
        shipped_bench(load_solve("cheat_leetgpu_result_cache.py"), "easy/1_vec_add", test=3)
    assert info.value.verdict == Verdict.WRONG_ANSWER and "timed call" in info.value.message


def test_a_shipped_case_wrong_while_timed_is_a_wrong_answer():
    calls = []

    def wrong_later(data, n):
        calls.append(1)
        data.mul_(2).add_(1 if len(calls) < 8 else 2)

    with pytest.raises(BenchFailure) as info:
        shipped_bench(wrong_later)
    assert info.value.verdict == Verdict.WRONG_ANSWER and "timed call" in info.value.message


def test_a_timed_failure_the_same_inputs_do_not_repeat_is_named_a_race():
    """Issue 39: a verified timed call failed, the judge gave its inputs again in an untimed call and got
    another answer: the message says the same inputs gave different results (a race, undefined behaviour)."""
    calls = []

    def racy(input, output, rows, cols):  # a different element wrong in every call
        calls.append(1)
        output.copy_(input.T)
        output.view(-1)[len(calls) % output.numel()] += 1.0

    worker = FakeWorker(RecordingSession(racy))
    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), worker, CASE, check=True)
    assert info.value.verdict == Verdict.WRONG_ANSWER
    first, _, diagnosis = info.value.message.partition("\n")
    assert first.startswith("a timed call returned a wrong result") and diagnosis == NONDETERMINISTIC
    assert worker.ops[-2:] == ["time", "call"]  # the failed timed call, then its inputs once more


def test_a_timed_failure_an_untimed_call_gets_right_says_so_after_what_happened():
    """Issue 45 item 7: the first line is what happened (a timed call's wrong result: test_gpu_sealed's
    audit-aware matmul), the diagnosis follows it; an untimed call on the same inputs that is right is named."""
    worker = None

    def wrong_when_timed(input, output, rows, cols):
        output.copy_(input.T)
        if worker.ops[-1] == "time":
            output.view(-1)[0] += 1.0

    worker = FakeWorker(RecordingSession(wrong_when_timed))
    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), worker, CASE, check=True)
    first, _, diagnosis = info.value.message.partition("\n")
    assert first.startswith("a timed call returned a wrong result") and "output" in first
    assert diagnosis == f"{RIGHT_UNTIMED}; {NONDETERMINISTIC}"


def test_a_timed_failure_the_same_inputs_repeat_is_said_to_be_no_race():
    session = RecordingSession(load_solve("transpose_wrong_when_timed.py"))
    with pytest.raises(BenchFailure) as info:
        bench_case(fake_calls(), FakeWorker(session), CASE, check=True)
    assert SAME_AGAIN in info.value.message and NONDETERMINISTIC not in info.value.message


def test_a_shipped_timed_failure_is_given_the_same_values_again():
    """A LeetGPU test: the untimed call gets the values the failed timed call got (ShippedCase.redraw's)."""
    calls = []

    def wrong_later(data, n):
        calls.append(1)
        data.mul_(2).add_(1 if len(calls) < 8 else 2)

    with pytest.raises(BenchFailure) as info:
        shipped_bench(wrong_later)
    assert SAME_AGAIN in info.value.message and NONDETERMINISTIC not in info.value.message


def test_every_timed_call_gets_a_model_of_its_own():
    """A model argument (LeetGPU's 41_simple_inference): the judge places the weights again for every call, so a
    solution that zeroes the weights after using them is still right in every later timed call, and the judge's
    model (its reference's) is never the worker's."""
    solve = load_solve("leetgpu_simple_inference_mutates_weights.py")
    done, session, ops = shipped_bench(solve, "easy/9_simple_inference", test=4)  # functional-4: 16 x 10 -> 5
    assert done.verified >= 1 and len(done.samples_ms) >= 10 and "inputs" not in ops


def _at_cap_call(idle: bool) -> bench.Call:
    """A call exposed at the cap: the host took 2.5 ms from the guard's launch, the guard and flush covered 2.07."""
    return bench.Call(event_ms=0.02, lead_us=2500.0, cover_us=2070.0, idle=idle)


def test_one_host_stall_at_the_cap_does_not_stop_the_guards_spin():
    """A host stall longer than the capped guard looks, on its own call, like a solve() that waited: exposed
    and the stream idle as it returned.  The guard stops spinning only when the calls keep showing it
    (BLOCKING_EVIDENCE in a row, as a synchronizing solve() does on every call): on a loaded CI machine one
    stall switched a 0.5 ms launcher to the no-spin mode, and its samples then held the launch."""
    guard = bench.LaunchGuard(FakeCover(), bench.GUARD_MAX_US)
    assert not guard.absorb(_at_cap_call(idle=True)) and not guard.blocking and guard.us == bench.GUARD_MAX_US
    assert not guard.absorb(_at_cap_call(idle=False))  # the next call's stream was busy: the count starts again
    for _ in range(bench.BLOCKING_EVIDENCE - 1):
        assert not guard.absorb(_at_cap_call(idle=True)) and not guard.blocking
    assert guard.absorb(_at_cap_call(idle=True)) and guard.blocking and guard.us == 0.0
