"""One ``judge grade`` under way: the entries, their records so far, what happens as each
is graded (a console line, the outputs rewritten), an interruption that keeps what was
graded, and the exit status the pass rule gives."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Callable

from judge.base.exit_codes import ExitCode
from judge.grading.outputs import GradeOutputs
from judge.grading.plan import GradeError
from judge.grading.pool import grade_entries, judge_entry
from judge.grading.records import GradeSettings, PassRule, carried_over, grade_document, resume_key
from judge.report.grade_table import interrupted_line, progress_line

__all__ = ["GradeSession", "interrupted_once", "outcome", "exit_status"]


class GradeSession:
    """The entries, their records so far, and what happens as each is graded."""

    def __init__(self, entries, specs, settings: GradeSettings, outputs: GradeOutputs, console, previous):
        self.entries, self.specs, self.settings = entries, specs, settings
        self.outputs, self.console = outputs, console
        self.keys = [resume_key(e, settings) for e in entries]
        self.records = carried_over(previous, entries, self.keys) if previous else {}
        self.meta = {"started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        self.finished = len(self.records)
        self.cancel = threading.Event()  # set on Ctrl-C: running judges stop at their next case

    def document(self) -> dict:
        """The grade document as it stands: records so far, the rest pending."""
        return grade_document(self.entries, self.records, self.settings, self.meta)

    def grade_one(self, index: int, device) -> dict:
        """The record of entry ``index``, judged on ``device``."""
        entry = self.entries[index]
        return judge_entry(entry, self.specs.get(entry.spec_path), self.keys[index], self.settings, device,
                           self.cancel, self.note)

    def note(self, text: str) -> None:
        """A plain line from a judgement under way (a step still running: pool.judge_entry); grade has no
        live display, so on a terminal too."""
        self.console.print(text, markup=False, highlight=False)

    def done(self, index: int, record: dict) -> None:
        """Keep entry ``index``'s record, show it, and rewrite the outputs."""
        self.records[index] = record
        self.finished += 1
        self.print_line(record, f"[{self.finished}/{len(self.entries)}]")
        self.outputs.write(self.document())

    def print_line(self, record: dict, counter: str) -> None:
        self.console.print(progress_line(record, counter))

    def grade_here(self, slots: list, todo: list[int]) -> None:
        """On this host: one submission per slot at a time (judge/grading/pool.py)."""
        grade_entries(todo, slots, self.grade_one, self.done, self.cancel)

    def grade_on_cluster(self, address: str, gpus: list[int] | None, jobs: int, todo: list[int]) -> None:
        """On a Dask cluster (judge/grading/cluster.py); entries that cannot be judged
        get their records here at once, without a task."""
        from judge.grading import cluster

        judged = [i for i in todo if not self.entries[i].problem and self.entries[i].spec_path in self.specs]
        for index in (i for i in todo if i not in judged):
            self.done(index, self.grade_one(index, None))
        if not judged:  # all carried over by --resume, or unjudgeable: no cluster to start
            return
        try:
            with cluster.connect(address, gpus, jobs, self.settings.interpret, self.console.print) as client:
                work = cluster.make_jobs(judged, self.entries, self.specs, self.keys)
                cluster.grade_on_cluster(client, work, self.settings, self.done)
        except cluster.ClusterError as exc:
            raise GradeError(str(exc)) from None

    def run(self, grade_todo: Callable[[list[int]], None]) -> bool:
        """Grade what is left with ``grade_todo(indices)``; True when it ran to the end,
        False when interrupted."""
        for index in sorted(self.records):
            self.print_line(self.records[index], "[resumed]")
        self.outputs.write(self.document(), first=True)
        todo = [i for i in range(len(self.entries)) if i not in self.records]
        try:
            grade_todo(todo)
        except KeyboardInterrupt:
            self.console.print(interrupted_line(len(self.records), len(self.entries)))
            return False
        return True


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
