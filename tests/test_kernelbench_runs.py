"""KernelBench's generations layout and eval_results.json (judge/grading/kernelbench_runs.py): pure, from grade
records; tests/test_kernelbench_e2e.py grades a runs/ folder end to end."""

from __future__ import annotations

import json

from judge.grading.kernelbench_runs import eval_entry, eval_results, parse_generation


def test_generation_file_names_are_kernelbench_s():
    assert parse_generation("level_1_problem_19_sample_0_kernel.py") == (1, 19, 0)
    assert parse_generation("level_3_problem_7_sample_12_kernel.py") == (3, 7, 12)
    for other in ("level_1_problem_19_kernel.py", "19_ReLU.py", "level_1_problem_19_sample_0_kernel.cu"):
        assert parse_generation(other) is None


def _record(file: str, verdict: str, **extra) -> dict:
    tests = extra.pop("tests", [{"name": f"trial-{i}", "verdict": "accepted"} for i in range(1, 6)]
                      + [{"name": "signed", "verdict": verdict}])
    return {"file": file, "verdict": verdict, "message": f"{verdict} on signed: 'output': wrong", "tests": tests,
            "benchmarks": [], "device": "NVIDIA H200", "gpu": 0, "mode": "gpu", "seed": 1, **extra}


def test_a_timed_sample_has_kernelbench_s_runtime_and_stats_from_the_judge_s_median():
    timed = {"name": "performance", "verdict": "accepted", "median_ms": 1.2345, "mean_ms": 1.3, "min_ms": 1.2,
             "max_ms": 2.0, "calls": 30, "samples_ms": [1.2, 1.3, 1.4], "speedup_vs_torch": 2.5, "torch_median_ms": 3.1}
    entry = eval_entry(0, _record("runs/r/level_1_problem_19_sample_0_kernel.py", "accepted", benchmarks=[timed]))
    assert (entry["compiled"], entry["correctness"], entry["runtime"]) == (True, True, 1.2345)
    stats = entry["runtime_stats"]
    assert (stats["mean"], stats["min"], stats["max"], stats["num_trials"], stats["median"]) == (1.3, 1.2, 2.0, 30, 1.23)
    assert stats["std"] == float(f"{(sum((s - 1.3) ** 2 for s in (1.2, 1.3, 1.4)) / 3) ** 0.5:.3g}")
    assert entry["metadata"]["judge"]["speedup_vs_torch"] == 2.5 and entry["metadata"]["device"] == "cuda:0"
    json.dumps(entry)


def test_kernelbench_s_error_keys_say_why_a_sample_failed():
    wrong = eval_entry(0, _record("f", "wrong_answer"))
    assert (wrong["compiled"], wrong["correctness"], wrong["runtime"], wrong["runtime_stats"]) == (True, False, -1.0, {})
    assert wrong["metadata"]["correctness_issue_name"] == "correctness_issue"
    assert wrong["metadata"]["correctness_trials"] == "(5 / 5)" and wrong["metadata"]["judge_trials"] == "(5 / 6)"
    crashed = eval_entry(0, _record("f", "runtime_error"))
    assert crashed["compiled"] and crashed["metadata"]["runtime_error_name"] == "runtime_error"
    unbuilt = eval_entry(0, _record("f", "compile_error", tests=[], message="nvcc: error"))
    assert not unbuilt["compiled"] and unbuilt["metadata"]["compilation_error"] == "nvcc: error"


def test_eval_results_are_keyed_by_problem_id_in_numeric_order_with_samples_in_order():
    records = [_record("runs/r/level_1_problem_10_sample_1_kernel.py", "accepted"),
               _record("runs/r/level_1_problem_10_sample_0_kernel.py", "wrong_answer"),
               _record("runs/r/level_1_problem_9_sample_0_kernel.py", "accepted"),
               {"file": "runs/r/level_1_problem_8_sample_0_kernel.py", "verdict": "pending"},
               _record("elsewhere/19_ReLU.py", "accepted")]
    results = eval_results(records)
    assert list(results) == ["9", "10"]
    assert [s["sample_id"] for s in results["10"]] == [0, 1] and results["10"][1]["correctness"] is True
