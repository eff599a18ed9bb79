"""The SQLite history and the leaderboard built from it (in-memory databases)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from judge.history import store as history
from judge.history.leaderboard import build_leaderboard


def run_dict(solution: Path, verdict="accepted", medians=(1.0, 4.0), device="NVIDIA H200", torch="2.11.0",
             mode="gpu", challenge="transpose", cases=("a", "b")) -> dict:
    benchmarks = [{"name": name, "params": {"rows": 64 * (i + 1), "cols": 64}, "verdict": "accepted",
                   "median_ms": m, "ci_low_ms": m * 0.99, "ci_high_ms": m * 1.01, "calls": 50, "gbps": 100.0 / m,
                   "tflops": None, "pct_of_peak": 2.0 / m, "torch_median_ms": 2 * m}
                  for i, (name, m) in enumerate(zip(cases, medians))] if mode == "gpu" else []
    return {"verdict": verdict, "challenge": challenge, "solution": str(solution), "mode": mode, "seed": 7,
            "device": device, "message": "", "tests": [{"verdict": "accepted"}, {"verdict": "accepted"}],
            "benchmarks": benchmarks,
            "environment": {"judge": "0.1.0", "torch": torch, "triton": "3.6.0", "python": "3.12.3",
                            "driver": "580.1", "cuda": "13.0", "gpu": device}}


@pytest.fixture
def conn():
    c = history.connect(":memory:")
    yield c
    c.close()


@pytest.fixture
def solution(tmp_path) -> Path:
    path = tmp_path / "kernel.py"
    path.write_text("def solve(input, output, rows, cols):\n    output.copy_(input.T)\n")
    return path


# -- location ------------------------------------------------------------------------
def test_the_data_dir_is_the_tests_temporary_one():
    # conftest's autouse fixture: tests never write to the real home
    assert "judge-data" in os.environ["JUDGE_DATA_DIR"]
    assert history.default_db_path().parent == Path(os.environ["JUDGE_DATA_DIR"])


def test_db_path_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("JUDGE_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert history.default_db_path() == tmp_path / "xdg" / "judge" / "history.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert history.default_db_path() == Path.home() / ".local" / "share" / "judge" / "history.db"
    monkeypatch.setenv("JUDGE_DB", str(tmp_path / "env.db"))
    assert history.default_db_path() == tmp_path / "env.db"
    assert history.default_db_path(str(tmp_path / "flag.db")) == tmp_path / "flag.db"


# -- migrations --------------------------------------------------------------------
def test_migrations_are_numbered_and_recorded(conn):
    versions = [v for v, _, _ in history.MIGRATIONS]
    assert versions == list(range(1, len(versions) + 1))
    rows = conn.execute("SELECT version, name FROM _judge_migrations ORDER BY version").fetchall()
    assert [tuple(r) for r in rows] == [(v, n) for v, n, _ in history.MIGRATIONS]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "benchmarks", "_judge_migrations"} <= tables


def test_migrating_again_does_nothing(conn):
    assert history.migrate(conn) == []
    assert history.schema_version(conn) == history.MIGRATIONS[-1][0]


def test_an_old_database_is_upgraded_in_place():
    c = sqlite3.connect(":memory:", isolation_level=None)
    assert history.migrate(c, upto=1) == [1]
    c.execute("INSERT INTO runs (created_at, command, challenge, solution_path, solution_hash, verdict, mode) "
              "VALUES ('2026-01-01', 'run', 'transpose', '/x.py', 'abc', 'accepted', 'gpu')")
    assert history.migrate(c) == list(range(2, history.MIGRATIONS[-1][0] + 1))
    assert c.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1  # data kept
    indexes = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "runs_by_challenge" in indexes


def test_a_version_3_database_gains_sources_and_kinds_its_old_runs_keep_theirs_unknown(solution):
    c = sqlite3.connect(":memory:", isolation_level=None)
    c.row_factory = sqlite3.Row
    history.migrate(c, upto=3)
    c.execute("INSERT INTO runs (created_at, command, challenge, solution_path, solution_hash, verdict, mode) "
              "VALUES ('2026-01-01', 'run', 'transpose', '/x.py', 'abc', 'accepted', 'gpu')")
    assert history.migrate(c) == [4]
    assert c.execute("SELECT kind FROM runs").fetchone()[0] is None
    assert history.source_of(c, "abc") is None  # recorded before its text was kept
    run_id = history.record_result(c, run_dict(solution), "run", kind="submit")
    row = c.execute("SELECT kind, solution_hash FROM runs WHERE id = ?", (run_id,)).fetchone()
    assert row["kind"] == "submit" and history.source_of(c, row["solution_hash"]) == solution.read_text()


def test_each_version_s_text_is_kept_once_and_only_shown_for_its_own_challenge(conn, solution, tmp_path):
    first = history.record_result(conn, run_dict(solution), "run", kind="run")
    again = history.record_result(conn, run_dict(solution), "run", kind="bogus")  # an unknown kind: none
    hashes = {r["solution_hash"] for r in conn.execute("SELECT solution_hash FROM runs")}
    assert len(hashes) == 1 and conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1
    assert [r["kind"] for r in conn.execute("SELECT kind FROM runs ORDER BY id")] == ["run", None]
    digest = hashes.pop()
    assert history.source_of(conn, digest, "transpose") == solution.read_text()
    assert history.source_of(conn, digest, "matmul") is None  # a page of another challenge cannot ask for it
    # judge ui's text as it was on screen, whatever the file holds by the time the verdict is recorded
    shown = "def solve(input, output, rows, cols):\n    pass\n"
    run_id = history.record_result(conn, run_dict(solution), "run", source=shown)
    stored = conn.execute("SELECT solution_hash FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
    assert history.source_of(conn, stored) == shown and stored != digest
    big = tmp_path / "big.py"  # over the cap, or not UTF-8: recorded, its text not kept
    big.write_bytes(b"#" * (history.MAX_SOURCE_BYTES + 1))
    binary = tmp_path / "latin.py"
    binary.write_bytes(b"# caf\xe9\n")
    for path in (big, binary):
        run_id = history.record_result(conn, run_dict(path), "run")
        kept = conn.execute("SELECT solution_hash FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
        assert kept == history.file_hash(path) and history.source_of(conn, kept) is None
    assert first and again


def test_a_newer_database_is_refused_with_a_hint():
    c = sqlite3.connect(":memory:", isolation_level=None)
    history.migrate(c)
    c.execute("INSERT INTO _judge_migrations VALUES (999, 'future', 'now')")
    with pytest.raises(history.HistoryError, match="newer than this judge"):
        history.migrate(c)


def test_a_failing_migration_leaves_nothing_half_done(monkeypatch):
    c = sqlite3.connect(":memory:", isolation_level=None)
    broken = history.MIGRATIONS + [(len(history.MIGRATIONS) + 1, "broken",
                                    ("CREATE TABLE extra (x)", "THIS IS NOT SQL"))]
    monkeypatch.setattr(history, "MIGRATIONS", broken)
    with pytest.raises(sqlite3.Error):
        history.migrate(c)
    assert history.schema_version(c) == len(broken) - 1
    assert not c.execute("SELECT name FROM sqlite_master WHERE name = 'extra'").fetchall()


def test_a_transaction_commits_its_block_and_rolls_back_on_any_exception():
    c = sqlite3.connect(":memory:", isolation_level=None)
    c.execute("CREATE TABLE t (x)")
    with history.transaction(c):
        c.execute("INSERT INTO t VALUES (1)")
    for error in (ValueError("bad row"), KeyboardInterrupt()):  # Ctrl-C mid-write leaves nothing half done
        with pytest.raises(type(error)):
            with history.transaction(c):
                c.execute("INSERT INTO t VALUES (2)")
                raise error
    assert c.execute("SELECT x FROM t").fetchall() == [(1,)] and not c.in_transaction


# -- recording -------------------------------------------------------------------
def test_a_run_is_recorded_with_everything_asked_for(conn, solution):
    run_id = history.record_result(conn, run_dict(solution), "run")
    row = dict(conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone())
    assert row["challenge"] == "transpose" and row["verdict"] == "accepted" and row["seed"] == 7
    assert row["solution_path"] == str(solution.resolve())
    assert row["solution_hash"] == history.file_hash(solution) and len(row["solution_hash"]) == 64
    assert (row["device"], row["driver"], row["torch"], row["triton"], row["judge_version"]) == \
        ("NVIDIA H200", "580.1", "2.11.0", "3.6.0", "0.1.0")
    assert row["score_ms"] == pytest.approx(2.0)  # geometric mean of 1 and 4
    assert row["tests_passed"] == row["tests_total"] == 2
    assert row["created_at"].endswith("+00:00")
    cases = history.benchmarks_of(conn, [run_id])[run_id]
    assert [(c["name"], c["median_ms"], c["ci_low_ms"]) for c in cases] == [("a", 1.0, 0.99), ("b", 4.0, 3.96)]
    assert cases[0]["params"] == {"rows": 64, "cols": 64}


def test_rejected_and_cpu_runs_have_no_score(conn, solution):
    history.record_result(conn, run_dict(solution, verdict="wrong_answer", mode="interpret"), "rank", batch="b1")
    history.record_result(conn, run_dict(solution, mode="interpret"), "rank", batch="b1")
    rows = history.recent_runs(conn, "transpose")
    assert [r["score_ms"] for r in rows] == [None, None] and {r["batch"] for r in rows} == {"b1"}
    assert history.accepted_runs(conn, "transpose") == []
    assert history.untimed_accepted(conn, "transpose") == 1


def test_an_unwritable_database_is_a_history_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(history.HistoryError, match="cannot use the history database"):
        history.connect(blocker / "history.db")


# -- leaderboard -------------------------------------------------------------------
def _leaderboard(conn, device=None):
    runs = history.accepted_runs(conn, "transpose")
    return build_leaderboard(runs, history.benchmarks_of(conn, [r["id"] for r in runs]), device)


def _solution(tmp_path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


def test_leaderboard_keeps_the_best_result_per_content_hash_and_ranks(conn, tmp_path):
    fast = _solution(tmp_path, "fast.py", "# fast\n")
    slow = _solution(tmp_path, "slow.py", "# slow\n")
    copy_of_fast = _solution(tmp_path, "renamed.py", "# fast\n")  # same content, same solution
    history.record_result(conn, run_dict(fast, medians=(1.2, 4.8)), "run")
    history.record_result(conn, run_dict(copy_of_fast, medians=(1.0, 4.0)), "rank")
    history.record_result(conn, run_dict(slow, medians=(3.0, 12.0)), "run")
    history.record_result(conn, run_dict(slow, verdict="wrong_answer"), "run")
    board = _leaderboard(conn)
    assert board["warnings"] == []
    rows = board["boards"][0]["rows"]
    assert [(Path(r["solution"]).name, r["rank"], r["runs"]) for r in rows] == [("renamed.py", 1, 2),
                                                                                 ("slow.py", 2, 1)]
    assert rows[0]["score_ms"] == pytest.approx(2.0) and rows[0]["vs_best"] == "best"
    assert rows[1]["ratio_to_best"] == pytest.approx(3.0)


def test_leaderboard_ranks_each_device_alone_and_warns(conn, tmp_path):
    a = _solution(tmp_path, "a.py", "# a\n")
    history.record_result(conn, run_dict(a, device="NVIDIA H200"), "run")
    history.record_result(conn, run_dict(a, device="NVIDIA H100 80GB HBM3", medians=(2.0, 8.0)), "run")
    board = _leaderboard(conn)
    assert [b["device"] for b in board["boards"]] == ["NVIDIA H100 80GB HBM3", "NVIDIA H200"]
    assert any("2 devices" in w for w in board["warnings"])
    only = _leaderboard(conn, device="h200")
    assert [b["device"] for b in only["boards"]] == ["NVIDIA H200"] and only["warnings"] == []


def test_leaderboard_warns_when_versions_or_cases_differ(conn, tmp_path):
    a, b = _solution(tmp_path, "a.py", "# a\n"), _solution(tmp_path, "b.py", "# b\n")
    history.record_result(conn, run_dict(a, torch="2.11.0"), "run")
    history.record_result(conn, run_dict(b, torch="2.12.0", cases=("a", "c")), "run")
    warnings = _leaderboard(conn)["warnings"]
    assert any("different torch versions" in w and "2.11.0 (1), 2.12.0 (1)" in w for w in warnings)
    assert any("different benchmark cases" in w for w in warnings)


def test_leaderboard_marks_ties(conn, tmp_path):
    a, b = _solution(tmp_path, "a.py", "# a\n"), _solution(tmp_path, "b.py", "# b\n")
    history.record_result(conn, run_dict(a, medians=(1.0, 4.0)), "run")
    history.record_result(conn, run_dict(b, medians=(1.005, 4.0)), "run")
    rows = _leaderboard(conn)["boards"][0]["rows"]
    assert [r["rank"] for r in rows] == [1, 1]
    assert rows[1]["tied_with"] == [str(a.resolve())]
