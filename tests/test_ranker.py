"""The GPU path of ``judge rank`` and ``judge sweep`` on a CPU machine.

The functional tests really run (Triton's interpreter, real workers); the
GPU-only pieces are replaced: the mode says "GPU", the peaks are made up,
and ``bench_case`` (the worker's timed calls) answers from a fake timing
source.  Everything between -- participants, rounds, pooling, the host-clock
cross-check, rates, the torch and copy-bound rows, ranking, JSON, console,
history, plot -- is the real code.
"""

from __future__ import annotations

import json
import re

import pytest

from judge.ranking import rank_runner as ranker

from judge.ranking import sweep as sweep_module
from judge.ranking.ranking_math import RoundPlan
from judge.report.console import make_console
from judge.report.ranking_tables import document_to_json, render_rank, render_sweep
from judge.judging.runner import Options
from judge.challenge.spec import load_spec
from judge.judging import benchmark_stage as benchmark
from judge.judging.verdict import Verdict

from conftest import EXAMPLES, SOLUTIONS, SPECS

TINY = load_spec(SPECS / "tiny_transpose.yaml")
PEAKS = {"copy_gbps": 1000.0, "fp32_tflops": 50.0, "tf32_tflops": 100.0, "cached": True}
TRUE_MS = {"transpose_ok.py": 1.0, "tiled.py": 2.0, "torch": 1.5, "tuned.py": 1.0}


class FakeBench:
    """Stands in for timing.benchmark.bench_case: k samples per request, no GPU."""

    def __init__(self, fail: str | None = None, fail_round: int = 1):
        self.requests = []
        self.fail, self.fail_round = fail, fail_round

    def __call__(self, calls, worker, case, check, rule=None):
        # Who is timed, from the file its worker runs: the solution's, or the baseline's torch_<challenge>.py.
        name = worker.solution.rsplit("/", 1)[-1]
        name = "torch" if name.startswith("torch_") else name
        self.requests.append((name, case.name, calls.seed, dict(rule), check))
        rounds_so_far = sum(1 for r in self.requests if r[0] == name and r[1] == case.name) - 1
        if name == self.fail and rounds_so_far == self.fail_round:
            raise benchmark.BenchFailure(Verdict.WRONG_ANSWER, "a timed call returned a wrong result: timed call 3")
        k = rule["max_calls"]
        base = TRUE_MS[name] * case.params["rows"] / 2048
        samples = [base * (1 + 0.001 * ((i * 7) % 5 - 2)) for i in range(k)]
        return benchmark.TimedRun(samples_ms=samples, audits=[[base + 0.01, base]], verified=3, stop_reason="max_calls")


@pytest.fixture
def fake_gpu(monkeypatch):
    fake = FakeBench(fail="tuned.py")
    monkeypatch.setattr(ranker, "detect_mode", lambda options: (False, "cpu"))
    monkeypatch.setattr(sweep_module, "detect_mode", lambda options: (False, "cpu"))
    monkeypatch.setattr("judge.timing.peaks.get_peaks", lambda *args, **kwargs: dict(PEAKS))
    monkeypatch.setattr(benchmark, "bench_case", fake)
    return fake


