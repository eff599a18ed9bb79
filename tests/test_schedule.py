"""judge grade's start order (judge/grading/schedule.py) and its end-of-grade breakdown of where
the time went (judge/grading/breakdown.py), and how the console shows both: pure functions, made-up
entries, records and times (no worker, no clock, no torch).  tests/test_grade_order.py grades."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from judge.challenge.spec import load_spec
from judge.grading import schedule
from judge.grading.breakdown import Task, breakdown, task_of, worker_of
from judge.grading.schedule import Expected, History, expected_durations, fit_for_history, history_for, \
    machine_key, remembered, schedule_summary, sizes_seconds, start_order
from judge.report.grade_table import order_line, timing_lines

from conftest import CHALLENGES, SPECS

TINY = load_spec(SPECS / "tiny_transpose.yaml")
MATMUL = load_spec(CHALLENGES / "matmul.yaml")
COPY = load_spec(CHALLENGES / "copy.yaml")


@dataclass(frozen=True)
class Settings:  # the fields of GradeSettings that the sizes model reads
    interpret: bool = True
    benchmark: bool = True
    bench_budget_s: float = 2.0
    cpu_elements: int | None = None
    public_seed: int = 1


@dataclass(frozen=True)
class Snap:
    sha256: str


@dataclass(frozen=True)
class E:  # an Entry's fields that the schedule reads
    submission: str
    challenge: str
    spec_path: str | None
    problem: str = ""
    snapshot: Snap | None = None


SPECS_BY_PATH = {"tiny.yaml": TINY, "matmul.yaml": MATMUL, "copy.yaml": COPY}


def entry(who: str, spec_path: str | None, sha: str | None = None, problem: str = "") -> E:
    return E(who, spec_path or "?", spec_path, problem, Snap(sha) if sha else None)


def cache(machines: dict) -> dict:
    return {"version": schedule.HISTORY_VERSION, "seq": 9, "machines": machines}


# -- the order ----------------------------------------------------------------------------

def test_the_longest_expected_starts_first_ties_keep_plan_order_and_problems_come_first():
    expected = [Expected(0, 3.0, "sizes"), Expected(1, 9.0, "history"), Expected(2, 3.0, "sizes"),
                Expected(3, 0.0, "problem"), Expected(4, 9.0, "challenge")]
    assert [e.index for e in start_order(expected)] == [3, 1, 4, 0, 2]


def test_history_of_the_same_file_beats_the_challenges_median_which_beats_the_sizes():
    history = History({"tiny_transpose": {"aa": 30.0, "bb": 10.0, "cc": 20.0}})
    entries = [entry("a", "tiny.yaml", "bb"), entry("b", "tiny.yaml", "new"), entry("c", "copy.yaml", "aa"),
               entry("d", None, problem="unknown challenge")]
    got = expected_durations(entries, [0, 1, 2, 3], SPECS_BY_PATH, Settings(), history)
    assert [(e.index, e.source) for e in got] == [(0, "history"), (1, "challenge"), (2, "sizes"), (3, "problem")]
    assert got[0].seconds == 10.0 and got[1].seconds == 20.0 and got[3].seconds == 0.0
    # the sizes model, scaled by how this machine's tiny_transpose grades compare with the model's guess
    assert got[2].seconds == pytest.approx(sizes_seconds(COPY, Settings()) * 20.0 / sizes_seconds(TINY, Settings()))


def test_without_history_a_bigger_challenge_is_expected_longer_on_gpus_and_in_cpu_mode():
    gpu = Settings(interpret=False)
    assert sizes_seconds(MATMUL, gpu) > sizes_seconds(COPY, gpu)  # 1e12 flops in its tests
    wide = replace(TINY, interpret_max={"rows": 48, "cols": 48})
    assert sizes_seconds(wide, Settings()) > sizes_seconds(TINY, Settings())  # more elements, more cases
    budget = sizes_seconds(MATMUL, replace(gpu, bench_budget_s=5.0)) - sizes_seconds(MATMUL, gpu)
    assert budget == pytest.approx(3.0 * len(MATMUL.benchmarks))
    assert sizes_seconds(MATMUL, replace(gpu, benchmark=False)) < sizes_seconds(MATMUL, gpu)
    order = start_order(expected_durations([entry("c", "copy.yaml"), entry("m", "matmul.yaml")], [0, 1],
                                           SPECS_BY_PATH, gpu, History({})))
    assert [(e.index, e.source) for e in order] == [(1, "sizes"), (0, "sizes")]


def test_two_spec_files_of_one_name_are_estimated_each_from_its_own_sizes():
    wide = replace(TINY, interpret_max={"rows": 48, "cols": 48})  # the same name, tiny_transpose
    got = expected_durations([entry("a", "tiny.yaml"), entry("b", "wide.yaml")], [0, 1],
                             {**SPECS_BY_PATH, "wide.yaml": wide}, Settings(), History({}))
    assert got[1].seconds > got[0].seconds == sizes_seconds(TINY, Settings())


def test_a_spec_without_sizes_is_estimated_by_its_count_of_cases():
    """A LeetGPU folder's tests are unknown until its generators run; a spec whose cases cannot be
    generated counts its explicit tests.  Neither stops the grade."""
    shipped = replace(TINY, sizes={})
    object.__setattr__(shipped, "shipped", True)  # as LeetGpuSpec says (a class attribute there)
    assert sizes_seconds(shipped, Settings()) == pytest.approx(schedule.START_S + schedule.SHIPPED_TESTS * schedule.CASE_S)
    broken = replace(TINY, interpret_max={})  # no CPU-mode caps: generate_cases raises KeyError
    assert sizes_seconds(broken, Settings()) == pytest.approx(schedule.START_S + (len(TINY.tests) + TINY.random_tests)
                                                              * schedule.CASE_S)


def test_the_schedule_lists_every_entry_in_start_order():
    entries = [entry("alice", "tiny.yaml"), entry("bob", "matmul.yaml")]
    order = [Expected(1, 57.123, "history"), Expected(0, 2.0, "sizes")]
    assert schedule_summary(order, entries) == {"by": "longest expected first", "order": [
        {"submission": "bob", "challenge": "matmul.yaml", "expected_s": 57.12, "expected_from": "history"},
        {"submission": "alice", "challenge": "tiny.yaml", "expected_s": 2.0, "expected_from": "sizes"}]}


# -- the history cache's contents ---------------------------------------------------------------

def _record(who="a", sha="s1", wall=5.0, spec="tiny_transpose", **more) -> dict:
    return {"submission": who, "challenge": spec, "spec": spec, "sha256": sha, "wall_s": wall,
            "verdict": "accepted", "device": "NVIDIA H200", **more}


@pytest.mark.parametrize("junk", [None, [], "x", {"version": 2, "machines": {}}, {"version": 1, "machines": []},
                                  cache({"gpu": []}), cache({"gpu": {"challenges": {"t": {"s": "fast"}}}}),
                                  cache({"gpu": {"challenges": {"t": {"s": -1, "z": True}}}})])
def test_a_corrupt_or_foreign_cache_is_no_history(junk):
    assert history_for(junk, "gpu").challenges == {}
    machines = remembered(junk, [_record()], "gpu")["machines"]
    assert {key: m["challenges"] for key, m in machines.items()} == {"gpu · NVIDIA H200": {"tiny_transpose": {"s1": 5.0}}}


def test_only_this_modes_durations_count_and_the_latest_gpu_wins_a_disagreement():
    data = cache({"interpret": {"seq": 5, "challenges": {"t": {"s1": 2.0}}},
                  "gpu · NVIDIA H200": {"seq": 7, "challenges": {"t": {"s1": 11.0}}},
                  "gpu · NVIDIA H100": {"seq": 3, "challenges": {"t": {"s1": 13.0, "s2": 4.0}}}})
    assert history_for(data, "interpret").challenges == {"t": {"s1": 2.0}}
    assert history_for(data, "gpu").challenges == {"t": {"s1": 11.0, "s2": 4.0}}
    assert machine_key("gpu") == "gpu" and machine_key("interpret", "cpu") == "interpret"


def test_carried_over_internal_errors_pending_and_records_without_judging_are_not_remembered():
    records = [_record("kept"), _record("resumed", "s2", carried_over=True), _record("died", "s3", internal_error=True),
               _record("invalid", "s4", wall=0.0), _record("nosha", None), _record("nospec", "s5", spec=None),
               _record("pending", "s6", verdict="pending")]
    assert [r["submission"] for r in records if fit_for_history(r)] == ["kept"]
    machines = remembered({}, records, "gpu")["machines"]
    assert machines == {"gpu · NVIDIA H200": {"seq": 1, "challenges": {"tiny_transpose": {"s1": 5.0}}}}


def test_a_regraded_solution_moves_last_and_the_oldest_beyond_the_cap_are_dropped(monkeypatch):
    monkeypatch.setattr(schedule, "MAX_PER_CHALLENGE", 3)
    data = remembered({}, [_record(sha=s, wall=w) for s, w in (("a", 1.0), ("b", 2.0), ("c", 3.0))], "interpret")
    data = remembered(data, [_record(sha="a", wall=1.5), _record(sha="d", wall=4.0)], "interpret")
    assert data["seq"] == 2 and data["machines"]["interpret"]["seq"] == 2
    assert data["machines"]["interpret"]["challenges"]["tiny_transpose"] == {"c": 3.0, "a": 1.5, "d": 4.0}
    assert history_for(data, "interpret").seconds("tiny_transpose", "zz") == (3.0, "challenge")


# -- where the time went --------------------------------------------------------------------------

def test_two_slots_critical_path_ideal_efficiency_busy_idle_and_start_up():
    tasks = [Task("alice · matmul", "gpu0", 57.0, 58.5),  # started at 1.5 s: the start-up
             Task("bob · copy", "gpu1", 10.0, 12.0), Task("carol · copy", "gpu1", 8.0, 20.5),
             Task("dave · copy", "gpu1", 9.0, 30.0)]
    spent = breakdown(tasks, 60.0, ["gpu0", "gpu1", "gpu2"])
    assert spent.longest.name == "alice · matmul" and spent.slots == 3 and spent.startup_s == 1.5
    assert spent.ideal_s == 57.0  # the critical path: 84 s over three GPUs would be 28 s
    assert spent.efficiency == pytest.approx(0.95)
    assert [(w.name, w.busy_s, w.idle_s, w.tasks) for w in spent.workers] == [
        ("gpu0", 57.0, 3.0, 1), ("gpu1", 27.0, 33.0, 3), ("gpu2", 0.0, 60.0, 0)]
    assert spent.as_json() == {
        "wall_s": 60.0, "slots": 3, "startup_s": 1.5, "critical_path": {"name": "alice · matmul", "worker": "gpu0",
                                                                          "wall_s": 57.0},
        "ideal_s": 57.0, "efficiency": 0.95, "workers": [
            {"name": "gpu0", "busy_s": 57.0, "idle_s": 3.0, "tasks": 1},
            {"name": "gpu1", "busy_s": 27.0, "idle_s": 33.0, "tasks": 3},
            {"name": "gpu2", "busy_s": 0.0, "idle_s": 60.0, "tasks": 0}]}


def test_the_ideal_is_the_even_split_when_no_judgement_dominates_and_a_serial_grade_is_busy_over_wall():
    even = breakdown([Task(f"s{i}", f"cpu{i % 2}", 10.0, 10.0 * (i // 2 + 1)) for i in range(6)], 40.0, ["cpu0", "cpu1"])
    assert even.ideal_s == 30.0 and even.efficiency == 0.75 and even.startup_s == 0.0
    serial = breakdown([Task("a", "cpu0", 4.0, 5.0), Task("b", "cpu0", 2.0, 7.5)], 8.0, ["cpu0"])
    assert serial.ideal_s == 6.0 and serial.efficiency == 0.75 and serial.workers[0].idle_s == 2.0


def test_a_clusters_workers_are_those_seen_and_nothing_judged_is_no_breakdown():
    records = [{"submission": "a", "challenge": "t", "wall_s": 3.0, "worker": "node1-gpu0", "gpu": 0},
               {"submission": "b", "challenge": "t", "wall_s": 5.0, "worker": "node2-gpu0", "gpu": 0}]
    spent = breakdown([task_of(r, at) for r, at in zip(records, (4.0, 6.0))], 6.5, [])
    assert [w.name for w in spent.workers] == ["node1-gpu0", "node2-gpu0"] and spent.slots == 2
    assert breakdown([], 3.0, ["cpu0"]) is None
    assert [worker_of(r) for r in ({"slot": "cpu1", "gpu": None}, {"gpu": 2}, {})] == ["cpu1", "gpu2", "here"]


# -- on the console ----------------------------------------------------------------------------------

def test_the_order_line_names_the_first_few_and_leaves_out_what_is_not_judged():
    order = [{"submission": "frank", "challenge": "t", "expected_s": 0.0, "expected_from": "problem"}] + [
        {"submission": w, "challenge": "matmul", "expected_s": s, "expected_from": f}
        for w, s, f in (("alice", 57.1, "history"), ("bob", 12.0, "challenge"), ("[x]", 2.55, "sizes"), ("d", 1.0, "sizes"))]
    line = order_line({"by": "longest expected first", "order": order})
    assert line == ("order: longest expected first — 1. alice · matmul (~57 s, history), 2. bob · matmul "
                    "(~12 s, challenge), 3. \\[x] · matmul (~2.5 s, sizes), … 1 more")  # markup escaped
    assert order_line({"by": "longest expected first", "order": order[:2]}) is None  # one to judge: no order
    assert order_line(None) is None


def test_the_timing_lines_say_wall_critical_path_ideal_efficiency_and_each_slot():
    timing = {**breakdown([Task("alice · matmul", "gpu0", 57.1, 58.0), Task("bob · copy", "gpu1", 17.9, 20.0)],
                          86.3, ["gpu0", "gpu1"]).as_json(), "slot_kind": "GPU"}
    assert timing_lines(timing) == [
        "time: 86.3 s wall · critical path 57.1 s (alice · matmul) · ideal for 2 GPUs 57.1 s · efficiency 66 % · "
        "start-up 0.9 s",
        "  gpu0: busy 57.1 s, idle 29.2 s (1 task)", "  gpu1: busy 17.9 s, idle 68.4 s (1 task)"]
    assert timing_lines(None) == []


def test_the_time_line_never_shows_the_ideal_or_a_busy_time_below_the_critical_path():
    """The ideal is at least the critical path, and a worker's busy time at least its longest judgement;
    seconds rounded to 0.01 and then shown to 0.1 read 3.254 s as "3.2 s" beside the critical path's
    "3.3 s" (a grade of two submissions on a local cluster, its ideal and busy 3.25 s)."""
    spent = breakdown([Task("a · t", "cpu0", 3.254, 13.36), Task("b · t", "cpu1", 3.183, 13.3)], 13.5, [])
    line, *workers = timing_lines({**spent.as_json(), "slot_kind": "Dask worker"})
    assert "critical path 3.3 s" in line and "ideal for 2 Dask workers 3.3 s" in line, line
    assert workers[0] == "  cpu0: busy 3.3 s, idle 10.2 s (1 task)", workers


def test_a_non_finite_duration_in_the_cache_is_no_history():
    """json reads Infinity (a hand-edited or foreign cache): kept, it ranked first, scaled every estimate from
    sizes to infinity, and was written back as the non-JSON Infinity at the grade's end."""
    cache = {"version": 1, "seq": 1, "machines": {"gpu": {"seq": 1, "challenges": {
        "matmul": {"a": float("inf"), "b": 4.0}, "copy": {"c": float("inf")}}}}}
    assert history_for(cache, "gpu").challenges == {"matmul": {"b": 4.0}}
    assert "copy" not in schedule.remembered(cache, [], "gpu")["machines"]["gpu"]["challenges"]
