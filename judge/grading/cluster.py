"""Grading on a Dask cluster (``judge grade --cluster``): each entry is one Dask
task that needs one GPU (worker resource ``GPU=1``), judged inside the Dask
worker by ``pool.judge_entry``, the same code path as a local grade; records
stream back to the driver, which writes the outputs after each one.

Needs the ``cluster`` extra (``dask``, ``distributed``); this module imports
them lazily, so importing it without them only fails when a cluster is used.

What crosses the wire, and where the secret seed goes: a task's key is
``judge-grade-<index>-<run id>`` (derived from nothing secret: Dask would
otherwise hash the arguments, the secret among them, into the key) and its
arguments are a ``Job`` and the ``GradeSettings``, whose repr hides the secret,
so the ``repr(task)`` that Dask logs on a failure does not show it.  The bytes
themselves travel to the scheduler and the workers in pickles: use TLS
(``tls://``) or a trusted network when grading with a secret (docs/grading.md).
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from judge import __version__
from judge.grading.pool import Cancelled, judge_entry, make_undumpable
from judge.grading.records import GradeSettings, problem_record
from judge.grading.submissions import Entry
from judge.judging.verdict import Verdict

__all__ = ["GPU_RESOURCE", "PRELOAD", "LOCAL", "ClusterError", "Job", "make_jobs", "task_key", "worker_specs",
           "grade_task", "plain", "ClusterCancel", "worker_died_record", "internal_record", "connect",
           "unusable_address", "ready_line", "WorkerChanges", "grade_on_cluster", "serve_workers"]

GPU_RESOURCE = "GPU"  # the Dask worker resource a GPU task needs one of: dask worker --resources GPU=1
PRELOAD = "judge.grading.preload"  # the workers' warm-up (preload.py): Dask takes a preload by module name
LOCAL = "local"  # --cluster local: a cluster started here
CANCEL_POLL_S = 1.0  # how often a running task asks the scheduler whether the grade was interrupted
ALLOWED_FAILURES = 1  # a task whose worker dies is tried once more, then recorded as such
POLL_S = 1.0  # how often the driver looks for workers that joined, when no task finishes
CONNECT_S = 30.0  # to reach a scheduler
LOCAL_START_S = 120.0  # for a local cluster's workers to start


class ClusterError(RuntimeError):
    """The cluster cannot grade: unreachable, or its workers are not fit (a usage error)."""


@dataclass(frozen=True)
class Job:
    """What one task carries: the entry, its spec, its resume key, and what the
    worker checks before judging (the solution's bytes and the judge's version)."""

    index: int
    entry: Entry
    spec: object  # None for a LeetGPU folder: the worker loads it from ``folder``
    key: str | None
    path: str  # the solution file, absolute: a worker's working folder is not the driver's
    digest: str  # sha256 of its bytes as the driver read them
    judge_version: str = __version__
    folder: str | None = None  # a LeetGPU challenge folder, absolute, read on the worker like the solution

    def load_spec(self):
        """The spec to judge with: the one sent, or the LeetGPU folder loaded here.  A folder's
        class comes from the user's challenge.py under a module name that no other process can
        import, so it cannot travel pickled; the worker reads the folder (a shared filesystem)."""
        if self.folder is None:
            return self.spec
        from judge.challenge.catalog import load_challenge

        return load_challenge(self.folder)


def make_jobs(todo: list[int], entries: list[Entry], specs: dict, keys: list) -> list[Job]:
    return [_job(i, entries[i], specs.get(entries[i].spec_path), keys[i]) for i in todo]


def _job(index: int, entry: Entry, spec, key: str | None) -> Job:
    folder = str(Path(entry.spec_path).resolve()) if getattr(spec, "shipped", False) else None
    digest = entry.snapshot.sha256 if entry.snapshot is not None else \
        hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
    return Job(index, entry, None if folder else spec, key, str(Path(entry.path).resolve()), digest, folder=folder)


def task_key(index: int, run_id: str) -> str:
    """The Dask key of an entry's task: its position and the run, nothing from the settings."""
    return f"judge-grade-{index}-{run_id}"


