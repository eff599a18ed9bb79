"""Timing solve() in the solution's process (GPU only).  docs/timing.md states the method;
this is the worker's half of it, driven by the judge (judging/benchmark_stage.py), on arguments the judge
placed in the memory both processes map (judge/worker/arguments.py):

1. ``bench``: warm-up, untimed: calls on the arguments the judge placed for it (its inputs put back before
   every call) until at least 3 calls and 25 ms of GPU time have passed (the first call compiles and
   autotunes).  The host time of each solve() call sizes the launch guard (cover.py), and a few
   untimed guarded calls settle it.  Replies ``warm``.
2. ``time`` (one timed call): the judge drew the call's inputs from a seed of its own entropy, wrote them into
   the slots and poisoned the outputs while this process was frozen, so no input of a timed call exists here
   before it is asked for.  The worker synchronizes, launches the guard's kernel (it holds every SM while
   solve() is launched, then poisons the outputs again and flushes the L2), records the start and end events on
   the timer's own stream around solve(), then synchronizes the whole device and reads the host clock.  Every
   timed call is measured this one way (``measured_call``): the events, and the host clock across the
   device-wide synchronize, which the judge compares with each other and with its own clock (audit.py).
   Replies ``timed`` with the numbers; the judge freezes this process, and decides only now whether to read
   and verify the outputs, which it does from its own mapping.
3. ``end``: replies ``bench_done`` (the guard's length, the flush, whether the guard holds the GPU).

The worker imports this module before the solution, so the functions bound
here (torch's C methods where it has them) are the real ones even if the
solution monkeypatches torch: the numbers are honest for an honest solution, and only this process's word for
any other (the judge bounds them by its own clock and the physical floor).  It owns the method and imports
nothing of the worker: the session (judge/worker/session.py) owns the I/O and hands itself in.
"""

from __future__ import annotations

import sys
import threading
import time
from types import MappingProxyType
from typing import NamedTuple

import torch

from judge.challenge.tensors import TORCH_DTYPES, poison_value, raw_bytes, tensor_params
from judge.timer.guard import GUARD_MAX_US, exposed_call, grown_guard_us, launch_guard_us
from judge.timer.cover import Cover, Prepared
from judge.timer.fills import Fill, pattern_of
from judge.timer.flush import flush_buffer

_C = torch._C  # the mode stacks' own functions (clear_hooks)


def _c_method(name: str, fallback):
    """torch's C method of CUDA events (``record``, ``elapsed_time``...): a solution cannot patch those."""
    return getattr(getattr(torch._C, "_CudaEventBase", None), name, None) or fallback


_Event = torch.cuda.Event
_record = _c_method("record", torch.cuda.Event.record)  # (event, stream): always on a named stream
_elapsed = _c_method("elapsed_time", torch.cuda.Event.elapsed_time)
_event_sync = _c_method("synchronize", torch.cuda.Event.synchronize)
_synchronize = getattr(torch._C, "_cuda_synchronize", None) or torch.cuda.synchronize  # the current device
_stream_query = getattr(getattr(torch._C, "_CudaStreamBase", None), "query", None) or torch.cuda.Stream.query


def _stream_idle(stream) -> bool:
    """Whether everything queued on ``stream`` has run (cudaStreamQuery): right after solve() returned, a
    solve() that waited for the GPU left it idle."""
    return bool(_stream_query(stream))
_current_stream = torch.cuda.current_stream  # only where no stream is given (the timer floor, the guard's sizing)
_clone = torch.Tensor.clone
_clock = time.perf_counter  # the host clock of every timed call: never an attribute a solution can rebind
_TENSOR = getattr(torch._C, "TensorBase", None) or torch._C._TensorBase  # C methods, an immutable type
_fill = _TENSOR.fill_
_HOOKS = (sys.setprofile, sys.settrace, threading.setprofile, threading.settrace)


def clear_hooks() -> None:
    """Remove profile and trace hooks: one a solution set (sys.setprofile) runs its code inside the judge's
    after solve() returns, where it saw which call the judge verifies (the red team, 2026-11-26).  Torch
    function and dispatch modes likewise: they intercept even torch's C tensor methods, so a mode the
    solution left active finished its outputs inside the judge's digest, after the clock (red team 27)."""
    for hook in _HOOKS:
        hook(None)
    _restore_modes()


class _ModeStack(NamedTuple):
    """One of torch's mode stacks, through its C functions."""

    what: str
    length: object
    at: object
    pop: object
    push: object
    hook: str  # the method of a mode's class that intercepts


