"""Worker side of ``judge profile``: the solution's calls as the GPU ran them.

The judge places one call's arguments in the memory both processes map (judge/worker/arguments.py) and sends
``{"op": "profile", "calls", "mode", ...}`` to a worker that loaded the solution in its sandbox as for
``judge run``.  The worker makes one call that is not recorded (Triton compiles and autotunes there), then for
each recorded call: the inputs the judge placed put back (a copy made before the first call), the L2 flushed (as
before every timed call of a run), and solve() with

- ``mode: "cupti"``: torch's profiler (kineto over CUPTI's activity records), one session around all the
  calls, each call in a range of its own; the trace, written into the worker's scratch folder, is cut
  down to the GPU's records (kernels, copies, fills) launched by host calls inside each call's range,
  with those launch calls, matched by correlation id (``records``);
- ``mode: "ncu"``: CUDA's profiler range (cudaProfilerStart/Stop) around the call, for an Nsight Compute
  that runs this worker with ``--profile-from-start off`` (judge/worker/tool_wrap.py): it measures the
  kernels launched inside the range and nothing of the judge's.

The judge reads the last call's outputs from its own mapping and checks them against its reference.  Nothing
here decides anything: the records are the solution's process's word, read by the judge as data
(judge/timing/kernel_profile.py).
"""

from __future__ import annotations

import json
import os
import tempfile

import torch

from judge.timer import timed_loop
from judge.timer.flush import flush_buffer

__all__ = ["warm", "profile", "records", "MAX_RECORDS", "MAX_NAME"]

_synchronize = torch.cuda.synchronize
MAX_CALLS = 20
MAX_RECORDS = 4096  # of one call: a solve() that launches more is cut (the report says so)
MAX_NAME = 1000  # characters of a kernel's name (CuTe's template names run to thousands)
GPU_CATEGORIES = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
HOST_CATEGORIES = ("cuda_runtime", "cuda_driver")


def warm() -> None:
    """Load CUPTI and start and stop torch's profiler once, before the sandbox: what it loads and opens
    then is loaded and open when the solution's calls are recorded."""
    try:
        with _profiler():
            torch.zeros(1, device="cuda").add_(1)
            _synchronize()
    except Exception:  # noqa: BLE001 - the recorded calls meet the same failure and report it
        pass


def _profiler():
    from torch.profiler import ProfilerActivity, profile as torch_profile

    return torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])


def profile(session, header: dict) -> None:
    """Serve one ``profile`` request (see the module's docstring); the reply is sent here."""
    mode = header.get("mode", "cupti")
    calls = max(1, min(int(header.get("calls", 3)), MAX_CALLS if mode == "cupti" else 1))
    args = session.args
    inputs = timed_loop.Inputs(session.spec, args, session.outputs_kept)
    session.timed_call(args)  # compiles, autotunes: not recorded
    session.check_call()
    flush = flush_buffer(session.device)
    if mode == "cupti":
        recorded = _cupti_calls(session, args, inputs, calls, flush)
    else:
        _fresh(inputs, flush)
        recorded = [_ncu_call(session, args)]
        session.check_call()
    del flush
    session.reply({"ok": True, "op": "profiled", "mode": mode, "calls": recorded})


def _fresh(inputs, flush) -> None:
    """The judge's inputs back in the slots, then the L2 flushed."""
    inputs.put_back()
    flush.zero_()
    _synchronize()


def _ncu_call(session, args: list) -> dict:
    """One call inside CUDA's profiler range: Nsight Compute, which started this worker, measures it."""
    profiler = torch.cuda.profiler
    profiler.start()
    try:
        host_ms = _solve(session, args)
    finally:
        profiler.stop()
    return {"host_ms": host_ms, "records": []}


MARK = "judge.profile.call."  # the name of each recorded call's range in the trace


