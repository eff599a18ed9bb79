"""Timing solve() in the worker (GPU only).  docs/timing.md states the method;
this is it:

1. Warm-up, untimed: calls on fresh inputs until at least 3 calls and 25 ms
   of GPU time have passed (the first call compiles and autotunes).  The host
   time of each solve() call is noted: it sizes the launch guard.
2. Each timed call: fresh input values and poisoned outputs (untimed),
   a synchronize, then the launch guard's kernel (cover.py), which holds
   every SM for ``audit.launch_guard_us`` so that solve()'s launch is queued
   before it ends, then poisons the outputs again (``Repoison``: whatever
   other streams wrote to them meanwhile is overwritten) and flushes the L2
   by zeroing a buffer of max(2 x L2, 256 MiB); then CUDA events on the
   current stream around solve().  While the kernel runs no other kernel can
   start, so work that solve() puts on a stream of its own starts after the
   start event.  A call whose launch outlasted the guard
   (``audit.exposed_call``) holds host time: its sample is dropped and the
   guard grows (``audit.grown_guard_us``); at the guard's 2 ms cap such
   samples are kept and counted.  A few untimed calls settle the guard first.
3. Calls picked by ``VerifyPlan`` are also audited by the host clock
   (``audited_call``); their outputs, and the last call's, are sent to the
   judge, which checks them against its own reference; the loop waits for the
   judge's ``checked`` before the next timed call (the reference runs on the
   same GPU).  Every call ends with a device-wide synchronize.
4. ``StoppingRule`` decides after each call: at least 10 calls, then until the
   95 % CI of the median is within +-1 % or the time budget is spent (time
   spent sending results to the judge does not count).

The worker imports this module before the solution, so the torch functions
bound here are the real ones even if the solution monkeypatches torch.  It
owns the method and imports nothing of the worker: the session
(judge/worker/session.py) owns the I/O and calls ``run`` with itself.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from judge.challenge.tensors import TORCH_DTYPES, poison_value, raw_bytes, tensor_params
from judge.timing.seeds import plan_seed, timed_seed, warmup_seed
from judge.timing.audit import GUARD_MAX_US, VerifyPlan, exposed_call, grown_guard_us, launch_guard_us
from judge.timing.cover import Cover, Prepared
from judge.timing.fills import Fill, pattern_of
from judge.timing.flush import flush_buffer
from judge.timing.stats import StoppingRule

_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed = torch.cuda.Event.elapsed_time
_event_sync = torch.cuda.Event.synchronize
_synchronize = torch.cuda.synchronize
_clone = torch.Tensor.clone

WARMUP_MIN_CALLS = 3
WARMUP_MIN_MS = 25.0
SETTLE_CALLS = 10  # untimed guarded calls that grow the guard before the timed ones


def run(session, header: dict) -> None:
    """Serve one ``bench`` request: messages ``warm``, ``verify`` (0 or more), ``bench_done``."""
    # Only a per-case seed reaches the worker: the run's seed may hold a competition's secret.
    params, case_seed = header["params"], int(header["seed"])
    send_results = header.get("verify", True)  # the torch baseline's results are not checked
    rule = StoppingRule(**header.get("rule", {}))
    warm_started = session.clock()
    host_call_us = warmup(session, params, case_seed)
    warmup_s = session.clock() - warm_started
    session.reply({"ok": True, "op": "warm"})
    guard = LaunchGuard.measure(Cover(flush_buffer(session.device)), host_call_us)
    settle_guard(session, session.arguments(params, warmup_seed(case_seed, 0)), guard)
    plan = VerifyPlan(plan_seed(case_seed), min_calls=rule.min_calls)
    samples, audits, verified, exposed = [], [], 0, {"dropped": 0, "kept": 0}
    started = session.clock()
    index, decision, last_message, verifying_s = 0, None, started, 0.0
    while True:
        seed = timed_seed(case_seed, index)
        args = session.arguments(params, seed)
        audited = plan.wants(index)
        if audited:
            host_ms, tail_ms, call = audited_call(session, args, guard)
            audits.append([host_ms, call.event_ms, tail_ms])
        else:
            call = timed_call(session, args, guard)
        session.check_call()  # arguments re-pointed or guard zones written: a runtime error (guarded.py)
        kept = not guard.absorb(call)  # a sample that holds host time is dropped and the guard grown
        if kept:
            exposed["kept"] += call.exposed  # the guard is at its cap: the sample stays, counted
            samples.append(call.event_ms)
        else:
            exposed["dropped"] += 1
        timing_s = session.clock() - started - verifying_s  # sending results to the judge is not timing
        decision = rule.decide(samples, timing_s) if kept and _check_now(len(samples)) else None
        last = decision is not None and decision.stop
        if (audited or last) and send_results:  # the last timed call is always verified
            sent = session.clock()
            _synchronize()
            session.send_tensors({"ok": True, "op": "verify", "call": index, "seed": seed}, args,
                                 outputs_only=True)
            session.await_checked()  # the judge's reference must not share the GPU with the next timed call
            verified += 1
            last_message = session.clock()
            verifying_s += last_message - sent
        if last:
            break
        if session.clock() - last_message > 1.0:  # tell the judge we are alive
            session.reply({"ok": True, "op": "tick", "calls": len(samples)})
            last_message = session.clock()
        index += 1
    session.reply({"ok": True, "op": "bench_done", "samples_ms": samples, "audits": audits,
                   "verified": verified, "stop_reason": decision.reason,
                   "elapsed_s": session.clock() - started, "verifying_s": verifying_s,
                   "warmup_s": warmup_s, "launch_guard_us": guard.us, "exposed_dropped": exposed["dropped"],
                   "exposed_kept": exposed["kept"], "flush_bytes": guard.cover.flush_bytes,
                   "guard_holds_gpu": guard.holds_gpu})


def _check_now(n: int) -> bool:
    """Evaluate the stopping rule at every call up to 100, then every n/100 calls (sorting is O(n log n))."""
    return n <= 100 or n % max(1, n // 100) == 0


def warmup(session, params: dict, case_seed: int) -> list[float]:
    """Untimed calls; returns the host time of solve() (µs) in each call after the first."""
    calls, gpu_ms, host_us = 0, 0.0, []
    while calls < WARMUP_MIN_CALLS or gpu_ms < WARMUP_MIN_MS:
        args = session.arguments(params, warmup_seed(case_seed, calls))
        gpu_ms += session.timed_call(args)
        session.check_call()
        if calls:  # the first call compiles
            host_us.append(session.last_call_host_s * 1e6)
        calls += 1
        if calls >= 1000:
            break
    return host_us


class Call(NamedTuple):
    """One timed call: its event time and what shows whether the events saw host time."""

    event_ms: float
    lead_us: float  # host: launching the guard .. solve() returned
    cover_us: float  # GPU: the guard's start .. the start event (guard and flush)

    @property
    def exposed(self) -> bool:
        return exposed_call(self.lead_us, self.cover_us)


class LaunchGuard:
    """The launch guard: the cover kernel (cover.py) spinning ``us`` before it
    poisons the outputs again and flushes (0: no spin needed).

    The kernel's fills alone give the host their duration (about 0.26 ms on
    an H200, mostly the flush and the barrier's wait) to launch solve(); when
    the launch takes longer, the start event fires before the kernel is
    queued and the sample counts host launch latency.
    The guard starts from the warm-up's host times and grows on every call
    that shows such exposure (``absorb``).
    """

    RESIDENCY_SPIN_US = 200.0
    # Programs that waited for a free SM start a whole spin late; those that all fit started within
    # 0.2-33 µs of each other on an H200 (docs/timing.md), so half the spin tells the two apart.
    RESIDENCY_SLACK_US = RESIDENCY_SPIN_US / 2

    def __init__(self, cover: Cover, us: float, holds_gpu: bool = True):
        self.cover, self.holds_gpu = cover, holds_gpu
        self.us = 0.0
        self.resize(us)

    @classmethod
    def measure(cls, cover: Cover, host_call_us: list[float]) -> "LaunchGuard":
        """Size the guard from the warm-up's host times and the flush's GPU time; check the kernel fits the GPU."""
        tables = [cover.prepare([]) for _ in range(4)]  # each used once, prepared outside the timing
        flush_us = 1e3 * min(time_gpu(lambda t=t: cover(0, t)) for t in tables[:3])
        time_gpu(lambda: cover(int(cls.RESIDENCY_SPIN_US * 1e3), tables[3]))
        holds_gpu = cover.fills_sm and cover.residency_spread_us() < cls.RESIDENCY_SLACK_US
        return cls(cover, launch_guard_us(host_call_us, flush_us), holds_gpu)

    def resize(self, us: float) -> None:
        self.us = us if us > 0 else 0.0

    @property
    def at_cap(self) -> bool:
        return self.us >= GUARD_MAX_US

    def absorb(self, call: Call) -> bool:
        """True when ``call`` holds host time and the guard grew, so its sample is to be dropped."""
        if not call.exposed or self.at_cap:
            return False
        self.resize(grown_guard_us(self.us, call.lead_us, call.cover_us))
        return True

    def prepare(self, repoison: "Repoison") -> Prepared:
        """The kernel's table for one call: ``repoison``'s fills, then the flush (untimed: before the synchronize).

        The table holds ``repoison``: the kernel copies from its clones, which must outlive the call.
        """
        return self.cover.prepare(repoison.fills, keep=repoison)

    def __call__(self, prepared: Prepared) -> None:
        self.cover(int(self.us * 1e3), prepared)


def settle_guard(session, args: list, guard: LaunchGuard, calls: int = SETTLE_CALLS) -> None:
    """Untimed guarded calls on one set of inputs, growing the guard wherever the launch outlasted it."""
    for _ in range(calls):
        guard.absorb(timed_call(session, args, guard))


def time_gpu(work) -> float:
    """Milliseconds of GPU time of ``work()`` by CUDA events."""
    begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
    _synchronize()
    _record(begin)
    work()
    _record(end)
    _event_sync(end)
    return _elapsed(begin, end)


def timed_call(session, args: list, guard: LaunchGuard) -> Call:
    """One timed call as do_bench does it, guarded: synchronize, guard (spin, repoison, flush), event, solve,
    event, then a device-wide synchronize (every stream's work of this call is done when it returns)."""
    before, begin, end = (_Event(enable_timing=True) for _ in range(3))
    prepared = guard.prepare(Repoison(session.spec, args))  # before the synchronize: untimed
    _synchronize()  # an idle GPU starts the guard when it is launched: the cover is measured from there
    start = session.clock()
    _launch_until_solve(session, args, guard, prepared, before, begin)
    lead_us = (session.clock() - start) * 1e6
    _record(end)
    # The whole device, not just the end event: work solve() left on a stream of its own must be
    # done before the next call's inputs are drawn (the allocator may hand them this call's memory)
    # or its outputs are read.  Without this the verdict of such a solution was a race.
    _synchronize()
    return Call(_elapsed(begin, end), lead_us, _elapsed(before, begin) * 1e3)


def audited_call(session, args: list, guard: LaunchGuard) -> tuple[float, float, Call]:
    """A timed call that the host clock also measures; returns (host ms, tail ms, the call).

    The GPU is idle before the guard (a device-wide synchronize), so the host
    clock from just before launching the guard to after a device-wide
    synchronize covers guard + solve() + latency.  The guard's event time
    (spin, repoison, flush) is subtracted: that is the host ms.  The
    device-wide synchronize waits for every stream, so work the solution
    hides on a stream of its own shows up in the host time even when the
    events on the current stream miss it.  Should such work overlap the
    guard, the tail (host clock from calling solve() to the synchronize)
    still counts it (``audit.Audit``).  From the GPU's side the call is timed
    exactly like ``timed_call``, so its sample is unbiased.
    """
    before, begin, end = (_Event(enable_timing=True) for _ in range(3))
    prepared = guard.prepare(Repoison(session.spec, args))
    _synchronize()
    start = session.clock()
    solve_called = _launch_until_solve(session, args, guard, prepared, before, begin)
    lead_us = (session.clock() - start) * 1e6
    _record(end)
    _synchronize()
    done = session.clock()
    cover_ms = _elapsed(before, begin)
    host_ms = (done - start) * 1e3 - cover_ms
    return host_ms, (done - solve_called) * 1e3, Call(_elapsed(begin, end), lead_us, cover_ms * 1e3)


class Repoison:
    """The outputs of one call as the guard's kernel puts them back after its
    spin: the poison for ``out`` tensors, the drawn values for ``inout`` ones.

    While the kernel spins, no other kernel can start, but a copy engine
    could still write; and on a GPU the kernel cannot fill (``holds_gpu``
    false), work on another stream runs beside it.  Written after the spin,
    this overwrites whatever such work put in the outputs, and a verified
    call then fails.  The inout tensors' drawn values are cloned here, before
    the call's synchronize, so that the copies are not timed.
    """

    def __init__(self, spec, args: list):
        """``spec`` None: nothing to put back (the timer-floor probe of peaks.py)."""
        tensors = [(args[i], p.role) for i, p in (tensor_params(spec) if spec is not None else [])]
        tensors = [(t, role) for t, role in tensors if t.numel() and role in ("out", "inout")]  # empty: at address 0
        self.drawn = [_clone(t) for t, role in tensors if role == "inout"]  # kept alive until the call ran
        inouts = iter(self.drawn)
        self.fills = [Fill(t.data_ptr(), t.nbytes, pattern=_POISON[t.dtype]) if role == "out"
                      else Fill(t.data_ptr(), t.nbytes, src=next(inouts).data_ptr())
                      for t, role in tensors]


def _poison_pattern(dtype: torch.dtype) -> bytes:
    """8 bytes of poison elements of ``dtype`` (built on the CPU with torch's own casts)."""
    element = torch.tensor([poison_value(dtype)], dtype=dtype)
    return pattern_of(bytes(raw_bytes(element).numpy()))


# Built when the worker imports this, before the solution can patch torch's casts.
_POISON = {dtype: _poison_pattern(dtype) for dtype in TORCH_DTYPES.values()}  # specs' and shipped tensors' dtypes


def _launch_until_solve(session, args, guard, prepared, before, begin) -> float:
    """Queue the guard and the start event, then call solve(); returns when solve() was called."""
    _record(before)
    guard(prepared)
    _record(begin)
    called = session.clock()
    session.solve(*args)
    return called
