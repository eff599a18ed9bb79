# Reproduces: docs/timing.md §2 "Every timed call" (the guard kernel's table: side-stream starts during the guard, its
# flush time).
"""Does the launch guard's kernel (judge/timer/cover.py) hold the whole GPU?  (GPU only.)

Prints, for the device it runs on: the kernel's registers and spills, how far
apart its programs start (all at once when it fits the GPU exactly), its
flush time against ``flush.zero_()``, how long a spin of 500 µs takes, the
host time of preparing and launching it, and when work launched on another
stream during the spin starts (a Triton kernel on a normal and a
high-priority stream, and a ``copy_``, which may run on a copy engine), with
the old guard (``torch.cuda._sleep`` on one SM) beside it: after the guard's
first program started, and after the guard ended (negative: before its end).

    python3 scripts/cover_probe.py
"""

from __future__ import annotations

import statistics
import time

import torch
import triton
import triton.language as tl

from judge.timer.cover import MAX_REGISTERS, THREADS, Cover, _now
from judge.timer.flush import flush_buffer


@triton.jit
def _stamp(out):
    tl.store(out, _now())


def gpu_ms(work, repeat=5):
    times = []
    for _ in range(repeat):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        begin.record()
        work()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end))
    return min(times), statistics.median(times)


def side_start_us(cover, guard, side_work, spin_us=1000):
    """When side_work (launched on its stream right after the guard) starts: µs after the guard's first
    program started, and µs after the guard ended (a stamp on the current stream right behind it)."""
    stamp, behind = (torch.zeros(1, dtype=torch.int64, device="cuda") for _ in range(2))
    table = cover.prepare([])
    torch.cuda.synchronize()
    guard(spin_us, table)
    _stamp[(1,)](behind)
    side_work(stamp)
    torch.cuda.synchronize()
    return (stamp.item() - min(cover.starts.tolist())) / 1e3, (stamp.item() - behind.item()) / 1e3


def main():
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}: {props.multi_processor_count} SMs, "
          f"{getattr(props, 'max_threads_per_multi_processor', '?')} threads/SM, torch {torch.__version__}, "
          f"triton {triton.__version__}")
    flush = flush_buffer("cuda")
    started = time.perf_counter()
    cover = Cover(flush)  # compiles and launches once
    torch.cuda.synchronize()
    print(f"Cover() (compile, first launch) {time.perf_counter() - started:.2f} s; programs {cover.programs} "
          f"({cover.programs_per_sm}/SM of {THREADS} threads); registers {cover.registers} (cap {MAX_REGISTERS}); "
          f"fills every SM: {cover.fills_sm}")
    for spin in (200, 1000):
        cover(spin * 1000, cover.prepare([]))
        torch.cuda.synchronize()
        print(f"residency, spin {spin} µs: programs started within {cover.residency_spread_us():.2f} µs")
    for _ in range(2):  # the same behind 100 µs of other work: is the spread dispatch, or waking an idle GPU?
        prepared = cover.prepare([])
        torch.cuda._sleep(200_000)
        cover(200_000, prepared)
        torch.cuda.synchronize()
        print(f"residency behind a sleep, spin 200 µs: programs started within {cover.residency_spread_us():.2f} µs")
    tables = [cover.prepare([]) for _ in range(10)]
    print("flush by the kernel: min %.1f median %.1f µs" % tuple(1e3 * x for x in gpu_ms(lambda: cover(0, tables.pop()))))
    print("flush.zero_():       min %.1f median %.1f µs" % tuple(1e3 * x for x in gpu_ms(flush.zero_)))
    print("spin 500 µs + flush: min %.1f median %.1f µs" % tuple(
        1e3 * x for x in gpu_ms(lambda: cover(500_000, tables.pop()))))
    out = torch.empty(8192 * 8192, device="cuda")
    host = []
    for _ in range(50):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        p = cover.prepare([])
        t1 = time.perf_counter()
        cover(0, p)
        t2 = time.perf_counter()
        host.append((t1 - t0, t2 - t1))
    print("host µs: prepare %.1f, launch %.1f (medians)" % (1e6 * statistics.median(h[0] for h in host),
                                                            1e6 * statistics.median(h[1] for h in host)))
    probe_side_work(cover, out)


def probe_side_work(cover, out):
    source = torch.randn_like(out)
    new_guard = lambda us, t: cover(us * 1000, t)  # noqa: E731
    old_guard = lambda us, t: (torch.cuda._sleep(int(us * 1980)), cover(0, t))  # noqa: E731  (~1.98 GHz)
    for priority in (0, -1):
        side = torch.cuda.Stream(priority=priority)

        def kernel_on_side(stamp, side=side):
            with torch.cuda.stream(side):
                _stamp[(1,)](stamp)

        def copy_on_side(stamp, side=side):
            with torch.cuda.stream(side):
                out.copy_(source)
                _stamp[(1,)](stamp)

        for name, guard in (("cover", new_guard), ("old sleep", old_guard)):
            k = [side_start_us(cover, guard, kernel_on_side) for _ in range(3)]
            c = [side_start_us(cover, guard, copy_on_side) for _ in range(3)]
            print(f"{name} guard 1000 µs, side priority {priority}: side kernel starts "
                  f"{', '.join(f'{a:.0f} ({b:+.1f})' for a, b in k)} µs after the guard's start (after its end); "
                  f"stamp after a 256 MiB copy_: {', '.join(f'{a:.0f} ({b:+.1f})' for a, b in c)} µs")


if __name__ == "__main__":
    main()
