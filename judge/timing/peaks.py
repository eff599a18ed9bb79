"""The device's measured ceilings, the "speed of light" for % of peak.

Measured once per device and cached in ``<cache dir>/peaks.json`` keyed by GPU
name, driver and torch version (``--remeasure-peaks`` measures again):

- ``copy_gbps``: device-to-device copy of a 1 GiB buffer, bytes read plus
  written over the median time of 20 copies;
- ``fp32_tflops`` / ``tf32_tflops`` / ``bf16_tflops``: an 8192^3 torch.matmul
  in fp32 with TF32 off / on, and in bf16 (cuBLAS), median of 10; the fastest is
  the dense rate no kernel beats (speed.physical_floor_ms);
- ``timer_floor_us``: a one-element kernel timed exactly as a solution's call
  is (synchronize, launch guard, L2 flush, event, kernel, event; samples that
  hold host time dropped), median of 200.  What a launch-bound case reads when
  the kernel does nothing, where CUPTI puts such a kernel's own duration well
  under 1 us;
- ``host_overhead_us``: in those same calls, how much longer the host clock
  across the device-wide synchronize, less the guard's own GPU time
  (``Call.host_ms``), reads than the events, [median, 99th percentile]: the
  latency an honest call shows, which the audit allows for where the guard
  holds the GPU (audit.disagrees);
- ``seen_overhead_us``: the same for the most the host clock saw of a call
  (``Audit.seen_ms``: from calling solve() to the synchronize, which also
  holds what was left of the guard), for a GPU whose SMs the guard cannot
  hold.  The two were one number, the larger: its ~0.1-0.2 ms of guard let
  0.3 ms of work hidden on a side stream pass every call (2026-11-26).

A cache entry written by an older method (``PEAKS_METHOD``) is measured again.

The torch baseline of each benchmark case is cached the same way, in
``baselines.json``: it is the same for every solution of a challenge, and
timing it again cost ~5 s of a 13 s ``judge run`` on an H200.

Runs in the judge's own process, never in a worker.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

from judge.base.paths import cache_dir


__all__ = ["peak_key", "cached_peaks", "get_peaks", "measure_peaks", "baseline_key", "cached_baseline",
           "store_baseline", "read_cache", "write_cache", "cache_lock", "lock_is_free"]


def peak_key(environment: dict) -> str:
    return f"{environment.get('gpu')}|driver {environment.get('driver')}|torch {environment.get('torch')}"


def _median_ms(fn, reps: int, warmup: int = 3) -> float:
    from judge.timer.timed_loop import time_gpu

    for _ in range(warmup):
        fn()
    times = sorted(time_gpu(fn) for _ in range(reps))
    return times[len(times) // 2]


def measure_peaks(device: str) -> dict:
    """Measure the copy bandwidth and the fp32/tf32 matmul rates on ``device``."""
    import torch

    with torch.cuda.device(torch.device(device)):
        nbytes = 1024**3
        src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
        dst = torch.empty_like(src)
        copy_ms = _median_ms(lambda: dst.copy_(src), reps=20)
        n = 8192
        a = torch.rand(n, n, device=device) - 0.5
        b = torch.rand(n, n, device=device) - 0.5
        previous = torch.backends.cuda.matmul.allow_tf32
        try:
            torch.backends.cuda.matmul.allow_tf32 = False
            fp32_ms = _median_ms(lambda: torch.matmul(a, b), reps=10)
            torch.backends.cuda.matmul.allow_tf32 = True
            tf32_ms = _median_ms(lambda: torch.matmul(a, b), reps=10)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = previous
        a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
        bf16_ms = _median_ms(lambda: torch.matmul(a16, b16), reps=10)
        src = dst = a = b = a16 = b16 = None  # noqa: F841 - free them before the timer floor
        torch.cuda.empty_cache()
        floor_us, overhead_us, seen_us = timer_floor_us(device, with_overhead=True)
    flops = 2.0 * n**3
    return {"copy_gbps": 2 * nbytes / (copy_ms * 1e-3) / 1e9,
            "fp32_tflops": flops / (fp32_ms * 1e-3) / 1e12,
            "tf32_tflops": flops / (tf32_ms * 1e-3) / 1e12,
            "bf16_tflops": flops / (bf16_ms * 1e-3) / 1e12,
            "timer_floor_us": floor_us, "host_overhead_us": overhead_us, "seen_overhead_us": seen_us}


def timer_floor_us(device: str, calls: int = 200, with_overhead: bool = False):
    """The event time of a one-element kernel timed by timed_loop.measured_call itself, guard included
    (median, µs); with ``with_overhead`` also the host clock's excess over the events in those calls,
    measured as the audit compares them ([median, 99th percentile], µs): ``host_ms`` and ``seen_ms``."""
    import torch

    from judge.timer.timed_loop import LaunchGuard, measured_call, settle_guard
    from judge.timer.cover import Cover
    from judge.timer.flush import flush_buffer

    tiny = torch.zeros(1, device=device)
    empty_solution = SimpleNamespace(solve=lambda: tiny.add_(1.0), clock=time.perf_counter,
                                     spec=None)  # no spec: no outputs to poison again
    guard = LaunchGuard.measure(Cover(flush_buffer(device)), [])
    settle_guard(empty_solution, [], guard)
    times, host, seen = [], [], []
    while len(times) < calls:
        call = measured_call(empty_solution, [], guard)
        if not guard.absorb(call):  # as in a benchmark: a sample that holds host time is dropped
            times.append(call.event_ms)
            host.append(max(0.0, call.host_ms - call.event_ms))
            seen.append(max(0.0, max(call.host_ms, call.tail_ms) - call.event_ms))
    floor = sorted(times)[len(times) // 2] * 1e3
    if not with_overhead:
        return floor
    return floor, _median_p99_us(host), _median_p99_us(seen)


def _median_p99_us(values_ms: list[float]) -> list[float]:
    ordered = sorted(values_ms)
    return [ordered[len(ordered) // 2] * 1e3, ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3]


# 2: the timer floor drops samples that hold host time (before, a run could read 2-3x high)
# 3: the timer floor is measured after the guard kernel that holds every SM (cover.py)
# 4: the bf16 matmul rate (the physical floor's fastest dense rate) and the host clock's latency
# 5: that latency as the audit compares it, host_ms and seen_ms apart (4 took the larger: too lax)
PEAKS_METHOD = 5

# judge grade --gpus runs judges in threads: one measurement and one cache
# writer at a time (measure_peaks flips the process-wide TF32 switch).
_LOCK = threading.RLock()


@contextmanager
def cache_lock(name: str) -> Iterator[None]:
    """Hold ``<cache dir>/<name>.lock`` exclusively (``flock``), against every process
    of this host that shares the cache: the Dask workers of a ``--cluster`` grade
    measure and write at the same moments, and a cache rewritten by two processes
    at once loses one's entries.  Where the lock cannot be had (no ``fcntl``, a
    read-only cache) this waits for nothing: at worst a measurement is repeated."""
    try:
        import fcntl

        path = cache_dir() / f"{name}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a")  # noqa: SIM115 - closed below, which releases the lock
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            pass  # a filesystem without locks: as without fcntl
        yield
    finally:
        handle.close()


def lock_is_free(name: str) -> bool:
    """Whether ``cache_lock(name)`` would be had at once now (a hint for a waiting message; not a promise)."""
    try:
        import fcntl

        with open(cache_dir() / f"{name}.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True  # released when closed
    except (ImportError, OSError):
        return False


def read_cache(path: Path) -> dict:
    """A JSON cache file's contents; {} when it is missing or unreadable."""
    try:
        return json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        return {}