def worker_specs(gpus: list[int] | None, jobs: int, host: str | None = "127.0.0.1", prefix: str = "",
                 silence_logs: int | None = 30) -> dict[str, dict]:
    """Worker name -> Nanny options: one single-threaded worker per GPU, pinned to it
    with CUDA_VISIBLE_DEVICES and offering ``GPU=1``, or (CPU mode, ``gpus`` None)
    ``jobs`` single-threaded workers, each warmed up before it joins (PRELOAD).
    The defaults are ``--cluster local``'s: on the loopback, logging warnings only
    (30: the workers' start/stop lines would drown the grade's); ``judge worker``
    listens on the host's address and logs more."""
    common = {"nthreads": 1, "host": host, "silence_logs": silence_logs, "preload": [PRELOAD],
              "memory_limit": 0}  # the judge bounds the memory of each submission's process itself
    if gpus is None:
        return {f"{prefix}cpu{i}": {**common, "name": f"{prefix}cpu{i}"} for i in range(jobs)}
    return {f"{prefix}gpu{i}": {**common, "name": f"{prefix}gpu{i}", "resources": {GPU_RESOURCE: 1},
                                "env": {"CUDA_VISIBLE_DEVICES": _device_id(i)}} for i in gpus}


def _device_id(index: int) -> str:
    """What pins a worker to this process's CUDA device ``index``: under CUDA_VISIBLE_DEVICES
    (a batch job's GPUs, say 2,3) its entry there (index 0 is GPU 2), else the index itself."""
    visible = _visible_devices()
    return visible[index] if index < len(visible) else str(index)


def _visible_devices() -> list[str]:
    """The entries of CUDA_VISIBLE_DEVICES (indices, UUIDs or MIG ids), or none where it is unset."""
    return [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]


def serve_workers(address: str, specs: dict[str, dict]) -> None:
    """``judge worker``: run one Nanny (a worker process it restarts if it dies) per
    spec for the scheduler at ``address``, until SIGINT or SIGTERM, then close them."""
    import asyncio
    import signal

    from distributed import Nanny

    async def run() -> None:
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, stop.set)
        nannies = []
        try:
            nannies.extend(Nanny(address, **options) for options in specs.values())
            await asyncio.gather(*nannies)
        except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: "Nanny failed to start", from its cause
            await asyncio.gather(*(nanny.close(timeout=10, reason="judge worker failed to start")
                                   for nanny in nannies), return_exceptions=True)
            raise ClusterError(unusable_address(address, exc)) from None
        ended = asyncio.ensure_future(asyncio.gather(*(nanny.finished() for nanny in nannies)))
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait([ended, stopped], return_when=asyncio.FIRST_COMPLETED)
        await asyncio.gather(*(nanny.close(timeout=10, reason="judge worker stopped") for nanny in nannies))
        for task in (ended, stopped):
            task.cancel()

    asyncio.run(run())


# -- inside the Dask worker --------------------------------------------------------------

class ClusterCancel:
    """``is_set()`` of the grade's ``distributed.Event``, asked at most every
    CANCEL_POLL_S (the runner asks at every case and status line)."""

    def __init__(self, name: str):
        self.name, self.asked, self.value = name, float("-inf"), False

    def is_set(self) -> bool:
        if not self.value and time.monotonic() - self.asked >= CANCEL_POLL_S:
            self.asked = time.monotonic()
            from distributed import Event

            try:
                self.value = Event(self.name).is_set()
            except Exception:  # noqa: BLE001 - the scheduler is unreachable: judging goes on, the driver decides
                pass
        return self.value


def grade_task(job: Job, settings: GradeSettings, cancel_name: str) -> dict | None:
    """The Dask task: judge one entry here; None when the grade was interrupted first."""
    cancel = ClusterCancel(cancel_name)
    if cancel.is_set():
        return None
    from judge.base.bytecode import keep_bytecode

    keep_bytecode()  # on a worker started without the preload too: its judge workers find torch's bytecode
    if settings.secret:  # as the grading process: a submission running as this user cannot read it from /proc
        make_undumpable()
    problem = _worker_problem(job, settings)
    if problem:
        return internal_record(job.entry, settings, problem)
    try:
        spec = job.load_spec()
    except Exception as exc:  # noqa: BLE001 - SpecError, LeetGpuError: the folder is not there or not the same
        return internal_record(job.entry, settings, f"this worker could not load the challenge folder "
                                                    f"{job.folder} (it must be at the same path as on the "
                                                    f"grading host): {exc}")
    try:
        record = judge_entry(replace(job.entry, path=job.path), spec, job.key, settings,
                             None if settings.interpret else "cuda:0", cancel)
    except Cancelled:
        return None
    record.update(file=job.entry.path, solution=job.entry.path, worker=_worker_name(),
                  gpu=None if settings.interpret else _pinned_gpu())
    return plain(record)