_STACKS = (
    _ModeStack("a torch function mode", _C._len_torch_function_stack, _C._get_function_stack_at,
               _C._pop_torch_function_stack, _C._push_on_torch_function_stack, "__torch_function__"),
    _ModeStack("a torch dispatch mode", _C._len_torch_dispatch_stack, _C._get_dispatch_stack_at,
               lambda: _C._pop_torch_dispatch_stack(None),  # None: a user mode, not one of torch's infra modes
               _C._push_on_torch_dispatch_stack, "__torch_dispatch__"),
)
# Per stack, the modes the worker runs with (CPU mode's cpu_device.CudaOnCpu), each with its class's hook, as
# keep_modes() saw them before the solution loaded: tuples, since a mode the solution appended to a list kept
# here stayed active after solve() returned and wrote the outputs in the worker's own code after the call (the
# harness's class 7 on an H200, 2026-12-02); and what a call changed, for check_call.
_MODES_KEPT: tuple = tuple(() for _ in _STACKS)
_MODES_CHANGED: list = []


def _modes(stack: _ModeStack) -> list:
    """(mode, its class's hook) for each mode on ``stack``, bottom first."""
    return [(mode, getattr(type(mode), stack.hook, None)) for mode in map(stack.at, range(stack.length()))]


def keep_modes() -> None:
    """Remember the modes active now (before the solution loads): every call must leave them as they are."""
    global _MODES_KEPT
    _MODES_KEPT = tuple(tuple(_modes(stack)) for stack in _STACKS)


def _restore_modes() -> None:
    """Put the kept modes back, alone and with their own hooks, if solve() pushed, popped or patched one."""
    for stack, kept in zip(_STACKS, _MODES_KEPT):
        if not kept and not stack.length():
            continue  # the GPU's case, right after every timed solve(): one C call, nothing more
        found = _modes(stack)
        if [(id(m), h) for m, h in found] == [(id(m), h) for m, h in kept]:
            continue
        _MODES_CHANGED.append(stack.what)
        for _ in found:
            stack.pop()
        for mode, original in kept:
            if getattr(type(mode), stack.hook, None) is not original:
                setattr(type(mode), stack.hook, original)
            stack.push(mode)


def modes_changed() -> list[str]:
    """What solve() did to the torch modes since the last call (emptied as it is read)."""
    changed = sorted(set(_MODES_CHANGED))
    _MODES_CHANGED.clear()
    return changed

WARMUP_MIN_CALLS = 3
WARMUP_MIN_MS = 25.0
SETTLE_CALLS = 10  # untimed guarded calls that grow the guard before the timed ones
# Calls in a row exposed at the cap with the stream idle before the guard stops spinning: a solve() that
# waits for the GPU shows it on every call, a host stall longer than the capped guard on one now and then
# (on a loaded 2-core CI machine one such stall stopped the spin for a 0.5 ms launcher).
BLOCKING_EVIDENCE = 3


class TimedLoop:
    """One ``bench`` request's state in the worker: the guard, the timer's stream."""

    def __init__(self, session, header: dict):
        self.session = session
        self.stream = session.timer_stream()
        started = session.clock()
        host_call_us = warmup(self, session.args)
        self.warmup_s = session.clock() - started
        self.guard = LaunchGuard.measure(Cover(flush_buffer(session.device)), host_call_us)
        settle_guard(session, session.args, self.guard, self.stream)

    def time(self, args: list) -> dict:
        """One timed call on ``args`` (the judge's slots, written for this call); what the judge needs to judge
        its time."""
        clear_hooks()
        call = measured_call(self.session, args, self.guard, self.stream)
        self.session.check_call()  # torch's state set back, the GPU memory share: a runtime error if broken
        dropped = self.guard.absorb(call)  # a sample that holds host time is dropped and the guard grown
        return {"ok": True, "op": "timed", "event_ms": call.event_ms, "host_ms": call.host_ms,
                "tail_ms": call.tail_ms, "lead_us": call.lead_us, "cover_us": call.cover_us,
                "dropped": dropped, "exposed": call.exposed, "guard_us": self.guard.us,
                "solve_blocks": self.guard.blocking}

    def done(self) -> dict:
        return {"ok": True, "op": "bench_done", "warmup_s": self.warmup_s, "launch_guard_us": self.guard.us,
                "flush_bytes": self.guard.cover.flush_bytes, "guard_holds_gpu": self.guard.holds_gpu}


