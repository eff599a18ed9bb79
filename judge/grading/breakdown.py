"""Where a grade's wall time went: the longest judgement (no number of slots finishes sooner),
the ideal time for this many slots, how close the grade came to it, and each slot's busy and
idle time.

Computed at the end of a grade from the judgements of this run (not those carried over by
--resume): each one's own ``wall_s`` and when its record reached the grade (seconds after the
grade started, read by grading/session.py on its clock); a judgement started when its record
arrived less its ``wall_s``, as scripts/grade_timeline.py reads it from a log.  Pure: no I/O,
no clock; tested with made-up times (tests/test_schedule.py).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Task", "WorkerTime", "Breakdown", "worker_of", "task_of", "breakdown"]


@dataclass(frozen=True)
class Task:
    """One judgement of this grade."""

    name: str  # "alice · matmul"
    worker: str  # the slot or Dask worker that judged it (``worker_of``)
    wall_s: float  # the judgement's own seconds
    arrived_s: float  # when its record reached the grade, seconds after the grade started

    @property
    def started_s(self) -> float:
        return self.arrived_s - self.wall_s


@dataclass(frozen=True)
class WorkerTime:
    name: str
    busy_s: float  # the sum of its judgements' wall_s
    idle_s: float  # the grade's wall time less busy_s
    tasks: int


@dataclass(frozen=True)
class Breakdown:
    """The figures of the end-of-grade time lines and the grade document's ``timing``."""

    wall_s: float  # the grade's wall time: from its start until its judging ended (or was interrupted)
    slots: int  # the slots that could judge at once: the local slots, or the Dask workers seen
    longest: Task  # the critical path: the grade takes at least this long, however many slots
    ideal_s: float  # max(longest, the judgements' total / slots): a perfect split's wall time
    startup_s: float  # from the grade's start to its first judgement's start
    workers: tuple  # of WorkerTime, the local slots' order, then the Dask workers as first seen

    @property
    def efficiency(self) -> float:
        """The ideal time over the wall time (1.0: no slot waited, and the split was perfect).  Above 1
        only where more ran at once than ``slots`` counts (a Dask worker with several threads)."""
        return self.ideal_s / self.wall_s if self.wall_s > 0 else 1.0

    def as_json(self) -> dict:
        """The grade document's ``timing``: seconds rounded to 0.001, as a record's ``wall_s``, efficiency as a
        fraction.  Rounded to 0.01 and then shown to 0.1, 3.254 s read 3.2 s as the ideal or a worker's busy time
        beside the critical path's 3.3 s (the same judgement); the critical path keeps its record's ``wall_s``."""
        return {"wall_s": round(self.wall_s, 3), "slots": self.slots, "startup_s": round(self.startup_s, 3),
                "critical_path": {"name": self.longest.name, "worker": self.longest.worker,
                                  "wall_s": self.longest.wall_s},
                "ideal_s": round(self.ideal_s, 3), "efficiency": round(self.efficiency, 3),
                "workers": [{"name": w.name, "busy_s": round(w.busy_s, 3), "idle_s": round(w.idle_s, 3),
                             "tasks": w.tasks} for w in self.workers]}


def worker_of(record: dict) -> str:
    """What judged a record: its Dask ``worker``, else its local ``slot`` (``gpu0``, ``cpu1``), else its
    ``gpu`` (``gpu0``), else ``here`` (a record of an older grade, which had neither)."""
    if record.get("worker"):
        return str(record["worker"])
    if record.get("slot"):
        return str(record["slot"])
    return f"gpu{record['gpu']}" if record.get("gpu") is not None else "here"


def task_of(record: dict, arrived_s: float) -> Task:
    return Task(f"{record.get('submission')} · {record.get('challenge')}", worker_of(record),
                float(record.get("wall_s") or 0.0), arrived_s)


def breakdown(tasks: list[Task], wall_s: float, slots: list[str]) -> Breakdown | None:
    """The breakdown of a grade that ran ``tasks`` in ``wall_s`` on ``slots`` (the names of the local
    slots, each listed even when it judged nothing; [] on a Dask cluster, whose workers are those seen
    in ``tasks``); None when nothing was judged."""
    if not tasks:
        return None
    names = list(dict.fromkeys([*slots, *(t.worker for t in tasks)]))
    longest = max(tasks, key=lambda t: t.wall_s)  # the first of equals: plan order breaks no tie here
    total = sum(t.wall_s for t in tasks)
    workers = []
    for name in names:
        own = [t for t in tasks if t.worker == name]
        busy = sum(t.wall_s for t in own)
        workers.append(WorkerTime(name, busy, max(0.0, wall_s - busy), len(own)))
    startup = max(0.0, min(t.started_s for t in tasks))
    return Breakdown(wall_s, len(names), longest, max(longest.wall_s, total / len(names)), startup,
                     tuple(workers))
