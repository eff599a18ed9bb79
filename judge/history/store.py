"""The local history: every ``judge run`` and ``judge rank`` result in SQLite.

Where: ``--db PATH``, else ``$JUDGE_DB``, else ``history.db`` in the data
directory (``$JUDGE_DATA_DIR``, else ``$XDG_DATA_HOME/judge``, else
``~/.local/share/judge``).  The schema grows by numbered migrations recorded
in the table ``_judge_migrations`` (docs/ranking.md lists them), so an old
database is upgraded in place the first time a newer judge opens it.

Only the standard library's sqlite3; results come in as the plain dicts of
``RunResult.as_dict()``, so nothing here imports torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from judge.base.paths import data_dir

__all__ = ["HistoryError", "data_dir", "default_db_path", "connect", "migrate", "schema_version", "transaction",
           "MIGRATIONS", "record_result", "file_hash", "accepted_runs", "untimed_accepted", "recent_runs",
           "benchmarks_of", "source_of", "kept_sources", "MAX_SOURCE_BYTES", "KINDS"]

DB_NAME = "history.db"


class HistoryError(RuntimeError):
    """The history database cannot be used (the message says why)."""


def default_db_path(explicit: str | None = None) -> Path:
    """``explicit`` (the --db flag), else ``$JUDGE_DB``, else ``<data dir>/history.db``."""
    if explicit:
        return Path(explicit)
    if os.environ.get("JUDGE_DB"):
        return Path(os.environ["JUDGE_DB"])
    return data_dir() / DB_NAME


# -- schema ------------------------------------------------------------------------
# Append only: a released migration never changes, a new one gets the next number.
MIGRATIONS: list[tuple[int, str, tuple[str, ...]]] = [
    (1, "runs", ("""
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            created_at TEXT NOT NULL,          -- ISO 8601, UTC
            command TEXT NOT NULL,             -- 'run' or 'rank'
            batch TEXT,                        -- shared by the solutions of one 'judge rank'
            challenge TEXT NOT NULL,
            solution_path TEXT NOT NULL,
            solution_hash TEXT NOT NULL,       -- sha256 of the file's bytes
            verdict TEXT NOT NULL,
            message TEXT,
            mode TEXT NOT NULL,                -- 'gpu' or 'interpret'
            seed INTEGER,
            device TEXT,
            driver TEXT, cuda TEXT, torch TEXT, triton TEXT, python TEXT, judge_version TEXT,
            tests_passed INTEGER, tests_total INTEGER,
            score_ms REAL, score_ci_low_ms REAL, score_ci_high_ms REAL,  -- geometric mean over benchmarks
            environment TEXT                   -- JSON
        )""",)),
    (2, "benchmarks", ("""
        CREATE TABLE benchmarks (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            params TEXT NOT NULL,              -- JSON of the size parameters
            verdict TEXT NOT NULL,
            median_ms REAL, ci_low_ms REAL, ci_high_ms REAL, calls INTEGER,
            gbps REAL, tflops REAL, pct_of_peak REAL, torch_median_ms REAL,
            PRIMARY KEY (run_id, name)
        )""",)),
    (3, "indexes", (
        "CREATE INDEX runs_by_challenge ON runs (challenge, device, verdict)",
        "CREATE INDEX runs_by_hash ON runs (solution_hash)",
    )),
    # judge ui shows each version's code (open, diff, restore) and tells its Run from its Submit.
    (4, "sources and kinds", (
        """CREATE TABLE sources (
            hash TEXT PRIMARY KEY,             -- runs.solution_hash: sha256 of the bytes
            text TEXT NOT NULL                 -- the solution's text (UTF-8), at most MAX_SOURCE_BYTES
        )""",
        "ALTER TABLE runs ADD COLUMN kind TEXT",  # 'run' (tests only) or 'submit' (tests, then the benchmark)
    )),
]
MAX_SOURCE_BYTES = 1_000_000  # a solution's text is kept up to this size (judge ui's drafts hold at most as much)
KINDS = ("run", "submit")


def connect(path: str | Path) -> sqlite3.Connection:
    """Open (creating its folder) and migrate the database at ``path`` (":memory:" works)."""
    try:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=10, isolation_level=None)  # explicit transactions
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn)
        return conn
    except (sqlite3.Error, OSError) as exc:
        raise HistoryError(f"cannot use the history database {path}: {exc}") from None


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: ``BEGIN IMMEDIATE`` (the write lock taken at once, so two judges writing
    together wait for each other instead of failing at COMMIT), COMMIT when the block ends, ROLLBACK when
    anything is raised in it, Ctrl-C included.  The connection is in autocommit mode (``connect``)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_version(conn: sqlite3.Connection) -> int:
    """The highest migration applied (0 for a new database)."""
    conn.execute("CREATE TABLE IF NOT EXISTS _judge_migrations "
                 "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    row = conn.execute("SELECT MAX(version) FROM _judge_migrations").fetchone()
    return row[0] or 0


def migrate(conn: sqlite3.Connection, upto: int | None = None) -> list[int]:
    """Apply the missing migrations (each in its own transaction); returns their numbers."""
    current, newest = schema_version(conn), MIGRATIONS[-1][0]
    if current > newest:
        raise HistoryError(f"the history database has schema version {current}, newer than this judge "
                           f"knows ({newest}): upgrade judge, or use another database with --db")
    applied = []
    for version, name, statements in MIGRATIONS:
        if version <= current or (upto is not None and version > upto):
            continue
        with transaction(conn):
            for statement in statements:
                conn.execute(statement)
            conn.execute("INSERT INTO _judge_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                         (version, name, _now()))
        applied.append(version)
    return applied


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# -- writing -----------------------------------------------------------------------
def file_hash(path: str | Path) -> str:
    """sha256 of the file's bytes, hex: the identity of a solution across renames."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def record_result(conn: sqlite3.Connection, result: dict, command: str, batch: str | None = None,
                  score: tuple | None = None, solution_hash: str | None = None, kind: str | None = None,
                  source: str | None = None) -> int:
    """Store one run (``RunResult.as_dict()``) with its benchmarks and its solution's text; returns the
    run's id.

    ``score`` is (median, low, high) in ms; without it the geometric mean of
    the accepted benchmarks' medians is computed here.  ``kind``: 'run' (the tests only) or 'submit'
    (the tests, then the benchmark), as judge ui says; None where the caller does not say.  ``source``:
    the text judged (judge ui's, as it was on screen), else the file's bytes are read now.
    """
    score = score or _score_of(result.get("benchmarks", []))
    env = result.get("environment", {})
    tests = result.get("tests", [])
    data = source.encode("utf-8") if source is not None else _read(result["solution"])
    if solution_hash is None:
        solution_hash = hashlib.sha256(data).hexdigest() if data is not None else file_hash(result["solution"])
    row = {
        "created_at": _now(), "command": command, "batch": batch, "challenge": result["challenge"],
        "solution_path": str(Path(result["solution"]).resolve()), "solution_hash": solution_hash,
        "verdict": result["verdict"], "message": result.get("message", ""), "mode": result["mode"],
        "seed": result.get("seed"), "device": result.get("device"), "driver": env.get("driver"),
        "cuda": env.get("cuda"), "torch": env.get("torch"), "triton": env.get("triton"),
        "python": env.get("python"), "judge_version": env.get("judge"),
        "tests_passed": sum(1 for t in tests if t.get("verdict") == "accepted"), "tests_total": len(tests),
        "score_ms": score[0] if score else None, "score_ci_low_ms": score[1] if score else None,
        "score_ci_high_ms": score[2] if score else None,
        "environment": json.dumps(env, default=str), "kind": kind if kind in KINDS else None,
    }
    text = _text_of(data)
    with transaction(conn):
        cursor = conn.execute(f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                              tuple(row.values()))
        run_id = cursor.lastrowid
        for bench in result.get("benchmarks", []):
            conn.execute("INSERT INTO benchmarks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         _benchmark_row(run_id, bench))
        if text is not None:
            conn.execute("INSERT OR IGNORE INTO sources (hash, text) VALUES (?, ?)", (solution_hash, text))
    return run_id


def _read(path) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _text_of(data: bytes | None) -> str | None:
    """A solution's bytes as the text kept in ``sources``: UTF-8 and at most MAX_SOURCE_BYTES, else None."""
    if data is None or len(data) > MAX_SOURCE_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _benchmark_row(run_id: int, b: dict) -> tuple:
    return (run_id, b["name"], json.dumps(b.get("params", {})), b.get("verdict", "accepted"),
            b.get("median_ms"), b.get("ci_low_ms"), b.get("ci_high_ms"), b.get("calls"), b.get("gbps"),
            b.get("tflops"), b.get("pct_of_peak"), b.get("torch_median_ms"))


def _score_of(benchmarks: list) -> tuple | None:
    """Geometric means of median, ci_low and ci_high over the accepted benchmarks."""
    from judge.ranking.ranking_math import Estimate, score

    timed = [b for b in benchmarks if b.get("verdict", "accepted") == "accepted" and b.get("median_ms")]
    if not timed or len(timed) < len(benchmarks):
        return None
    s = score(Estimate(b["median_ms"], b["ci_low_ms"], b["ci_high_ms"]) for b in timed)
    return s.median, s.low, s.high


# -- reading -----------------------------------------------------------------------
def accepted_runs(conn: sqlite3.Connection, challenge: str) -> list[dict]:
    """Accepted runs of ``challenge`` that have a GPU score, oldest first."""
    rows = conn.execute("SELECT * FROM runs WHERE challenge = ? AND verdict = 'accepted' "
                        "AND score_ms IS NOT NULL ORDER BY id", (challenge,)).fetchall()
    return [dict(r) for r in rows]


def untimed_accepted(conn: sqlite3.Connection, challenge: str) -> int:
    """How many accepted runs of ``challenge`` have no GPU score (CPU mode, --no-bench)."""
    return conn.execute("SELECT COUNT(*) FROM runs WHERE challenge = ? AND verdict = 'accepted' "
                        "AND score_ms IS NULL", (challenge,)).fetchone()[0]


def recent_runs(conn: sqlite3.Connection, challenge: str | None = None, limit: int = 20) -> list[dict]:
    """The ``limit`` most recent runs (of ``challenge`` when given), newest first."""
    where, args = ("WHERE challenge = ?", (challenge,)) if challenge else ("", ())
    rows = conn.execute(f"SELECT * FROM runs {where} ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
    return [dict(r) for r in rows]


def benchmarks_of(conn: sqlite3.Connection, run_ids: Iterable[int]) -> dict[int, list[dict]]:
    """The benchmark rows of each run id, in the order they were stored."""
    ids = list(run_ids)
    out: dict[int, list[dict]] = {i: [] for i in ids}
    if not ids:
        return out
    marks = ", ".join("?" * len(ids))
    for row in conn.execute(f"SELECT * FROM benchmarks WHERE run_id IN ({marks}) ORDER BY rowid", ids):
        entry = dict(row)
        entry["params"] = json.loads(entry["params"])
        out[entry["run_id"]].append(entry)
    return out


def source_of(conn: sqlite3.Connection, solution_hash: str, challenge: str | None = None) -> str | None:
    """The text of the solution version ``solution_hash`` (of a run of ``challenge``, when given), or None
    where it was not kept (recorded before migration 4, over MAX_SOURCE_BYTES, not UTF-8)."""
    if challenge is not None and conn.execute("SELECT 1 FROM runs WHERE challenge = ? AND solution_hash = ? LIMIT 1",
                                              (challenge, solution_hash)).fetchone() is None:
        return None
    row = conn.execute("SELECT text FROM sources WHERE hash = ?", (solution_hash,)).fetchone()
    return None if row is None else row["text"]


def kept_sources(conn: sqlite3.Connection, hashes: Iterable[str]) -> set[str]:
    """Which of ``hashes`` have their text kept in ``sources``."""
    wanted = list(hashes)
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    return {r[0] for r in conn.execute(f"SELECT hash FROM sources WHERE hash IN ({marks})", wanted)}
