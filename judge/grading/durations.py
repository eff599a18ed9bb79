"""The durations of earlier grades, ``<cache dir>/grade-durations.json``: what a grade's
start order is estimated from (grading/schedule.py holds the format and the logic).

Read before a grade; written once at its end (an interrupted one too), atomically and
under a lock shared with every process of this host that grades (timing/peaks.py's
``cache_lock``), so that two grades ending at once keep both's durations.  A missing,
unreadable or corrupt file is no history, never an error; an unwritable one is skipped.
``JUDGE_GRADE_HISTORY=0`` neither reads nor writes it: starts are then ordered by the
challenges' sizes alone, the same on every machine (the test suite sets it).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from judge.base.paths import cache_dir
from judge.grading.schedule import History, fit_for_history, history_for, remembered

__all__ = ["FILE", "HISTORY_ENV", "durations_path", "history_enabled", "load_history", "remember"]

FILE = "grade-durations.json"
HISTORY_ENV = "JUDGE_GRADE_HISTORY"
_LOCK = threading.Lock()  # flock excludes other processes, not another thread of this one


def durations_path() -> Path:
    return cache_dir() / FILE


def history_enabled() -> bool:
    """False where ``$JUDGE_GRADE_HISTORY`` is ``0``: no durations read or written."""
    return os.environ.get(HISTORY_ENV, "").strip() != "0"


def load_history(mode: str) -> History:
    """The durations of earlier grades in ``mode`` (``gpu`` or ``interpret``); empty when there are none."""
    from judge.timing.peaks import read_cache

    return history_for(read_cache(durations_path()) if history_enabled() else {}, mode)


def remember(records: list[dict], mode: str) -> None:
    """Add the durations of ``records`` (those schedule.fit_for_history keeps) to the file; without any,
    the file is left as it is."""
    if not history_enabled() or not any(fit_for_history(r) for r in records):
        return
    from judge.timing.peaks import cache_lock, read_cache, write_cache

    path = durations_path()
    with _LOCK, cache_lock("grade-durations"):
        write_cache(path, remembered(read_cache(path), records, mode))