def warmup(loop: TimedLoop, args: list) -> list[float]:
    """Untimed calls on ``args``, each on the inputs the judge placed (put back from a copy before every call);
    returns the host time of solve() (µs) in each call after the first.  torch's state is set back after each
    (a 0.09 ms kernel takes ~280 calls here)."""
    session, calls, gpu_ms, host_us = loop.session, 0, 0.0, []
    kept = Inputs(session.spec, args, getattr(session, "outputs_kept", ()))
    while calls < WARMUP_MIN_CALLS or gpu_ms < WARMUP_MIN_MS:
        kept.put_back()
        gpu_ms += session.timed_call(args)
        session.restore_state()
        if calls:  # the first call compiles
            host_us.append(session.last_call_host_s * 1e6)
        calls += 1
        if calls >= 1000:
            break
    kept.put_back()
    session.check_call()
    return host_us


class Inputs:
    """Copies of a call's inputs (in, inout and the kept out tensors) in this process, put back before each of
    several calls on the same slots (the warm-up's, judge profile's): every call sees the values the judge placed."""

    def __init__(self, spec, args: list, kept=()):
        self.pairs = [(args[i], _clone(args[i])) for i, p in tensor_params(spec)
                      if args[i].numel() and (p.role != "out" or p.name in kept)]

    def put_back(self) -> None:
        for tensor, copy in self.pairs:
            tensor.copy_(copy)


class Call(NamedTuple):
    """One timed call, measured by the events and by the host clock."""

    event_ms: float
    lead_us: float  # host: launching the guard .. solve() returned
    cover_us: float  # GPU: the guard's start .. the start event (guard and flush)
    host_ms: float = 0.0  # host: launching the guard .. the device-wide synchronize, less the cover
    tail_ms: float = 0.0  # host: calling solve() .. the device-wide synchronize
    idle: bool = False  # the stream had run everything, solve()'s own work too, when solve() returned

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
        self.blocking = False  # solve() waits for the GPU (a synchronize inside it): no spin can hide its launch
        self.idle_at_cap = 0  # the calls in a row exposed at the cap with the stream idle (BLOCKING_EVIDENCE)
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
        """True when ``call`` holds host time and the guard changed, so its sample is to be dropped.

        Exposed at the 2 ms cap: solve() waits for the GPU (a ``cudaDeviceSynchronize()`` or
        ``torch.cuda.synchronize()`` inside it, as LeetGPU's CUDA starters end) or works longer than any
        guard on the host.  Growing cannot help, and a solve() that waits would wait for the spin too, which
        the host clock then charged to it (2.47 ms for a 0.098 ms transpose on an H200): the guard stops
        spinning (``blocking``; the flush stays) and the host clock's window starts where the guard ends.  Only
        when the calls show it: the stream idle as solve() returned (its own work done, as a solve() that waits
        leaves it) on BLOCKING_EVIDENCE calls in a row; a call exposed by a host stall keeps the 2 ms spin."""
        if self.blocking:
            return False
        waited = call.exposed and self.at_cap and call.idle
        self.idle_at_cap = self.idle_at_cap + 1 if waited else 0
        if not call.exposed:
            return False
        if self.at_cap:
            # Busy: a host stall, or long host work before the launch (the cap's spin still helps).  Idle on
            # fewer than BLOCKING_EVIDENCE calls in a row: as likely a stall; kept and counted as exposed.
            if self.idle_at_cap < BLOCKING_EVIDENCE:
                return False
            self.blocking = True
            self.resize(0.0)
            return True
        self.resize(grown_guard_us(self.us, call.lead_us, call.cover_us))
        return True

    def prepare(self, repoison: "Repoison") -> Prepared:
        """The kernel's table for one call: ``repoison``'s fills, then the flush (untimed: before the synchronize).

        The table holds ``repoison``: the kernel copies from its clones, which must outlive the call.
        """
        return self.cover.prepare(repoison.fills, keep=repoison)

    def __call__(self, prepared: Prepared) -> None:
        self.cover(int(self.us * 1e3), prepared)


def settle_guard(session, args: list, guard: LaunchGuard, stream=None, calls: int = SETTLE_CALLS) -> None:
    """Untimed guarded calls on one set of inputs, growing the guard wherever the launch outlasted it."""
    for _ in range(calls):
        guard.absorb(measured_call(session, args, guard, stream))


def time_gpu(work) -> float:
    """Milliseconds of GPU time of ``work()`` by CUDA events on the current stream."""
    stream = _current_stream()
    begin, end = _Event(enable_timing=True), _Event(enable_timing=True)
    _synchronize()
    _record(begin, stream)
    work()
    _record(end, stream)
    _event_sync(end)
    return _elapsed(begin, end)


