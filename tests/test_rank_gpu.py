"""``judge rank`` and ``judge sweep`` for real: run on a CUDA machine with ``pytest -m gpu``."""

from __future__ import annotations

import pytest

from judge.ranking.rank_runner import rank_solutions
from judge.ranking.ranking_math import RoundPlan
from judge.judging.runner import Options
from judge.challenge.spec import load_spec
from judge.ranking.sweep import parse_sizes, sweep

from conftest import EXAMPLES, SOLUTIONS, SPECS

pytestmark = pytest.mark.gpu
TINY = load_spec(SPECS / "tiny_transpose.yaml")  # one benchmark: 2048 x 2048


def test_rank_orders_real_kernels_and_rejects_the_wrong_one():
    paths = [str(EXAMPLES / "transpose" / "naive_2d.py"), str(EXAMPLES / "transpose" / "tuned.py"),
             str(SOLUTIONS / "transpose_wrong_value.py")]
    result = rank_solutions(TINY, paths, Options(seed=1), RoundPlan(budget_s=3.0))
    doc = result.as_dict()
    ranked = [(s["solution"].rsplit("/", 1)[-1], s["rank"]) for s in doc["ranking"]]
    assert ranked == [("tuned.py", 1), ("naive_2d.py", 2), ("transpose_wrong_value.py", None)]
    assert doc["ranking"][1]["ratio_to_best"] > 5
    assert doc["method"]["rounds"] >= 3
    assert {r["name"] for r in doc["references"]} == {"torch", "copy bound"}
    case = doc["ranking"][0]["cases"][0]
    assert case["timer_trusted"] and case["gbps"] > 100 and case["calls"] >= 3 * 5
    assert not result.all_accepted


def test_sweep_gives_rates_at_every_size():
    doc = sweep(TINY, [str(EXAMPLES / "transpose" / "tuned.py")], Options(seed=1), parse_sizes("256,2048", TINY),
                budget_s=1.0)
    series = {s["name"].rsplit("/", 1)[-1]: s for s in doc["series"]}
    assert set(series) == {"tuned.py", "torch"}
    assert all(p["rate"] > 0 for p in series["tuned.py"]["points"])
    assert doc["peak"]["value"] > 100
