"""scripts/grade_timeline.py: where a grade's wall time went, per worker (read by
scripts/grade_cluster_gpu.sh after a GPU run: a wrong parse would waste that run)."""

from __future__ import annotations

import importlib.util

from conftest import ROOT

spec = importlib.util.spec_from_file_location("grade_timeline", ROOT / "scripts" / "grade_timeline.py")
grade_timeline = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade_timeline)


def _record(who: str, wall: float, worker: str | None, gpu: int | None, tests: float) -> dict:
    return {"submission": who, "challenge": "matmul", "wall_s": wall, "worker": worker, "gpu": gpu,
            "phases_s": {"start_worker": 3.0, "tests": tests}}


LOG = """   0.912 grading 3 submission(s) · GPU · seed 1 · on a local Dask cluster of 2 worker(s)
  15.500 [1/3] b · matmul: ACCEPTED (10.0 s, GPU 1, worker gpu1)
  21.000 [2/3] c · matmul: WRONG_ANSWER wrong_answer on edge-1 (M=1): 'C': · odd (5.0 s, GPU 1, worker gpu1)
  60.000 [3/3] a · matmul: ACCEPTED (55.0 s, GPU 0, worker gpu0)
  60.100  a | matmul | accepted | 24/24 |
"""


def test_a_run_is_split_into_ready_start_busy_idle_gaps_and_first_task_overheads():
    doc = {"results": [_record("a", 55.0, "gpu0", 0, 50.0), _record("b", 10.0, "gpu1", 1, 7.0),
                       _record("c", 5.0, "gpu1", 1, 2.0)]}
    serial = {"results": [_record("a", 52.0, None, 0, 47.5), _record("b", 8.0, None, 0, 5.0),
                          _record("c", 4.0, None, 0, 1.0)]}
    t = grade_timeline.timeline(doc, LOG, 61.0, serial)
    assert t["ready_s"] == 0.912 and t["first_start_s"] == 5.0 and t["last_end_s"] == 60.0
    gpu0, gpu1 = t["workers"]["gpu0"], t["workers"]["gpu1"]
    assert (gpu0["tasks"], gpu0["busy_s"], gpu0["idle_s"], gpu0["first_overhead_s"]) == (1, 55.0, 6.0, 3.0)
    assert (gpu1["tasks"], gpu1["busy_s"], gpu1["idle_s"], gpu1["gaps_s"]) == (2, 15.0, 46.0, 0.5)
    assert gpu1["first_task"] == "b" and gpu1["first_phase_deltas_s"] == {"start_worker": 0.0, "tests": 2.0}
    assert t["median_slowdown_later_tasks"] == 1.25  # c: 5.0 s against 4.0 s serially
    text = grade_timeline.render("local", t)
    assert "gpu1:  2 tasks, busy   15.0 s, idle  46.0 s" in text
    assert "(+2.0 s vs serial: start_worker +0.0, tests +2.0)" in text


def test_a_serial_run_has_one_worker_named_by_its_gpu_and_the_wall_line_parses():
    doc = {"results": [_record("a", 55.0, None, 0, 50.0)]}
    t = grade_timeline.timeline(doc, LOG, 61.0)
    assert list(t["workers"]) == ["GPU0"] and t["workers"]["GPU0"]["first_overhead_s"] is None
    assert grade_timeline.wall_of("scheduler (--cluster tcp://127.0.0.1:8786): exit 1, wall 90.3 s\n") == 90.3


def test_the_cpu_jobs_of_a_thread_pool_grade_are_told_apart_by_their_slot():
    """A --jobs 2 grade (grade_cluster_gpu.sh's pool part with GRADE_CPU=1) has no worker and no GPU in its
    records, only the slot (cpu0, cpu1): both jobs were one "here", busy for more than the wall time."""
    doc = {"results": [{**_record("b", 10.0, None, None, 7.0), "slot": "cpu0"},
                       {**_record("c", 5.0, None, None, 2.0), "slot": "cpu1"},
                       {**_record("a", 55.0, None, None, 50.0), "slot": "cpu1"}]}
    t = grade_timeline.timeline(doc, LOG, 61.0)
    assert sorted(t["workers"]) == ["cpu0", "cpu1"], t["workers"]