def _cupti_calls(session, args: list, inputs, calls: int, flush) -> list[dict]:
    """``calls`` calls in one session of torch's profiler, each in a range of its own (record_function), after
    one call in the session that is not kept (the session's own first-call costs: a launch took 0.4 ms);
    the records of each range."""
    from torch.profiler import record_function

    hosts = []
    with _profiler() as prof:
        for index in range(calls + 1):
            _fresh(inputs, flush)
            with record_function(f"{MARK}{index}"):
                hosts.append(_solve(session, args))
            session.check_call()
    with tempfile.TemporaryDirectory(prefix="judge-trace-") as folder:  # in the worker's scratch ($TMPDIR)
        path = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8", errors="replace") as trace:
            events = json.load(trace).get("traceEvents", [])
    ranges = {e.get("name"): e for e in events if isinstance(e, dict) and e.get("cat") == "user_annotation"}
    recorded = []
    for index in range(1, calls + 1):
        found, cut = records(events, _window(ranges.get(f"{MARK}{index}")))
        recorded.append({"host_ms": hosts[index], "records": found, **({"cut": cut} if cut else {})})
    return recorded


def _window(event) -> tuple[float, float] | None:
    if not isinstance(event, dict) or _number(event.get("ts")) is None or _number(event.get("dur")) is None:
        return None
    return event["ts"], event["ts"] + event["dur"]


def _solve(session, args: list) -> float:
    """solve() as a timed call makes it: the hooks it left cleared, a KernelBench forward's results placed, then
    the synchronize; the host's milliseconds from the call to its return."""
    start = session.clock()
    session.solve(*args)
    timed_loop.clear_hooks()
    host_ms = (session.clock() - start) * 1e3
    session.after_solve()
    _synchronize()
    return host_ms


def records(events: list, window: tuple[float, float] | None = None) -> tuple[list[dict], int]:
    """The GPU's records of a chrome trace (kernels, copies, fills) launched by host calls made inside
    ``window`` (start, end in the trace's microseconds; None: all), matched by correlation id, with those
    calls; each as a small dict; and how many were left out past MAX_RECORDS."""
    host = [e for e in events if isinstance(e, dict) and e.get("cat") in HOST_CATEGORIES
            and _arg(e, "correlation") is not None and _inside(e, window)]
    launched = {_arg(e, "correlation") for e in host}
    gpu = [e for e in events if isinstance(e, dict) and e.get("cat") in GPU_CATEGORIES
           and (window is None or _arg(e, "correlation") in launched)]
    made = {_arg(e, "correlation") for e in gpu}
    host = [e for e in host if _arg(e, "correlation") in made]  # the calls that launched something
    found = [_record(e, GPU_CATEGORIES[e["cat"]]) for e in gpu] + [_record(e, "launch") for e in host]
    found.sort(key=lambda r: r["ts"])
    return found[:MAX_RECORDS], max(0, len(found) - MAX_RECORDS)


def _inside(event: dict, window: tuple[float, float] | None) -> bool:
    if window is None:
        return True
    ts = _number(event.get("ts"))
    return ts is not None and window[0] <= ts <= window[1]


def _arg(event: dict, name: str):
    args = event.get("args")
    return args.get(name) if isinstance(args, dict) else None


def _record(event: dict, kind: str) -> dict:
    """What the report reads of one trace event (times in microseconds, as the trace has them)."""
    out = {"kind": kind, "name": str(event.get("name", ""))[:MAX_NAME], "ts": _number(event.get("ts")),
           "dur": _number(event.get("dur")), "correlation": _arg(event, "correlation")}
    if kind == "kernel":
        out.update(grid=_arg(event, "grid"), block=_arg(event, "block"),
                   registers=_arg(event, "registers per thread"), shared_memory=_arg(event, "shared memory"),
                   stream=_arg(event, "stream"))
    elif kind in ("memcpy", "memset"):
        out.update(bytes=_arg(event, "bytes"), stream=_arg(event, "stream"))
    return out


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
