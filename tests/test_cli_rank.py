"""``judge rank``, ``judge sweep``, ``judge leaderboard``, ``judge history`` and
the recording of ``judge run``, through click's CliRunner.

The slow ones really judge through Triton's interpreter (CPU mode, tiny spec).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.history import store as history
from judge.cli import main
from judge.report.console import make_console
from judge.report.ranking_tables import render_rank

from conftest import SOLUTIONS, SPECS
from test_history import run_dict

TINY = str(SPECS / "tiny_transpose.yaml")
OK = str(SOLUTIONS / "transpose_ok.py")
WRONG = str(SOLUTIONS / "transpose_wrong_value.py")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def db_runs() -> list[dict]:
    conn = history.connect(history.default_db_path())
    try:
        return history.recent_runs(conn, limit=100)
    finally:
        conn.close()


@pytest.mark.slow
def test_rank_in_cpu_mode_ranks_by_correctness_and_records_history(tmp_path):
    result = invoke("rank", TINY, OK, WRONG, "--interpret", "--seed", 3, "--json")
    assert result.exit_code == 1, result.output  # one rejected
    doc = json.loads(result.stdout)
    assert doc["schema"] == 1 and doc["timed"] is False and doc["seed"] == 3
    first, second = doc["ranking"]
    assert {"solution", "rank", "verdict", "score_ms", "ratio_to_best"} <= set(first)
    assert (first["solution"], first["rank"], first["verdict"], first["score_ms"], first["ratio_to_best"]) == \
        (OK, 1, "accepted", None, None)
    assert (second["solution"], second["rank"], second["verdict"]) == (WRONG, None, "wrong_answer")
    assert "expected" in second["reason"] and "got" in second["reason"]
    assert any(note.startswith("CPU mode") and "correctness only" in note for note in doc["notes"])
    assert [r["seed"] for r in doc["results"]] == [3, 3]  # the same seed, so the same cases
    assert doc["results"][0]["tests"][0]["params"] == doc["results"][1]["tests"][0]["params"]

    runs = db_runs()
    assert [(r["command"], r["verdict"]) for r in reversed(runs)] == [("rank", "accepted"), ("rank", "wrong_answer")]
    assert len({r["batch"] for r in runs}) == 1 and runs[0]["batch"]

    path = tmp_path / "out.txt"
    with open(path, "w") as stream:
        render_rank(make_console(stream, plain=True), doc)
    text = path.read_text()
    assert "ranked by correctness only" in text and "rejected (not ranked)" in text
    assert "1 of 2 solution(s) accepted" in text and "note: CPU mode" in text

    board = invoke("leaderboard", "tiny_transpose")
    assert board.exit_code == 0 and "no accepted GPU results" in board.stdout
    assert "1 accepted CPU-mode run(s)" in board.stdout


@pytest.mark.slow
def test_run_records_its_result_and_survives_an_unwritable_database(tmp_path):
    result = invoke("run", TINY, OK, "--interpret", "--seed", 1)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    (row,) = db_runs()
    assert (row["command"], row["challenge"], row["verdict"], row["seed"]) == ("run", "tiny_transpose", "accepted", 1)
    assert row["solution_hash"] == history.file_hash(OK) and row["torch"] and row["triton"]

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    result = invoke("run", TINY, OK, "--interpret", "--seed", 1, "--json", "--db", blocker / "h.db")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["verdict"] == "accepted"  # the result is still printed, stdout stays JSON
    assert "warning: the result was not recorded" in result.stderr and "--no-history" in result.stderr
    assert len(db_runs()) == 1


def test_no_history_and_the_env_var(monkeypatch, tmp_path):
    from judge.history.recording import record_results

    solution = tmp_path / "k.py"
    solution.write_text("# k\n")
    assert record_results(None, True, "run", [run_dict(solution)]) is None
    assert not history.default_db_path().exists()
    monkeypatch.setenv("JUDGE_DB", str(tmp_path / "env.db"))
    assert record_results(None, False, "run", [run_dict(solution)]) is None
    assert (tmp_path / "env.db").exists()


# -- usage errors (exit 2, before judging anything) ------------------------------------
@pytest.mark.parametrize("args, words", [
    (["rank", TINY, "missing.py"], "solution file not found"),
    (["rank", TINY, OK, OK], "given twice"),
    (["rank", TINY, OK, "--interpret", "--plot", "x.png"], "CPU mode"),
    (["sweep", TINY, OK, "--interpret"], "CPU mode"),
    (["sweep", TINY, OK, "--interpret", "--sizes", "99999"], "outside"),
    (["rank", "no_such_challenge", OK], "no_such_challenge"),
])
def test_usage_errors(args, words):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_plot_without_matplotlib_says_which_extra(monkeypatch):
    """In GPU mode (this machine has none: detect_mode says so) --plot needs judge[plot]."""
    from judge.judging import runner

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr(runner, "detect_mode", lambda options: (False, "cuda:0"))
    result = invoke("rank", TINY, OK, "--plot", "x.png")
    assert result.exit_code == 2 and "pip install 'judge[plot]'" in result.output


@pytest.mark.parametrize("command", ["rank", "sweep"])
def test_plot_in_cpu_mode_says_cpu_mode_without_matplotlib_too(monkeypatch, command):
    """CPU mode has nothing to plot, matplotlib or not: that is what the user must change first.  The
    extra's check came first and told a user without judge[plot] to install it, for a plot CPU mode cannot
    draw (CI of 2026-12-02, a machine without matplotlib: test_usage_errors[args2-CPU mode])."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = invoke(command, TINY, OK, "--interpret", "--plot", "x.png")
    assert result.exit_code == 2 and "CPU mode" in result.output and "judge[plot]" not in result.output, \
        result.output


