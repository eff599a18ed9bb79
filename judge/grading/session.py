"""One ``judge grade`` under way: the entries, their records so far, what happens as each
is graded (a console line, the outputs rewritten), an interruption that keeps what was
graded, and the exit status the pass rule gives."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Callable

from judge.base.exit_codes import ExitCode
from judge.grading import durations
from judge.grading.breakdown import breakdown, task_of
from judge.grading.outputs import GradeOutputs
from judge.grading.plan import GradeError
from judge.grading.pool import grade_entries, judge_entry
from judge.grading.records import GradeSettings, PassRule, carried_over, grade_document, resume_key
from judge.grading.schedule import Expected, expected_durations, schedule_summary, start_order
from judge.report.grade_table import interrupted_line, order_line, progress_line

__all__ = ["GradeSession", "slot_names", "interrupted_once", "outcome", "exit_status"]


class GradeSession:
    """The entries, their records so far, and what happens as each is graded.

    ``clock`` (seconds, monotonic) times the grade for its end-of-grade breakdown (grading/breakdown.py)."""

    def __init__(self, entries, specs, settings: GradeSettings, outputs: GradeOutputs, console, previous,
                 clock: Callable[[], float] = time.perf_counter):
        self.entries, self.specs, self.settings = entries, specs, settings
        self.outputs, self.console, self.clock = outputs, console, clock
        self.keys = [resume_key(e, settings) for e in entries]
        self.records = carried_over(previous, entries, self.keys) if previous else {}
        self.meta = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "schedule": None, "timing": None}  # set as run() starts and ends
        self.finished = len(self.records)
        self.cancel = threading.Event()  # set on Ctrl-C: running judges stop at their next case
        self.started = clock()
        self.arrived: dict[int, float] = {}  # plan index -> when its record came, in seconds after the start
        self.expected: dict[int, Expected] = {}  # plan index -> what it is expected to take (plan_starts)
        self.slots: list[str] = []  # the local slots' names (grade_here); a cluster's workers are seen in records
        self.slot_kind = "GPU" if not settings.interpret else "CPU job"

    @property
    def mode(self) -> str:
        return "interpret" if self.settings.interpret else "gpu"

    def document(self) -> dict:
        """The grade document as it stands: records so far, the rest pending."""
        return grade_document(self.entries, self.records, self.settings, self.meta)

    def grade_one(self, index: int, device, slot: str | None = None) -> dict:
        """The record of entry ``index``, judged on ``device``; ``slot`` names the local slot, kept in the record
        of an entry it judged (one that cannot be judged gets its record without a judgement)."""
        entry = self.entries[index]
        spec = self.specs.get(entry.spec_path)
        record = judge_entry(entry, spec, self.keys[index], self.settings, device, self.cancel, self.note)
        judged = slot is not None and not entry.problem and spec is not None
        return {**record, "slot": slot} if judged else record

    def note(self, text: str) -> None:
        """A plain line from a judgement under way (a step still running: pool.judge_entry); grade has no
        live display, so on a terminal too."""
        self.console.print(text, markup=False, highlight=False)

    def done(self, index: int, record: dict) -> None:
        """Keep entry ``index``'s record (with what it was expected to take), show it, and rewrite the outputs."""
        self.arrived[index] = self.clock() - self.started
        expected = self.expected.get(index)
        if expected is not None:
            record = {**record, "expected_s": round(expected.seconds, 2), "expected_from": expected.source}
        self.records[index] = record
        self.finished += 1
        self.print_line(record, f"[{self.finished}/{len(self.entries)}]")
        self.outputs.write(self.document())

    def print_line(self, record: dict, counter: str) -> None:
        self.console.print(progress_line(record, counter))

    def grade_here(self, slots: list, todo: list[int]) -> None:
        """On this host: one submission per slot at a time (judge/grading/pool.py), each record naming
        its slot (``slot_names``), so that the breakdown tells CPU jobs apart."""
        self.slots = slot_names(slots, self.settings.interpret)
        devices = dict(zip(self.slots, slots))
        grade_entries(todo, self.slots, lambda index, name: self.grade_one(index, devices[name], name), self.done,
                      self.cancel)

    def grade_on_cluster(self, address: str, gpus: list[int] | None, jobs: int, todo: list[int]) -> None:
        """On a Dask cluster (judge/grading/cluster.py), whose tasks start in ``todo``'s order; entries
        that cannot be judged get their records here at once, without a task."""
        from judge.grading import cluster

        self.slot_kind = "Dask worker"
        judged = [i for i in todo if not self.entries[i].problem and self.entries[i].spec_path in self.specs]
        for index in (i for i in todo if i not in judged):
            self.done(index, self.grade_one(index, None))
        if not judged:  # all carried over by --resume, or unjudgeable: no cluster to start
            return
        try:
            with cluster.connect(address, gpus, jobs, self.settings.interpret, self.note) as client:  # plain: names may hold [ ]
                work = cluster.make_jobs(judged, self.entries, self.specs, self.keys)
                cluster.grade_on_cluster(client, work, self.settings, self.done, say=self.note)
        except cluster.ClusterError as exc:
            raise GradeError(str(exc)) from None

    def plan_starts(self) -> list[int]:
        """The entries still to grade, longest expected first (grading/schedule.py), from the durations of
        earlier grades (grading/durations.py) or the challenges' sizes; kept in ``meta["schedule"]``."""
        todo = [i for i in range(len(self.entries)) if i not in self.records]
        order = start_order(expected_durations(self.entries, todo, self.specs, self.settings,
                                               durations.load_history(self.mode)))
        self.expected = {e.index: e for e in order}
        self.meta["schedule"] = schedule_summary(order, self.entries)
        return [e.index for e in order]

    def run(self, grade_todo: Callable[[list[int]], None]) -> bool:
        """Grade what is left with ``grade_todo(indices)``, longest expected first; True when it ran to
        the end, False when interrupted.  Either way the durations judged are remembered for the next
        grade's order, and ``meta["timing"]`` says where the time went."""
        self.started = self.clock()
        for index in sorted(self.records):
            self.print_line(self.records[index], "[resumed]")
        todo = self.plan_starts()
        self.outputs.write(self.document(), first=True)
        line = order_line(self.meta["schedule"])
        if line:
            self.console.print(line)
        completed = True
        try:
            grade_todo(todo)
        except KeyboardInterrupt:
            self.console.print(interrupted_line(len(self.records), len(self.entries)))
            completed = False
        finally:
            self.end_timing()
        return completed

    def end_timing(self) -> None:
        """Where this run's time went (``meta["timing"]``; None when it judged nothing), and its durations
        kept for the next grade's order."""
        wall_s = self.clock() - self.started
        judged = {i: self.records[i] for i in self.arrived}
        tasks = [task_of(r, self.arrived[i]) for i, r in judged.items() if (r.get("wall_s") or 0) > 0]
        spent = breakdown(tasks, wall_s, self.slots)
        self.meta["timing"] = None if spent is None else {**spent.as_json(), "slot_kind": self.slot_kind}
        durations.remember(list(judged.values()), self.mode)


