"""judge grade's start order and end-of-grade time lines, through the session and the CLI: the
durations cache (judge/grading/durations.py) on disk, a session timed by a fake clock with a fake
judge, one real CPU-mode grade, and two fake grades where the first's durations reorder the second.
The pure parts are tests/test_schedule.py's."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from functools import partial

import pytest
from click.testing import CliRunner

from judge.challenge.catalog import SearchPath
from judge.cli import main
from judge.grading import durations, session as grade_session
from judge.grading.outputs import GradeOutputs
from judge.grading.plan import load_specs, plan_entries
from judge.grading.records import GradeSettings, grade_document, problem_record
from judge.grading.session import GradeSession, slot_names
from judge.report.console import make_console

from conftest import ROOT, SOLUTIONS, SPECS

SETTINGS = GradeSettings(public_seed=1, interpret=True)


@pytest.fixture
def history(tmp_path, monkeypatch):
    """The durations cache on, in a cache folder of this test's own (conftest turns it off)."""
    monkeypatch.delenv(durations.HISTORY_ENV, raising=False)
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / durations.FILE


def _record(who: str, sha: str, wall: float) -> dict:
    return {"submission": who, "challenge": "t", "spec": "t", "sha256": sha, "wall_s": wall, "verdict": "accepted",
            "device": "cpu (Triton interpreter)"}


# -- the cache on disk ------------------------------------------------------------------------

@pytest.mark.parametrize("contents", [b"", b"\x00\xff not json", b"[1, 2]", b'{"version": 1, "machines": 7}'])
def test_a_missing_or_corrupt_cache_is_no_history_and_the_next_grade_rewrites_it(history, contents):
    assert durations.load_history("interpret").challenges == {}  # missing
    history.parent.mkdir(parents=True)
    history.write_bytes(contents)
    assert durations.load_history("interpret").challenges == {}
    durations.remember([_record("a", "s1", 2.5)], "interpret")
    assert durations.load_history("interpret").seconds("t", "s1") == (2.5, "history")


def test_judge_grade_history_0_neither_reads_nor_writes_it(history, monkeypatch):
    durations.remember([_record("a", "s1", 2.5)], "interpret")
    monkeypatch.setenv(durations.HISTORY_ENV, "0")
    assert durations.load_history("interpret").challenges == {}
    durations.remember([_record("b", "s2", 3.5)], "interpret")
    assert list(json.loads(history.read_text())["machines"]["interpret"]["challenges"]["t"]) == ["s1"]