def write_cache(path: Path, data: dict) -> None:
    """Replace a JSON cache file atomically; an unwritable cache is silently skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(data, indent=2))
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs a re-measurement next time


def baseline_key(environment: dict, spec, params: dict, budget_s: float) -> str:
    """Device, versions, the timing method, the baseline's code and signature, the sizes and the budget."""
    import hashlib

    # "exact": the baseline has computed in exact fp32 since issue 39 (benchmark_stage.baseline_file); times
    # cached before, a cuDNN convolution's in TF32 among them, are not reused.
    what = repr((PEAKS_METHOD, "exact", spec.baseline_code, spec.parameters, sorted(params.items()), budget_s))
    return f"{peak_key(environment)}|{spec.name}|{hashlib.sha256(what.encode()).hexdigest()[:16]}"


def cached_baseline(key: str) -> dict | None:
    return read_cache(cache_dir() / "baselines.json").get(key)


def store_baseline(key: str, summary: dict) -> None:
    path = cache_dir() / "baselines.json"
    with _LOCK, cache_lock("baselines"):
        data = read_cache(path)
        data[key] = summary
        write_cache(path, data)


def cached_peaks(environment: dict) -> dict | None:
    """This device's peaks if the cache holds them (measured by the current method), else None."""
    entry = read_cache(cache_dir() / "peaks.json").get(peak_key(environment))
    return dict(entry, cached=True) if entry and entry.get("method") == PEAKS_METHOD else None


def get_peaks(device: str, environment: dict, remeasure: bool = False) -> dict:
    """Cached peaks for this device, measuring them when missing or asked to.  Another
    process measuring them (a GPU of the same model: the same key) is waited for, and
    its peaks are used: measuring again would take as long, and give other numbers."""
    path = cache_dir() / "peaks.json"
    with _LOCK, cache_lock("peaks"):
        found = None if remeasure else cached_peaks(environment)
        if found is not None:
            return found
        peaks = dict(measure_peaks(device), method=PEAKS_METHOD)
        cached = read_cache(path)
        cached[peak_key(environment)] = peaks
        write_cache(path, cached)
    return dict(peaks, cached=False)
