"""scripts/kernelbench_sweep.py (issue 47): its runs/ folder, its shard plan, its reasons and table; and, on the
CPU, three stand-in problems of KernelBench's format (two levels) through the judge's own
``grade --kernelbench-run``."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from conftest import ROOT

spec = importlib.util.spec_from_file_location("kernelbench_sweep", ROOT / "scripts" / "kernelbench_sweep.py")
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)

RELU = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


batch_size = 16
dim = 64


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
'''

LINEAR = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, out):
        super().__init__()
        self.linear = nn.Linear(features, out)

    def forward(self, x):
        return torch.tanh(self.linear(x))


batch_size = 8
features = 32
out = 16


def get_inputs():
    return [torch.rand(batch_size, features)]


def get_init_inputs():
    return [features, out]
'''


def _checkout(tmp_path):
    """A stand-in KernelBench checkout: KernelBench/level1 with two problems of its format, level2 with one."""
    level1, level2 = tmp_path / "kb" / "KernelBench" / "level1", tmp_path / "kb" / "KernelBench" / "level2"
    level1.mkdir(parents=True)
    level2.mkdir(parents=True)
    (level1 / "3_ReLU.py").write_text(RELU)
    (level1 / "12_LinearTanh.py").write_text(LINEAR)
    (level2 / "7_LinearTanh.py").write_text(LINEAR)
    return tmp_path / "kb"


def test_the_runs_folder_holds_each_problem_as_its_own_modelnew_in_kernelbench_s_names(tmp_path):
    checkout = _checkout(tmp_path)
    problems = sweep.chosen_problems(checkout, [1, 2], "", 0)
    assert [sweep.problem_key(p) for p in problems] == [(1, 3), (1, 12), (2, 7)]  # by id, not by name
    written = sweep.write_run(tmp_path / "run", problems)
    assert [w.name for w in written] == ["level_1_problem_3_sample_0_kernel.py",
                                         "level_1_problem_12_sample_0_kernel.py",
                                         "level_2_problem_7_sample_0_kernel.py"]
    text = written[0].read_text()
    assert text.startswith(RELU.rstrip("\n")) and text.rstrip().endswith("ModelNew = Model")
    namespace = {}
    exec(compile(text, "gen.py", "exec"), namespace)  # noqa: S102 - our own stand-in problem
    assert namespace["ModelNew"] is namespace["Model"]
    assert sweep.chosen_problems(checkout, [1], "ReLU", 0) == problems[:1]
    assert sweep.chosen_problems(checkout, [1, 2], "", 1) == [problems[0], problems[2]]


def test_the_shards_peaks_at_once_stay_within_the_budget_and_as_even_as_that_allows():
    even = {f"p{i}": 1.0 for i in range(12)}
    assert [len(s) for s in sweep.plan_shards(even, 6, 100.0)] == [2] * 6
    peaks = {"giant": 60.0, "big1": 30.0, "big2": 30.0, **{f"s{i}": 1.0 for i in range(9)}}
    plan = sweep.plan_shards(peaks, 4, 100.0)
    assert sum(peaks[shard[0]] for shard in plan) <= 100.0 and len(plan) <= 4
    assert plan[0][0] == "giant" and sorted(k for s in plan for k in s) == sorted(peaks)
    assert [len(s) for s in plan] == [3, 3, 3, 3]  # giant+big1+big2, then the small ones: 60 + 1 + 1 + 1
    tight = sweep.plan_shards(peaks, 4, 62.0)  # 60 + 1 + 1 + 1 > 62: fewer, longer shards
    assert [len(s) for s in tight] == [4, 4, 4] and sum(peaks[s[0]] for s in tight) == 62.0
    assert sweep.plan_shards({"huge": 500.0, "s": 1.0}, 4, 100.0) == [["huge", "s"]]  # over alone: one shard
    assert sweep.plan_shards({}, 4, 100.0) == []


def test_a_reason_names_memory_a_package_a_timeout_or_the_message_s_first_line():
    assert sweep.reason_of("runtime_error", "torch.OutOfMemoryError: CUDA out of memory. Tried") == "out of GPU memory"
    assert sweep.reason_of("runtime_error", "the judge ran out of GPU memory while checking") == "out of GPU memory"
    assert sweep.reason_of("cannot_load", "KernelBenchError: x.py needs the Python package 'einops', which is not "
                                          "installed") == "missing package einops"
    assert sweep.reason_of("runtime_error", "ModuleNotFoundError: No module named 'transformers.models'") == \
        "missing package transformers"
    assert sweep.reason_of("time_limit_exceeded", "") == "timeout"
    assert sweep.reason_of("wrong_answer", "\n  'output': 3 of 9 elements differ | more\nsecond") == \
        "'output': 3 of 9 elements differ / more"


def _grade(records):
    return {"results": [{"file": f"/r/shard_0/level_{lv}_problem_{i}_sample_0_kernel.py", "verdict": v, "message": m}
                        for lv, i, v, m in records]}


def test_the_table_counts_each_level_and_lists_every_problem_not_accepted():
    problems = {(1, 1): {"name": "1_A", "verdict": "not_reached", "reason": "not graded"},
                (1, 2): {"name": "2_B", "verdict": "not_reached", "reason": "not graded"},
                (1, 3): {"name": "3_C", "verdict": "not_reached", "reason": "not graded"},
                (4, 1): {"name": "1_gpt2", "verdict": "cannot_load", "reason": "missing package transformers"}}
    first = _grade([(1, 1, "accepted", "all 8 tests passed"), (1, 2, "runtime_error", "CUDA out of memory")])
    again = _grade([(1, 2, "accepted", "")])  # later documents win (the retry alone)
    rows = sweep.rows_from_grades(problems, [first])
    assert rows[(1, 2)]["reason"] == "out of GPU memory" and rows[(1, 3)]["verdict"] == "not_reached"
    rows = sweep.rows_from_grades(problems, [first, again])
    assert rows[(1, 2)]["verdict"] == "accepted" and problems[(1, 2)]["verdict"] == "not_reached"  # not mutated
    table = sweep.markdown(rows, [1, 4], "note")
    assert "| 1 | 3 | 2 | 0 | 0 | 1 |" in table and "| 4 | 1 | 0 | 0 | 1 | 0 |" in table
    assert "| 1 | 3_C | not_reached | not graded |" in table and "| 4 | 1_gpt2 | cannot_load | missing package " \
                                                                  "transformers |" in table
    assert "1_A" not in table and table.startswith("note\n")
    everything = sweep.markdown({(1, 1): {"name": "1_A", "verdict": "accepted"}}, [1])
    assert "Every problem's reference was accepted" in everything


def test_three_stand_in_problems_of_two_levels_are_accepted_through_judge_grade_on_the_cpu(tmp_path):
    """End to end on the CPU (about 10 s): the sweep describes, writes, grades (two shards) and tables; level 2's
    problem 7 is found by its level and id under --challenges-dir as level 1's are."""
    checkout = _checkout(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "JUDGE_SERVER": "0"}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "kernelbench_sweep.py"), str(checkout), "--levels",
                           "1,2", "--shards", "2", "--interpret", "--deadline", "120", "--out", str(out), "--json",
                           str(tmp_path / "s.json"), "--markdown", str(tmp_path / "s.md")],
                          capture_output=True, text=True, timeout=180, env=env, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    table = (tmp_path / "s.md").read_text()
    assert "| 1 | 2 | 2 | 0 | 0 | 0 |" in table and "| 2 | 1 | 1 | 0 | 0 | 0 |" in table, \
        table + (out / "shard_0.log").read_text()[-2000:]
    assert sorted(p.name for p in out.glob("shard_*/eval_results.json")) == ["eval_results.json"] * 2
