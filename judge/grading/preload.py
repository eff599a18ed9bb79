"""A Dask worker preload for ``judge grade --cluster``: the worker pays, before it
joins the scheduler, what its first grade task would otherwise pay on the clock.

    dask worker tcp://sched:8786 --nthreads 1 --resources GPU=1 --preload judge.grading.preload

(``--cluster local`` and ``judge worker`` preload it themselves: ``cluster.PRELOAD``.)

``dask_setup`` first keeps Python's bytecode where the judge keeps it
(judge/base/bytecode.py): a Dask worker is not started by the ``judge`` command,
which does that for itself and its workers, and where Python may not write
bytecode (``PYTHONDONTWRITEBYTECODE=1``, as in the GPU image we measure on), the
worker and every judge worker process it started compiled torch's thousand
modules again (on two H100s each submission's worker started 2.0 s later than
in the thread pool: issue 28).  Then it imports torch and the
judge's judging modules (seconds, which the
grade's check of the worker or its first task paid before) and, on a worker that
offers ``GPU=1``, does once on tiny tensors what a first judgement does in this
process: the CUDA context, cuBLAS, seeded generation, the kernels of the checks.
The judging of a submission does not change, only when these costs are paid.  A
local grade's own process holds the same context; the processes that the judge
starts for submissions are new programs (subprocess), not forks of this one, so
a context here is no trouble for them.

``dask_teardown`` marks a graceful close; the worker process (a nanny's) then
ends right after its exit handlers, without the interpreter's teardown, which
takes a second or more with torch and a CUDA context, and which the end of a
``--cluster local`` grade waits for.

Importing this module costs nothing: ``dask worker --preload`` imports it in the
nanny's process as well, where no torch belongs.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import time

__all__ = ["dask_setup", "dask_teardown", "warm", "warm_cuda"]

# Under "distributed", whose handler a `dask worker` sets up: the line lands in the worker's log.
log = logging.getLogger("distributed.judge")
_state = {"closing": False}


def dask_setup(worker) -> None:
    """Warm the worker up (before it registers with the scheduler); never fails its start."""
    from judge.base.bytecode import keep_bytecode
    from judge.grading.cluster import GPU_RESOURCE  # here, not above: the nanny imports this module too

    gpu = worker.state.total_resources.get(GPU_RESOURCE, 0) >= 1
    try:
        keep_bytecode()  # before torch is imported; the judge worker processes started here inherit it
    except Exception as exc:  # noqa: BLE001 - no cache folder to name (no $HOME): Python's own setting stays
        log.warning("judge preload: cannot keep bytecode (%s: %s)", type(exc).__name__, exc)
    try:
        seconds = warm(gpu)
    except Exception as exc:  # noqa: BLE001 - a cold worker still grades: its first task pays, and checks
        log.warning("judge preload: warming up failed (%s: %s); the first task pays for it instead",
                    type(exc).__name__, exc)
        seconds = {}
    worker.judge_warm_up_s = seconds  # for a look from a client: client.run(lambda dask_worker: ...)
    log.info("judge preload: %s", ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items()) or "nothing warmed")
    _exit_quickly_after_close()


def dask_teardown(worker) -> None:
    """The worker is closing gracefully (Worker.close runs this first)."""
    _state["closing"] = True


def warm(gpu: bool) -> dict[str, float]:
    """Import what a grade task needs; with ``gpu``, and a CUDA device here, warm CUDA up
    on ``cuda:0`` (the worker's pinned GPU).  Seconds of each step."""
    started = time.perf_counter()
    import torch

    import judge.grading.cluster  # noqa: F401 - the task's own module, and pool, records, submissions
    import judge.judging.dispatch  # noqa: F401 - the runners, the reference, the checks, the worker client

    if gpu:
        import judge.judging.benchmark_stage  # noqa: F401 - timing, peaks, statistics (GPU only)
    seconds = {"imports": time.perf_counter() - started}
    if gpu and torch.cuda.is_available():
        started = time.perf_counter()
        warm_cuda("cuda:0")
        seconds["cuda"] = time.perf_counter() - started
    return seconds


def warm_cuda(device: str) -> None:
    """What the judge's process does first on a GPU, once, on 32x32 tensors: the
    device's properties, the context, seeded generation, a float32 and a float64
    (the built-in references' precision) cuBLAS product, a reply's bytes back to the
    device, and a comparison that fails (the failure report's kernels too); then the
    cached memory is given back (the context stays)."""
    import torch

    from judge.challenge.spec import Tolerance
    from judge.challenge.tensors import from_bytes, to_bytes
    from judge.judging.checks import compare_output
    from judge.judging.runner import environment

    environment(device)
    generator = torch.Generator(device=device)
    generator.manual_seed(0)
    a = torch.randn(32, 32, generator=generator, device=device)
    b = torch.rand(32, 32, generator=generator, device=device)
    expected, scale = a.double() @ b.double(), a.double().abs() @ b.double().abs()
    got = from_bytes(to_bytes(a @ b), "float32", (32, 32)).to(device)
    got[0, 0] += 1.0
    mismatch = compare_output("warm-up", got, expected, Tolerance("summation", rtol=1e-5), scale)
    if mismatch.ok:  # the checks themselves are wrong on this device: say so now
        raise RuntimeError("a wrong value passed the judge's check while warming up")
    torch.cuda.synchronize(device)
    del a, b, expected, scale, got
    torch.cuda.empty_cache()


def _exit_quickly_after_close() -> None:
    """In a nanny's worker process (a multiprocessing child), end the process after a
    graceful close as ``judge`` itself ends (judge/cli/__init__.py: exit handlers, flush,
    ``os._exit``), from multiprocessing's last finalizer: after the worker closed and the
    queues to the nanny were flushed.  Anything else (a crash, no nanny) ends as usual."""
    import multiprocessing
    from multiprocessing import util

    if multiprocessing.parent_process() is None:
        return
    util.Finalize(None, _quick_exit, exitpriority=-100)  # the lowest: after the queues' own finalizers


def _quick_exit() -> None:
    if not _state["closing"]:
        return
    atexit._run_exitfuncs()  # logging's flush included; multiprocessing's own handler sees it already ran
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)
