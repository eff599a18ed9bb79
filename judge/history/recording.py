"""Recording the results of ``judge run``, ``rank`` and ``watch`` in the history database;
a failure to record never fails the command, it becomes a warning for stderr."""

from __future__ import annotations

import sqlite3
import uuid

__all__ = ["record_results"]


def record_results(db_path: str | None, no_history: bool, command: str, results: list[dict],
                   kind: str | None = None, source: str | None = None) -> str | None:
    """Record ``results`` (RunResult.as_dict()s); a warning for stderr when that failed, else None.

    A ``judge rank`` records one row per solution, sharing a batch id.  ``kind`` and ``source``
    (judge ui's Run or Submit, and the text it judged) go with each: ``store.record_result``.
    """
    if no_history:
        return None
    from judge.history.store import HistoryError, connect, default_db_path, record_result

    shared = [r for r in results if any(b.get("contention") for b in r.get("benchmarks", []))]
    results = [r for r in results if r not in shared]
    warning = ("warning: not recorded in the history: the GPU was shared while "
               f"{', '.join(str(r.get('solution')) for r in shared)} was timed (timing/contention.py)") if shared else None
    if not results:
        return warning
    path = default_db_path(db_path)
    batch = uuid.uuid4().hex if command == "rank" else None
    try:
        conn = connect(path)
        try:
            for result in results:
                record_result(conn, result, command, batch, kind=kind, source=source)
        finally:
            conn.close()
    except (HistoryError, sqlite3.Error, OSError) as exc:
        return (f"warning: the result was not recorded in the history ({path}): {exc}\n"
                "hint: --db PATH (or $JUDGE_DB) picks another database; --no-history skips recording")
    return warning