def slot_names(slots: list, interpret: bool) -> list[str]:
    """The names of this host's slots, in records' ``slot`` and the breakdown: ``cpu0``, ``cpu1`` ... for
    CPU jobs (each slot is None), ``gpu1`` for ``cuda:1``, ``gpu`` for the default GPU (like the
    ``--cluster local`` workers' names)."""
    names = []
    for position, device in enumerate(slots):
        if interpret:
            names.append(f"cpu{position}")
        elif device and device.startswith("cuda:"):
            names.append(f"gpu{device.split(':', 1)[1]}")
        else:
            names.append(device or "gpu")
    return names


@contextmanager
def interrupted_once():
    """Ctrl-C or SIGTERM (how CI cancels a job) interrupts the grade once, like
    Ctrl-C; further signals are ignored while the judges stop and the outputs and
    step summary are written (CI sends SIGINT then SIGTERM; GNU timeout signals twice)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen = []

    def interrupt(signum, frame):
        if not seen:
            seen.append(signum)
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def outcome(doc: dict, rule: PassRule) -> tuple[bool, str]:
    """Whether the grade passes ``rule``, and the note on a --min-pass rule that the
    summary line shows ("" for the default rule, all accepted)."""
    summary = doc["summary"]
    ok = rule.passes(summary["accepted"], summary["total"])
    note = "" if rule == PassRule() else f" (--min-pass: {rule.describe()}, {rule.needed(summary['total'])} needed)"
    return ok, note


def exit_status(ok: bool, completed: bool) -> ExitCode:
    """INTERRUPTED when the grade did not run to the end (its outputs are kept), else OK or FAILED."""
    if not completed:
        return ExitCode.INTERRUPTED
    return ExitCode.OK if ok else ExitCode.FAILED