def plain(value):
    """``value`` (a record) with builtin types only.  A record holds ``torch.__version__``,
    a str subclass (``TorchVersion``): unpickled as such, the first result imported torch
    in the grading process, which needs none with a scheduler's address (seconds, while
    the GPU that finished that task waited for its next one)."""
    if type(value) in (str, int, float, bool, type(None)):
        return value
    if type(value) is dict:
        return {plain(k): plain(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(plain(v) for v in value)
    for base in (str, int, float):
        if isinstance(value, base):
            return base(value)
    return value


def _worker_problem(job: Job, settings: GradeSettings) -> str:
    """Why this worker cannot judge the job as the driver would ("" when it can)."""
    from platform import node

    where = f"Dask worker {_worker_name()} on {node()}"
    if job.judge_version != __version__:
        return f"{where} runs judge {__version__}, the grade judge {job.judge_version}: install the same version"
    if job.entry.snapshot is not None:  # the task carries the submission's bytes: no shared filesystem needed
        return _gpu_problem(where, settings)
    try:
        same = hashlib.sha256(Path(job.path).read_bytes()).hexdigest() == job.digest
    except OSError as exc:
        return (f"{where} cannot read the submission {job.path} ({exc.strerror or exc}): workers need the "
                "submissions at the same path as the driver (a shared filesystem)")
    if not same:
        return f"{where} reads other bytes at {job.path} than the driver: workers need the same files"
    return _gpu_problem(where, settings)


def _gpu_problem(where: str, settings: GradeSettings) -> str:
    if not settings.interpret:
        import torch

        if not torch.cuda.is_available():
            return f"{where} has no CUDA GPU, but offers the resource {GPU_RESOURCE}"
    return ""


def _worker_name() -> str:
    from distributed import get_worker

    try:
        return str(get_worker().name)
    except ValueError:  # not inside a worker (a test calling grade_task directly)
        return "-"


def _pinned_gpu() -> int:
    """The physical index of the worker's GPU where CUDA_VISIBLE_DEVICES pins one, else 0 (cuda:0)."""
    visible = _visible_devices()
    return int(visible[0]) if len(visible) == 1 and visible[0].isdigit() else 0


# -- records the driver makes for tasks that did not judge ----------------------------

def internal_record(entry: Entry, settings: GradeSettings, message: str) -> dict:
    """A ``runtime_error`` that is the grade's, not the submission's: no resume key,
    so ``--resume`` grades it again."""
    return {**problem_record(entry, None, settings), "verdict": Verdict.RUNTIME_ERROR.value, "message": message,
            "notes": ["not graded: a problem of the cluster, not of this submission; --resume grades it again"],
            "internal_error": True}


def worker_died_record(entry: Entry, settings: GradeSettings, tries: int) -> dict:
    return internal_record(entry, settings, f"the Dask worker grading this submission died ({tries} tries: a lost "
                           "host, the out-of-memory killer, or the submission killing it)")


# -- the driver ----------------------------------------------------------------------------

def _outcome(future, job: Job, settings: GradeSettings) -> dict | None:
    """The record a finished future stands for; None for a task that stopped on cancel."""
    from distributed import KilledWorker

    if future.status == "finished":
        return future.result()
    exc = future.exception() if future.status == "error" else None
    if isinstance(exc, KilledWorker):  # the scheduler's allowed-failures, if it says
        return worker_died_record(job.entry, settings, getattr(exc, "allowed_failures", ALLOWED_FAILURES) + 1)
    if exc is None:
        return internal_record(job.entry, settings, f"the Dask scheduler dropped this task ({future.status})")
    return internal_record(job.entry, settings, f"the Dask task failed: {type(exc).__name__}: {exc}")


def grade_on_cluster(client, jobs: list[Job], settings: GradeSettings, done: Callable[[int, dict], None],
                     drain_s: float = 60.0, say: Callable[[str], None] | None = None) -> None:
    """Grade the jobs as Dask tasks, calling ``done`` as each finishes, in the calling thread.

    Only as many tasks are submitted as the cluster has slots (GPU resources; CPU
    mode: threads), topped up as they finish and as workers join: Dask assigns a
    resource-bound task to a worker at once, so submitting all would queue them on
    workers, where a dying worker would count against every task queued on it,
    and the split would rest on work stealing.  Jobs start in their order.

    On an exception (Ctrl-C included) the grade's Event is set: running tasks stop
    at their next case, no further task is submitted; what finishes within
    ``drain_s`` is still passed to ``done``; then the exception propagates.
    ``say`` gets a line when a worker leaves or joins mid-grade (``WorkerChanges``).
    """
    from distributed import Event

    run_id = uuid.uuid4().hex[:12]
    cancel = Event(f"judge-cancel-{run_id}", client=client)
    resources = None if settings.interpret else {GPU_RESOURCE: 1}
    waiting, futures = list(reversed(jobs)), {}
    changes = None  # the workers seen at the start: the first round trip to the scheduler, under the guard below
    labels = {job.index: f"{job.entry.submission} · {job.entry.challenge}" for job in jobs}

    def top_up() -> None:
        workers = _workers(client)
        # a task whose result came (taken, or finished and not yet taken) was judged once, whatever its worker
        # does now; taken before the submissions below, which no worker was running at the last look
        pending = {job.index for future, job in futures.items() if future.status != "finished"}
        for _ in range(min(len(waiting), max(1, _slots(workers, settings.interpret)) - len(futures))):
            job = waiting.pop()
            futures[client.submit(grade_task, job, settings, cancel.name, key=task_key(job.index, run_id),
                                  resources=resources, pure=False)] = job
        # after the submissions: a freed GPU does not wait for this round trip to the scheduler
        for line in changes.seen(_names(workers), _running(client, futures), labels.get, pending):
            if say is not None:
                say(line)

    def done_noted(index: int, record: dict) -> None:
        done(index, changes.noted(index, record))

    try:
        changes = WorkerChanges(_names(_workers(client)))
        while waiting or futures:
            top_up()
            for future in _finished(futures, POLL_S):
                _take(future, futures, settings, done_noted, refill=top_up)
    except BaseException as exc:
        if not isinstance(exc, KeyboardInterrupt) and client.status != "running":
            # the scheduler is gone (its futures cancelled): nothing to cancel or drain there
            raise ClusterError(f"lost the Dask scheduler mid-grade ({type(exc).__name__}, the client "
                               f"{client.status}): the outputs hold what was graded, and --resume carries on") from None
        cancel.set()
        _drain(client, futures, settings, done_noted, drain_s)
        raise


class WorkerChanges:
    """What to say, and to note in records, as the cluster's workers change mid-grade.  Dask runs
    the task of a lost worker again on another (allowed-failures) without a word; the user should
    see it happen, and the record of a task graded again should say so.  Workers are told apart by
    address: a nanny restarts a dead worker under its old name, at a new address."""

    def __init__(self, workers: dict[str, str]):
        self.workers = dict(workers)  # address -> name
        self.running: dict[str, list[int]] = {}  # address -> indices of the jobs it was running, last seen
        self.lost: dict[int, list[str]] = {}  # job index -> names of the workers lost while running it

    def seen(self, workers: dict[str, str], running: dict[str, list[int]], label: Callable[[int], str],
             pending: set[int] | None = None) -> list[str]:
        """The lines for workers that left or joined since the last look; ``running``: the jobs each
        worker runs now (its address -> job indices), ``label`` names a job, ``pending``: the jobs whose
        result has not come (None: all); a job seen running on a lost worker whose result came since was
        judged once, not lost."""
        lines = []
        for address in sorted(set(self.workers) - set(workers), key=self.workers.get):
            name = self.workers[address]
            jobs = [i for i in self.running.get(address, []) if pending is None or i in pending]
            for index in jobs:
                self.lost.setdefault(index, []).append(name)
            again = (f"its task {', '.join(map(label, jobs))} runs again on another worker" if jobs
                     else "the task it was running, if any, runs again on another worker")
            lines.append(f"Dask worker {name} left the cluster mid-grade: {again} ({len(workers)} worker(s) now)")
        lines += [f"Dask worker {workers[a]} joined ({len(workers)} worker(s) now)"
                  for a in sorted(set(workers) - set(self.workers), key=workers.get)]
        self.workers, self.running = dict(workers), running
        return lines

    def noted(self, index: int, record: dict) -> dict:
        """``record`` with a note and ``lost_workers`` when its task was running on a worker that was lost."""
        names = self.lost.get(index)
        if not names:
            return record
        again = "" if record.get("internal_error") else "graded again: "  # not graded at all when it died each time
        note = (f"{again}the Dask worker{'s' if len(names) > 1 else ''} {', '.join(names)} running it "
                "left the cluster mid-judgement")
        return {**record, "lost_workers": list(names), "notes": [*record.get("notes", []), note]}


def _worker_names(client) -> set[str]:
    return set(_names(_workers(client)).values())


def _names(workers: dict) -> dict[str, str]:
    """Address -> name (the address where it has none) of ``_workers``'s answer."""
    return {address: str(info.get("name", address)) for address, info in workers.items()}


def _running(client, futures: dict) -> dict[str, list[int]]:
    """Worker address -> the indices of this grade's jobs it is running (the scheduler's view)."""
    jobs = {future.key: job.index for future, job in futures.items()}
    try:
        processing = client.processing()
    except Exception:  # noqa: BLE001 - only for the lines above; the grade goes on without them
        return {}
    return {address: [jobs[key] for key in keys if key in jobs] for address, keys in processing.items()}


def slots(client, interpret: bool) -> int:
    """How many tasks the cluster's workers run at once: their GPUs, or in CPU mode their threads."""
    return _slots(_workers(client), interpret)


def _slots(workers: dict, interpret: bool) -> int:
    workers = workers.values()
    if interpret:
        return sum(int(info.get("nthreads", 1)) for info in workers)
    return sum(int(info.get("resources", {}).get(GPU_RESOURCE, 0)) for info in workers)


def _finished(futures: dict, timeout: float) -> list:
    """The futures done within ``timeout`` (at least one, or none when it passed)."""
    from distributed import TimeoutError as DaskTimeoutError, wait

    try:
        return list(wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED").done)
    except (TimeoutError, DaskTimeoutError):  # asyncio's: not the builtin on Python 3.10
        return []


def _take(future, futures: dict, settings: GradeSettings, done, refill: Callable[[], None] | None = None) -> None:
    """Pass a finished future's record to ``done`` and release it at once: a result
    left in a worker's memory would be computed again (graded twice) if that worker died.
    ``refill`` submits the next task first, so that the freed GPU does not wait while
    ``done`` writes the outputs (all the records so far, in three formats).  An interrupt
    (Ctrl-C lands wherever the main thread is) loses no finished record: while the result is
    fetched the future stays in ``futures`` for ``_drain``; once fetched, it is passed on."""
    job = futures[future]
    record = _outcome(future, job, settings)
    del futures[future]
    future.release()
    try:
        if refill is not None:
            refill()
    finally:
        if record is not None:
            done(job.index, record)


def _drain(client, futures: dict, settings: GradeSettings, done, drain_s: float) -> None:
    """Keep the records of tasks that finish within ``drain_s`` of an interrupt; further
    Ctrl-C is ignored meanwhile (CI signals twice), then whatever is left is cancelled."""
    deadline = time.monotonic() + drain_s
    while futures and time.monotonic() < deadline:
        try:
            finished = _finished(futures, min(1.0, max(0.01, deadline - time.monotonic())))
        except KeyboardInterrupt:
            continue
        for future in finished:
            _take(future, futures, settings, done)
    if futures:
        client.cancel(list(futures))


# -- connecting --------------------------------------------------------------------------

@contextmanager
def connect(address: str, gpus: list[int] | None, jobs: int, interpret: bool,
            say: Callable[[str], None]) -> Iterator[object]:
    """A ``distributed.Client`` of the scheduler at ``address``, or of a cluster
    started here for ``LOCAL`` (``worker_specs``), with its workers checked; both closed after."""
    from distributed import Client

    started = time.perf_counter()
    cluster = _start_local(gpus, jobs) if address == LOCAL else None
    try:
        try:
            client = Client(cluster if cluster is not None else address, timeout=CONNECT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(unusable_address(address, exc)) from None
        with client:
            if cluster is not None:
                client.wait_for_workers(len(cluster.worker_spec), timeout=LOCAL_START_S)
            check_workers(client, address, interpret, say)
            say(ready_line(sorted(_worker_names(client)),
                time.perf_counter() - started, cluster is not None))
            yield client
    finally:
        if cluster is not None:
            cluster.close()


def ready_line(names: list[str], seconds: float, started_here: bool, shown: int = 6) -> str:
    """The line saying the cluster can grade: how long it took (its start, for a local one) and its workers."""
    listed = ", ".join(names[:shown]) + (f", ... ({len(names) - shown} more)" if len(names) > shown else "")
    what = "local Dask cluster started" if started_here else "Dask workers checked"
    return f"{what} in {seconds:.1f} s: {len(names)} worker(s) ({listed})"


def unusable_address(address: str, exc: BaseException) -> str:
    """Why no scheduler could be used at ``address``: a malformed address (Dask's ``ValueError``),
    or one that does not answer (its ``OSError``, which a nanny wraps in a ``RuntimeError``)."""
    if isinstance(exc, ValueError):
        return f"{address!r} is not a Dask scheduler address ({exc}): give one like tcp://host:8786"
    cause = exc.__cause__ if isinstance(exc, RuntimeError) and exc.__cause__ is not None else exc
    return f"cannot reach the Dask scheduler at {address}: {cause}"


def _start_local(gpus: list[int] | None, jobs: int):
    import logging

    from distributed import Nanny, Scheduler, SpecCluster

    scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "port": 0, "dashboard": False,
                                               "allowed_failures": ALLOWED_FAILURES}}
    workers = {name: {"cls": Nanny, "options": options} for name, options in worker_specs(gpus, jobs).items()}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR, name="judge-grade")


def check_workers(client, address: str, interpret: bool, say: Callable[[str], None]) -> None:
    """Wait for a worker that can take the grade's tasks (one with ``GPU`` on GPUs),
    then check each worker there is with a task (it imports what grading needs, off
    the worker's event loop): the same judge version, and on GPUs a CUDA device.
    Workers that join later are checked by each task (``_worker_problem``)."""
    said = False
    while slots(client, interpret) < 1:
        if not said:
            say(f"waiting for a Dask worker{'' if interpret else ' with the resource GPU=1'} to join {address} "
                "(docs/grading.md: starting workers)")
            said = True
        time.sleep(1.0)
    fit = [w for w, info in _workers(client).items()
           if interpret or info.get("resources", {}).get(GPU_RESOURCE, 0) >= 1]
    run_id = uuid.uuid4().hex[:12]
    checks = {w: client.submit(_worker_facts, interpret, key=f"judge-check-{i}-{run_id}", workers=[w],
                               allow_other_workers=False, pure=False,
                               resources=None if interpret else {GPU_RESOURCE: 1}) for i, w in enumerate(fit)}
    for worker, future in checks.items():
        try:
            version, gpus = future.result(timeout=LOCAL_START_S)
        except Exception as exc:  # noqa: BLE001 - e.g. a worker without judge cannot unpickle the task
            raise ClusterError(f"Dask worker {worker} of {address} cannot run the judge ({type(exc).__name__}: "
                               f"{exc}); install judge {__version__} with the cluster extra on every worker") from None
        if version != __version__:
            raise ClusterError(f"Dask worker {worker} runs judge {version}, this grade judge {__version__}: "
                               "install the same version on every worker")
        if not interpret and gpus < 1:
            raise ClusterError(f"Dask worker {worker} offers the resource {GPU_RESOURCE} but sees no CUDA GPU "
                               "(check its CUDA_VISIBLE_DEVICES), or grade in CPU mode with --interpret")


def _worker_facts(interpret: bool) -> tuple[str, int]:
    """(judge version, CUDA devices visible) on a worker; no torch import in CPU mode."""
    if interpret:
        return __version__, 0
    import torch

    return __version__, torch.cuda.device_count()


def _workers(client) -> dict:
    """Worker address -> the scheduler's information about it."""
    try:
        info = client.scheduler_info(n_workers=-1)  # newer versions list only 5 workers unless asked
    except TypeError:  # older ones list all, and have no n_workers
        info = client.scheduler_info()
    return info.get("workers", {})