def test_grades_ending_at_once_keep_each_others_durations(history):
    """Four processes remember 30 durations each, one at a time, all at once: the lock and the atomic
    rename keep all 120 (a read-modify-write without the lock loses some)."""
    code = ("import sys\nfrom judge.grading.durations import remember\n"
            "for i in range(30):\n"
            "    remember([{'spec': 't', 'sha256': f'{sys.argv[1]}-{i}', 'wall_s': 1.0 + i, 'device': 'x'}], 'gpu')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(n)], env=env) for n in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    assert len(durations.load_history("gpu").challenges["t"]) == 120


# -- the session, on a fake clock ---------------------------------------------------------------------

class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _folder(tmp_path, names: list[str]):
    for n, who in enumerate(names):
        (tmp_path / "subs" / who).mkdir(parents=True)
        # different bytes, so different sha256: each its own history
        (tmp_path / "subs" / who / "tiny_transpose.py").write_text(f"# {who}\n" + (SOLUTIONS / "transpose_ok.py").read_text())
    (tmp_path / "subs" / "zed").mkdir()
    (tmp_path / "subs" / "zed" / "transpos.py").write_text("def solve(): pass\n")  # an unknown challenge
    entries = plan_entries(None, (), None, str(tmp_path / "subs"), lambda: SearchPath(user_dirs=(SPECS,)), print)
    return entries, load_specs(entries)


def _fake_judge(clock: FakeClock, walls: dict, started: list, gap_s: float = 0.5, stop_at: str | None = None):
    """A judge_entry that takes ``walls[who]`` seconds of the fake clock after a ``gap_s`` (the slot waiting),
    names what it started, and raises KeyboardInterrupt (Ctrl-C) when it starts ``stop_at``."""
    def judge(entry, spec, key, settings, device, cancel=None, note=None):
        if entry.problem or spec is None:
            return problem_record(entry, key, settings)
        started.append(entry.submission)
        if entry.submission == stop_at:
            raise KeyboardInterrupt
        clock.now += gap_s + walls[entry.submission]
        return {**problem_record(entry, key, settings), "verdict": "accepted", "wall_s": walls[entry.submission],
                "spec": spec.name, "sha256": entry.snapshot.sha256, "device": "cpu (Triton interpreter)"}
    return judge


def _session(entries, specs, clock, previous=None) -> GradeSession:
    return GradeSession(entries, specs, SETTINGS, GradeOutputs(None, None, None, print),
                        make_console(io.StringIO(), plain=True), previous, clock=clock)


def test_a_serial_session_times_start_up_busy_and_idle_on_its_clock(tmp_path, monkeypatch, history):
    entries, specs = _folder(tmp_path, ["alice", "bob"])
    clock, started = FakeClock(), []
    monkeypatch.setattr(grade_session, "judge_entry", _fake_judge(clock, {"alice": 2.0, "bob": 5.0}, started))
    session = _session(entries, specs, clock)
    assert session.run(partial(session.grade_here, [None])) is True
    assert started == ["alice", "bob"]  # no history: equal sizes keep plan order
    timing = session.meta["timing"]
    assert timing == {"wall_s": 8.0, "slots": 1, "startup_s": 0.5, "critical_path": {
        "name": "bob · tiny_transpose", "worker": "cpu0", "wall_s": 5.0}, "ideal_s": 7.0, "efficiency": 0.875,
        "workers": [{"name": "cpu0", "busy_s": 7.0, "idle_s": 1.0, "tasks": 2}], "slot_kind": "CPU job"}
    doc = session.document()
    assert [(r["submission"], r.get("slot"), r["expected_from"]) for r in doc["results"]] == [
        ("alice", "cpu0", "sizes"), ("bob", "cpu0", "sizes"), ("zed", None, "problem")]
    assert [e["submission"] for e in doc["schedule"]["order"]] == ["zed", "alice", "bob"]

    clock2, started2 = FakeClock(), []  # a second grade: bob took longer, so he starts first
    monkeypatch.setattr(grade_session, "judge_entry", _fake_judge(clock2, {"alice": 2.0, "bob": 5.0}, started2))
    again = _session(entries, specs, clock2)
    again.run(partial(again.grade_here, [None]))
    assert started2 == ["bob", "alice"]
    assert [(e["submission"], e["expected_s"], e["expected_from"]) for e in again.meta["schedule"]["order"]] == [
        ("zed", 0.0, "problem"), ("bob", 5.0, "history"), ("alice", 2.0, "history")]


def test_an_interrupted_session_times_what_was_judged_and_remembers_nothing_carried_over(tmp_path, monkeypatch,
                                                                                        history):
    entries, specs = _folder(tmp_path, ["alice", "bob", "carol"])
    clock, started = FakeClock(), []
    monkeypatch.setattr(grade_session, "judge_entry", _fake_judge(clock, {"alice": 1.0, "bob": 1.0}, started,
                                                                  stop_at="carol"))
    session = _session(entries, specs, clock)
    assert session.run(partial(session.grade_here, [None])) is False
    assert session.meta["timing"]["workers"] == [{"name": "cpu0", "busy_s": 2.0, "idle_s": 1.0, "tasks": 2}]
    cached = history.read_text()

    # --resume: alice and bob carried over, carol judged; their durations are not remembered again
    previous = grade_document(entries, session.records, SETTINGS, session.meta)
    clock2 = FakeClock()
    monkeypatch.setattr(grade_session, "judge_entry", _fake_judge(clock2, {"carol": 4.0}, []))
    resumed = _session(entries, specs, clock2, previous=json.loads(json.dumps(previous)))
    resumed.run(partial(resumed.grade_here, [None, None]))
    assert [e["submission"] for e in resumed.meta["schedule"]["order"]] == ["zed", "carol"]
    timing = resumed.meta["timing"]
    assert [w["name"] for w in timing["workers"]] == ["cpu0", "cpu1"]  # each slot, the idle one too
    assert sorted(w["tasks"] for w in timing["workers"]) == [0, 1]
    assert timing["critical_path"]["name"] == "carol · tiny_transpose"
    machines = json.loads(history.read_text())["machines"]
    assert json.loads(cached)["machines"]["interpret"]["seq"] == 1 and machines["interpret"]["seq"] == 2
    assert sorted(machines["interpret"]["challenges"]["tiny_transpose"].values()) == [1.0, 1.0, 4.0]


def test_slots_are_named_like_the_local_clusters_workers():
    assert slot_names([None, None], True) == ["cpu0", "cpu1"]
    assert slot_names(["cuda:1", "cuda:3"], False) == ["gpu1", "gpu3"]
    assert slot_names([None], False) == ["gpu"]


# -- the command ---------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_real_grade_shows_its_order_and_where_the_time_went(tmp_path, history):
    """Two submissions on two CPU jobs, and one that is not judged: the order line, the time lines after
    the table, the JSON's schedule, timing, expected_s and slot, and the cache written from the records."""
    subs = tmp_path / "subs"
    for who, name in (("alice", "transpose_ok.py"), ("bob", "transpose_crash.py")):
        (subs / who).mkdir(parents=True)
        (subs / who / "tiny_transpose.py").write_text((SOLUTIONS / name).read_text())
    (subs / "zed").mkdir()
    (subs / "zed" / "transpos.py").write_text("def solve(): pass\n")
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["--challenges-dir", str(SPECS), "grade", "--dir", str(subs), "--seed", "1",
                                       "--jobs", "2", "--json", str(out)], env={"NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    doc = json.loads(out.read_text())
    judged = [r for r in doc["results"] if r["submission"] != "zed"]
    order = next(line for line in result.output.splitlines() if line.startswith("order: "))
    assert order.startswith("order: longest expected first — 1. alice · tiny_transpose (~")
    assert ", sizes), 2. bob · tiny_transpose (~" in order and order.endswith(", sizes)")  # zed is not judged
    assert doc["schedule"]["by"] == "longest expected first"
    assert [(e["submission"], e["expected_from"]) for e in doc["schedule"]["order"]] == [
        ("zed", "problem"), ("alice", "sizes"), ("bob", "sizes")]
    assert all(r["expected_s"] > 0 and r["expected_from"] == "sizes" for r in judged)
    assert all(r["slot"] in ("cpu0", "cpu1") for r in judged)
    timing = doc["timing"]
    longest = max(judged, key=lambda r: r["wall_s"])
    assert timing["critical_path"] == {"name": f"{longest['submission']} · tiny_transpose", "worker": longest["slot"],
                                       "wall_s": longest["wall_s"]}
    assert timing["slots"] == 2 and timing["slot_kind"] == "CPU job"
    assert sum(w["tasks"] for w in timing["workers"]) == 2
    assert sum(w["busy_s"] for w in timing["workers"]) == pytest.approx(sum(r["wall_s"] for r in judged), abs=0.02)
    assert timing["wall_s"] >= timing["critical_path"]["wall_s"] and 0 < timing["efficiency"] <= 1.0
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("time: "))
    assert lines[at] == (f"time: {timing['wall_s']:.1f} s wall · critical path {timing['critical_path']['wall_s']:.1f} s "
                         f"({longest['submission']} · tiny_transpose) · ideal for 2 CPU jobs {timing['ideal_s']:.1f} s "
                         f"· efficiency {timing['efficiency'] * 100:.0f} % · start-up {timing['startup_s']:.1f} s")
    assert [line.split(":")[0] for line in lines[at + 1:at + 3]] == ["  cpu0", "  cpu1"]
    assert "zed" in "\n".join(lines[:at]) and lines[at + 3].startswith("1 of 3 accepted")  # after the table
    remembered = json.loads(history.read_text())["machines"]["interpret"]["challenges"]["tiny_transpose"]
    assert remembered == {r["sha256"]: r["wall_s"] for r in judged}


def test_the_durations_of_one_grade_reorder_the_next(tmp_path, monkeypatch, history):
    """Through the command: alice, bob, carol start in plan order the first time (one challenge, no
    history); the second grade starts bob (3 s last time), carol (2 s), then alice (1 s), and says so."""
    entries_dir = tmp_path / "subs"
    for who in ("alice", "bob", "carol"):
        (entries_dir / who).mkdir(parents=True)
        (entries_dir / who / "tiny_transpose.py").write_text(f"# {who}\n" + (SOLUTIONS / "transpose_ok.py").read_text())
    walls = {"alice": 1.0, "bob": 3.0, "carol": 2.0}

    def grade() -> tuple[list, str]:
        started = []
        monkeypatch.setattr(grade_session, "judge_entry", _fake_judge(FakeClock(), walls, started))
        result = CliRunner().invoke(main, ["--challenges-dir", str(SPECS), "grade", "--dir", str(entries_dir),
                                           "--seed", "1", "--json", "-"], env={"NO_COLOR": "1"})
        assert result.exit_code == 0, result.output
        return started, result.stderr

    first, _ = grade()
    assert first == ["alice", "bob", "carol"]
    second, console = grade()
    assert second == ["bob", "carol", "alice"]
    assert ("order: longest expected first — 1. bob · tiny_transpose (~3.0 s, history), 2. carol · tiny_transpose "
            "(~2.0 s, history), 3. alice · tiny_transpose (~1.0 s, history)") in console


def test_cluster_lines_naming_workers_are_printed_as_plain_text(tmp_path, monkeypatch, history):
    """A worker's name is the user's (judge worker --name, dask worker --name): printed with rich's
    markup, "x[/y]" in the cluster's ready line raised MarkupError and ended the grade."""
    from contextlib import contextmanager

    from judge.grading import cluster

    entries, specs = _folder(tmp_path, ["ann"])
    out = io.StringIO()
    session = GradeSession(entries, specs, SETTINGS, GradeOutputs(None, None, None, print),
                           make_console(out, plain=True), None, clock=FakeClock())

    @contextmanager
    def connect(address, gpus, jobs, interpret, say):
        say(cluster.ready_line(["x[/y]"], 0.1, False))
        yield None

    monkeypatch.setattr(cluster, "connect", connect)
    monkeypatch.setattr(cluster, "grade_on_cluster", lambda client, work, settings, done, say=None: say("[/z] left"))
    session.grade_on_cluster("tcp://sched:8786", None, 0, [0])
    assert "(x[/y])" in out.getvalue() and "[/z] left" in out.getvalue()
