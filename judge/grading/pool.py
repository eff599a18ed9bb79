"""Judging the entries of a grade: each in its own worker process through
``runner.judge_solution`` (so one crash or hang never stops the others), on a
pool of threads, one per GPU slot, with cancellation on Ctrl-C.
"""

from __future__ import annotations

import queue
import tempfile
import threading
import time
from contextlib import suppress
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Callable

from judge.grading.records import GradeSettings, problem_record, public_record, relocate
from judge.grading.submissions import Entry
from judge.judging.cancel import Cancelled, StopOnCancel, check as check_cancel
from judge.judging.verdict import Verdict

__all__ = ["Cancelled", "judge_entry", "parse_gpus", "grade_entries", "make_undumpable"]


def make_undumpable() -> None:
    """Make this process non-dumpable (defence/sandbox.py's set_dumpable): a grade's
    own processes, the Dask workers', keep the secret seed."""
    from judge.defence.sandbox import set_dumpable

    set_dumpable(False)


def _grade_events(cancel, still=None):
    """Runner events that raise ``Cancelled`` at the next step (start, case, benchmark)
    once ``cancel.is_set()``; the runner's cleanup then stops the worker.  ``cancel``
    is a ``threading.Event``, or on a Dask worker a ``cluster.ClusterCancel`` (or None).
    ``still`` (report/progress.StillRunning) is told each step, for its lines on a step that runs long."""
    from judge.judging.runner import Events

    class GradeEvents(Events):
        def started(self, result, total_cases: int) -> None:
            self.check()

        def case_started(self, case) -> None:
            self.step(f"case {case.name} ({case.label()})")

        def case_finished(self, result) -> None:
            if still is not None:
                still.begin(None)

        def status(self, text: str) -> None:
            self.step(text)

        def step(self, text: str) -> None:
            self.check()
            if still is not None:
                still.begin(text)

        @staticmethod
        def check() -> None:
            check_cancel(cancel)

    return GradeEvents()


def judge_entry(entry: Entry, spec, key: str | None, settings: GradeSettings, device: str | None,
                cancel=None, note: Callable[[str], None] | None = None) -> dict:
    """Judge one entry and return its public record; never raises for a bad
    submission.  Raises ``Cancelled`` soon after ``cancel`` is set: the judgement's
    workers are killed then, and what they left unfinished is no verdict.  ``note`` gets a
    plain line when a step runs long (``alice · transpose: case edge-3 (...): still running after 5 s``)."""
    if entry.problem or spec is None:
        return problem_record(entry, key, settings)
    from judge.judging.dispatch import judge_solution
    from judge.report.progress import StillRunning

    started = time.perf_counter()
    still = StillRunning(lambda line: note(f"{entry.submission} · {entry.challenge}: {line}")) if note else None
    events = _grade_events(cancel, still) if cancel is not None or still is not None else None
    from judge.judging.reference import ReferenceError_

    # On a Dask worker ``cancel`` is asked from the task's own thread only (cluster.ClusterCancel).
    watcher = StopOnCancel(cancel) if isinstance(cancel, threading.Event) else None
    private = tempfile.TemporaryDirectory(prefix="judge-submission-") if entry.snapshot is not None else None
    try:
        path = str(entry.snapshot.write(Path(private.name))) if private is not None else entry.path
        run = judge_solution(spec, path, settings.options(device), events).as_dict()
        if private is not None:
            run = relocate(run, private.name, str(Path(entry.path).parent))
    except ReferenceError_ as exc:  # the organiser's spec is broken: not the submission's verdict
        run = {"verdict": Verdict.INVALID_SUBMISSION.value, "challenge": spec.name, "solution": entry.path,
               "message": f"the challenge's reference failed (a spec error, not this submission's): {exc}",
               "tests": [], "benchmarks": [], "notes": ["spec error: fix the challenge"], "internal_error": True}
    except Exception as exc:  # noqa: BLE001 - one submission that trips the judge must not stop the rest
        run = {"verdict": Verdict.RUNTIME_ERROR.value, "challenge": spec.name, "solution": entry.path,
               "message": f"internal error in judge while grading this submission: {type(exc).__name__}: {exc}",
               "tests": [], "benchmarks": [], "notes": ["internal error: please report it"], "internal_error": True}
    finally:
        if still is not None:
            still.stop()
        if watcher is not None:
            watcher.stop()
        if private is not None:
            with suppress(OSError):
                private.cleanup()
    if watcher is not None and watcher.fired:  # its workers were killed: a crash of our making, no verdict
        raise Cancelled
    return public_record(entry, key, run, settings, time.perf_counter() - started, device)