@pytest.mark.slow
def test_rank_times_accepted_solutions_in_interleaved_rounds(fake_gpu, tmp_path):
    paths = [str(SOLUTIONS / "transpose_ok.py"), str(EXAMPLES / "transpose" / "tiled.py"),
             str(EXAMPLES / "transpose" / "tuned.py")]
    plan = RoundPlan(budget_s=0.0, min_rounds=3)
    result = ranker.rank_solutions(TINY, paths, Options(seed=4, interpret=True), plan)
    doc = json.loads(document_to_json(result.as_dict()))

    # the rounds: every participant (torch too) in rotating order, same seed within a round
    names = [r[0] for r in fake_gpu.requests if r[1] == "square-2048"]
    assert names[:3] == ["transpose_ok.py", "tiled.py", "tuned.py"] and "torch" in names
    seeds = {}
    for name, _, seed, rule, check in fake_gpu.requests:
        seeds.setdefault(seed, set()).add(name)
        assert rule["min_calls"] == rule["max_calls"] and check == (name != "torch")
    assert len(seeds) == 3  # one seed per round
    assert doc["method"]["rounds"] == 3 and doc["method"]["stop_reason"] == "converged"  # ±0.2 % noise

    ranking = doc["ranking"]
    assert [(r["solution"].rsplit("/", 1)[-1], r["rank"], r["verdict"]) for r in ranking] == [
        ("transpose_ok.py", 1, "accepted"), ("tiled.py", 2, "accepted"),
        ("tuned.py", None, "wrong_answer")]
    assert ranking[0]["score_ms"] == pytest.approx(1.0, rel=0.01) and ranking[0]["ratio_to_best"] == 1.0
    assert ranking[1]["ratio_to_best"] == pytest.approx(2.0, rel=0.01)
    assert re.fullmatch(r"2\.000? ± 0\.\d+× slower than best", ranking[1]["vs_best"])
    assert "square-2048" in ranking[2]["reason"] and "timed call" in ranking[2]["reason"]
    case = ranking[0]["cases"][0]
    assert case["gbps"] == pytest.approx(2 * 2048 * 2048 * 4 / 1e-3 / 1e9, rel=0.01)
    assert case["vs_torch"] == "1.50× torch" and case["timer_trusted"] is True
    refs = {r["name"]: r for r in doc["references"]}
    assert refs["torch"]["ratio_to_best"] == pytest.approx(1.5, rel=0.01)
    assert refs["copy bound"]["score_ms"] == pytest.approx(2 * 2048 * 2048 * 4 / 1e12 * 1e3)
    assert not result.all_accepted

    # the per-solution results have judge run's shape, so history can record them
    ok = doc["results"][0]
    assert ok["benchmarks"][0]["calls"] == sum(r[3]["max_calls"] for r in fake_gpu.requests
                                               if r[0] == "transpose_ok.py")
    assert any("interleaved rounds" in n for n in ok["notes"])

    console = make_console(open(tmp_path / "out.txt", "w"), plain=True)
    render_rank(console, doc)
    console.file.close()
    text = (tmp_path / "out.txt").read_text()
    assert "2.00 ±" in text and "ref" in text and "copy bound" in text and "rejected (not ranked)" in text
    assert "2 of 3 solution(s) accepted" in text


@pytest.mark.slow
def test_sweep_gives_a_series_per_solution_with_rates(fake_gpu, tmp_path):
    sizes = sweep_module.parse_sizes("1024,2048", TINY)
    doc = sweep_module.sweep(TINY, [str(SOLUTIONS / "transpose_ok.py"), str(EXAMPLES / "transpose" / "tiled.py")],
                             Options(seed=2), sizes, budget_s=0.0)
    series = {s["name"].rsplit("/", 1)[-1]: s for s in doc["series"]}
    assert set(series) == {"transpose_ok.py", "tiled.py", "torch"}
    assert doc["metric"] == "gbps" and doc["peak"]["value"] == 1000.0
    assert [s["x"] for s in doc["sizes"]] == [1024, 2048]
    ok = series["transpose_ok.py"]["points"]
    assert ok[1]["rate"] == pytest.approx(2 * 2048 * 2048 * 4 / 1e-3 / 1e9, rel=0.01)
    assert ok[1]["rate_low"] < ok[1]["rate"] < ok[1]["rate_high"]
    console = make_console(open(tmp_path / "sweep.txt", "w"), plain=True)
    render_sweep(console, doc)
    console.file.close()
    assert "rows=2048, cols=2048" in (tmp_path / "sweep.txt").read_text()


def test_sweep_sizes():
    assert sweep_module.parse_sizes("16, rows=7:cols=9", TINY) == [{"rows": 16, "cols": 16}, {"rows": 7, "cols": 9}]
    for bad, words in [("0", "outside"), ("rows=3", "every size parameter"), ("x", "not an integer"),
                       ("", "empty"), ("9000", "outside")]:
        with pytest.raises(sweep_module.SweepUnavailable, match=words):
            sweep_module.parse_sizes(bad, TINY)
    defaults = sweep_module.default_sizes(TINY)
    assert [s["rows"] for s in defaults] == [256, 512, 1024, 2048, 4096, 8192]


def test_sweep_refuses_cpu_mode():
    with pytest.raises(sweep_module.SweepUnavailable, match="CPU mode"):
        sweep_module.sweep(TINY, ["x.py"], Options(interpret=True), [{"rows": 8, "cols": 8}])