def measured_call(session, args: list, guard: LaunchGuard, stream=None) -> Call:
    """One guarded call, timed both ways: synchronize, guard (spin, repoison, flush), start event, solve(),
    end event, all on ``stream`` (the timer's; None: the current one), then a device-wide synchronize and the
    host clock.  The GPU is idle when the guard is launched, so the host clock from there to after the
    synchronize covers guard + solve() + latency; less the guard's event time that is ``host_ms``.  Work
    solve() hides on a stream of its own, in a thread or after it returned shows there even when the events
    miss it; should it overlap the guard, ``tail_ms`` (from calling solve() to the synchronize) still counts
    it.  Every timed call is measured so: no call can tell whether it is audited or verified."""
    stream = stream if stream is not None else _current_stream()
    before, begin, end = (_Event(enable_timing=True) for _ in range(3))
    prepared = guard.prepare(Repoison(session.spec, args, getattr(session, "outputs_kept", ())))  # untimed
    _synchronize()  # an idle GPU starts the guard when it is launched: the cover is measured from there
    start = _clock()
    _record(before, stream)
    guard(prepared)
    _record(begin, stream)
    solve_called = _clock()
    session.solve(*args)
    clear_hooks()  # before any more of the judge's code runs: work a hook queues now is still timed
    lead_us = (_clock() - start) * 1e6
    idle = guard.at_cap and _stream_idle(stream)  # queried at the cap only, where absorb() asks (a C call)
    _record(end, stream)
    after = getattr(session, "after_solve", None)
    if after is not None:  # untimed by the events (after the end event), before the synchronize
        after()
    # The whole device, not just the end event: work solve() left on a stream of its own must be
    # done before the next call's inputs are drawn (the allocator may hand them this call's memory)
    # or its outputs are read.  Without this the verdict of such a solution was a race.
    _synchronize()
    done = _clock()
    cover_ms = _elapsed(before, begin)
    # A solve() that waits for the GPU waits for the guard's flush too: its tail starts where the guard ends.
    tail_from = max(solve_called, start + cover_ms / 1e3) if guard.blocking else solve_called
    call = Call(_elapsed(begin, end), lead_us, cover_ms * 1e3, (done - start) * 1e3 - cover_ms,
                (done - tail_from) * 1e3, idle)
    return call


class Repoison:
    """The arguments of one call as the guard's kernel writes them after its
    spin: the poison for ``out`` tensors, the drawn values for ``in`` and
    ``inout`` ones, which hold poison until then.

    While the kernel spins, no other kernel can start, but a copy engine
    could still read and write; and on a GPU the kernel cannot fill
    (``holds_gpu`` false), work on another stream runs beside it.  Written
    after the spin, the outputs' poison overwrites whatever such work put
    there, and a verified call then fails.  The inputs are hidden meanwhile
    (red team, 2026-11-26): a solve() copied them to the host during the
    spin, computed there, its host time covered by the guard, copied the
    result into a scratch buffer of its own and timed only a copy from it.
    The drawn values are cloned and the inputs poisoned here, before the
    call's synchronize, so that none of it is timed.
    """

    def __init__(self, spec, args: list, kept=()):
        """``spec`` None: nothing to put back (the timer-floor probe of peaks.py).  ``kept``: the out tensors
        that start from values the challenge's generator gave them (a LeetGPU test's torch.zeros): put back
        like inout ones."""
        tensors = [(args[i], "inout" if p.name in kept else p.role)
                   for i, p in (tensor_params(spec) if spec is not None else [])]
        tensors = [(t, role) for t, role in tensors if t.numel()]  # empty: at address 0
        self.drawn = [_clone(t) for t, role in tensors if role != "out"]  # kept alive until the call ran
        for t, role in tensors:
            if role != "out":
                _fill(t, _POISON_VALUE[t.dtype])
        drawn = iter(self.drawn)
        self.fills = [Fill(t.data_ptr(), t.nbytes, pattern=_POISON[t.dtype]) if role == "out"
                      else Fill(t.data_ptr(), t.nbytes, src=next(drawn).data_ptr())
                      for t, role in tensors]


def _poison_pattern(dtype: torch.dtype) -> bytes:
    """8 bytes of poison elements of ``dtype`` (built on the CPU with torch's own casts)."""
    element = torch.tensor([poison_value(dtype)], dtype=dtype)
    return pattern_of(bytes(raw_bytes(element).numpy()))


# Built when the worker imports this, before the solution can patch torch's casts.
# Read-only mappings, built before the solution loads.
_POISON = MappingProxyType({dtype: _poison_pattern(dtype) for dtype in TORCH_DTYPES.values()})
_POISON_VALUE = MappingProxyType({dtype: poison_value(dtype) for dtype in TORCH_DTYPES.values()})