def parse_gpus(text: str, available: int) -> list[int]:
    """``all`` or a comma-separated list of CUDA device indices, checked against ``available``."""
    if text.strip().lower() == "all":
        if available == 0:
            raise ValueError("no CUDA GPU is visible")
        return list(range(available))
    try:
        indices = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"{text!r}: expected 'all' or device indices like 0,1") from None
    if not indices:
        raise ValueError("expected 'all' or device indices like 0,1")
    if len(set(indices)) != len(indices):
        raise ValueError(f"{text!r} names a GPU twice")
    bad = [i for i in indices if not 0 <= i < available]
    if bad:
        raise ValueError(f"no GPU {bad[0]}: {available} visible (indices 0..{available - 1})")
    return indices


# -- running entries over devices ------------------------------------------------------------

def grade_entries(todo: list[int], slots: list, grade_one: Callable[[int, object], dict],
                  done: Callable[[int, dict], None], cancel: threading.Event | None = None) -> None:
    """Call ``grade_one(index, slot)`` for each index, at most one at a time per slot.

    ``slots`` are what ``grade_one`` is given, each held by one call at a time: devices
    (``"cuda:1"``), ``None`` (CPU jobs), or names (session.py's ``slot_names``).  One slot grades
    in the calling thread; more use a thread pool (each call waits on its own
    worker process, so threads suffice).  ``done`` is called once per graded
    index, never concurrently.  On an exception (Ctrl-C included) ``cancel`` is
    set, so running calls can stop early (``judge_entry`` does), entries not yet
    started are dropped, and the exception propagates once no call is running.
    """
    cancel = cancel if cancel is not None else threading.Event()
    if len(slots) <= 1:
        try:
            for index in todo:
                done(index, grade_one(index, slots[0] if slots else None))
        except BaseException:
            cancel.set()
            raise
        return
    free, lock = queue.Queue(), threading.Lock()
    for slot in slots:
        free.put(slot)

    def task(index: int) -> None:
        if cancel.is_set():
            return  # dropped: the grade was interrupted before this entry started
        slot = free.get()
        try:
            record = grade_one(index, slot)
            with lock:
                done(index, record)
        except BaseException:
            cancel.set()  # before the slot is free, so that no other entry starts
            raise
        finally:
            free.put(slot)

    pool = ThreadPoolExecutor(max_workers=len(slots), thread_name_prefix="grade")
    futures = []
    try:
        futures = [pool.submit(task, index) for index in todo]
        wait(futures, return_when=FIRST_EXCEPTION)  # a failing task has set ``cancel`` itself
    except BaseException:  # Ctrl-C in this thread
        cancel.set()
        raise
    finally:
        _shutdown_patiently(pool)
    failures = [f.exception() for f in futures if not f.cancelled() and f.exception() is not None]
    if failures:  # the cause, not a call that it cancelled
        raise next((e for e in failures if not isinstance(e, Cancelled)), failures[0])


def _shutdown_patiently(pool: ThreadPoolExecutor) -> None:
    """Wait for the running calls, even through another Ctrl-C or signal (CI
    sends SIGINT then SIGTERM, GNU timeout signals twice): abandoned calls would
    write outputs after the final ones.  They stop soon once cancelled."""
    while True:
        try:
            pool.shutdown(wait=True, cancel_futures=True)
            return
        except KeyboardInterrupt:
            continue
