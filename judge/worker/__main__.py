"""The solution's process (the worker).

Spawned (never forked) by the judge for one solution, or forked by the judge server; either way it
starts in namespaces of its own (judge/defence/namespaces.py).  It imports the
solution, then answers requests: ``call`` runs solve() once on the arguments the judge placed in the memory
both processes map (judge/worker/arguments.py: ``ARGUMENTS_FD`` in CPU mode, a CUDA IPC handle in the request
on a GPU); ``bench`` times repeated calls (judge/timer/timed_loop.py).  The judge freezes this process between
requests and reads every result from that memory itself.  The solution's prints go to this process's
stdout/stderr, which the judge captures to a file: they never reach the protocol pipes.  The verdict is not
decided here.

    python -m judge.worker REQUEST_FD RESPONSE_FD [ARGUMENTS_FD]
"""

from __future__ import annotations

import os
import sys
import time

# Bound before the solution is imported, so a solution that patches these
# names later cannot change what this module measures with.
_perf_counter = time.perf_counter
_monotonic = time.monotonic

# The device the judge spawned this worker for (judge/worker/client.py), named
# before the init message so that the CUDA context can be made in advance.
WARM_DEVICE_ENV = "JUDGE_WORKER_WARM_DEVICE"


def main(argv: list[str]) -> int:
    request_fd, response_fd = int(argv[0]), int(argv[1])
    try:  # binds torch's timing functions (session, timed_loop) before the solution loads
        from judge.worker import protocol, session
    except ImportError as exc:  # torch, triton or numpy missing or broken: the judge's installation, not the solution
        _environment_failure(exc)

    arguments_fd = int(argv[2]) if len(argv) > 2 else None
    session.warm_up(os.environ.get(WARM_DEVICE_ENV, ""))  # while the judge is still busy
    header, _ = protocol.receive(request_fd)
    worker = session.Session(header, response_fd, _perf_counter, request_fd, arguments_fd)
    if not worker.start():
        return 0
    while True:
        try:
            header, _ = protocol.receive(request_fd)
        except protocol.ProtocolError:
            return 0  # the judge went away
        if header.get("op") == "exit":
            return 0
        if not worker.handle(header):
            return 3  # the device is unusable after a fault: the judge starts a new worker


def _environment_failure(exc: ImportError) -> None:
    """Say which module of the judge's own could not be imported, and end with the status the judge reads
    as that (judge/base/environment.py); the judge checks the claim before it believes it."""
    from judge.base.environment import ENVIRONMENT_MARK, ENVIRONMENT_STATUS, first_unimportable

    module = first_unimportable() or (getattr(exc, "name", None) or "?").split(".")[0]
    print(f"{ENVIRONMENT_MARK} {module}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    os._exit(ENVIRONMENT_STATUS)


def die_with_the_judge() -> None:
    """Linux: the kernel kills this worker when the judge that spawned it dies (kill -9,
    the out-of-memory killer, a Dask worker of ``judge grade --cluster`` that the
    submission or a lost host took down, and that Dask replaces): nothing else would
    stop a solution that never returns, which held its CPU or GPU forever.  Armed here,
    before the solution loads; a judge that died before this leaves the pipes closed,
    and the first ``receive`` ends the worker.  Not for a worker the judge server forked:
    the server, its parent, manages it (judge/daemon/daemon.py).  Linux sends the signal when
    the *thread* that spawned the worker ends: so a worker is spawned by the thread that uses
    it (the main thread, a grade slot's thread, a Dask task's thread), never handed on."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


if __name__ == "__main__":
    die_with_the_judge()
    sys.stdout.flush()
    from judge.defence import namespaces

    namespaces.enter()  # the worker goes on in namespaces of its own; this process waits outside as it ends
    from judge.base.profiling import profiled  # a cProfile only with JUDGE_PROFILE_DIR (scripts/profile_run.sh)

    code = profiled("worker", main, sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