# -- leaderboard and history from a seeded database --------------------------------------
@pytest.fixture
def seeded(tmp_path):
    db = tmp_path / "seeded.db"
    fast, slow = tmp_path / "fast.py", tmp_path / "slow.py"
    fast.write_text("# fast\n")
    slow.write_text("# slow\n")
    conn = history.connect(db)
    history.record_result(conn, run_dict(fast, medians=(1.0, 4.0)), "rank")
    history.record_result(conn, run_dict(slow, medians=(3.0, 12.0)), "rank")
    history.record_result(conn, run_dict(fast, medians=(2.0, 8.0), device="NVIDIA H100"), "run")
    conn.close()
    return db


def test_leaderboard_json_and_table(seeded):
    result = invoke("leaderboard", "transpose", "--db", seeded, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    boards = {b["device"]: b["rows"] for b in doc["boards"]}
    assert [(Path(r["solution"]).name, r["rank"]) for r in boards["NVIDIA H200"]] == [("fast.py", 1), ("slow.py", 2)]
    assert boards["NVIDIA H200"][1]["ratio_to_best"] == pytest.approx(3.0)
    assert any("2 devices" in w for w in doc["warnings"])

    table = invoke("leaderboard", "transpose", "--db", seeded, "--device", "H200")
    assert table.exit_code == 0
    assert "fast.py" in table.stdout and "3.00 ± 0.06× slower than best" in table.stdout
    assert "NVIDIA H100" not in table.stdout and "warning" not in table.stdout


def test_leaderboard_and_history_without_a_database(tmp_path):
    result = invoke("leaderboard", "transpose", "--db", tmp_path / "none.db")
    assert result.exit_code == 0 and "no accepted GPU results" in result.stdout
    assert not (tmp_path / "none.db").exists()  # reading never creates a database
    result = invoke("history", "--db", tmp_path / "none.db")
    assert result.exit_code == 0 and "no runs recorded" in result.stdout


def test_unknown_challenge_without_history_is_a_usage_error(seeded, tmp_path):
    for command in ("leaderboard", "history"):
        result = invoke(command, "transpsoe", "--db", seeded)
        assert result.exit_code == 2, result.output
        assert "unknown challenge 'transpsoe'" in result.output and "transpose" in result.output


def test_a_retired_challenge_with_history_is_still_shown(tmp_path):
    db, solution = tmp_path / "old.db", tmp_path / "s.py"
    solution.write_text("# s\n")
    conn = history.connect(db)
    history.record_result(conn, run_dict(solution, challenge="retired_challenge"), "run")
    conn.close()
    for command in ("leaderboard", "history"):
        result = invoke(command, "retired_challenge", "--db", db)
        assert result.exit_code == 0 and "s.py" in result.stdout, result.output


def test_history_lists_recent_runs(seeded):
    result = invoke("history", "transpose", "--db", seeded, "--limit", 2, "--json")
    assert result.exit_code == 0
    runs = json.loads(result.stdout)["runs"]
    assert [r["device"] for r in runs] == ["NVIDIA H100", "NVIDIA H200"]
    table = invoke("history", "--db", seeded)
    assert "slow.py" in table.stdout and "accepted" in table.stdout


def test_the_test_suite_never_touches_the_real_data_dir():
    assert not os.environ["JUDGE_DATA_DIR"].startswith(str(Path.home() / ".local"))
