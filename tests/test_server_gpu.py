"""The judge server on a GPU (``pytest -m gpu``): a served `judge run` judges and
times in a forked command and a forked worker (each makes its own CUDA context:
the server never touches the GPU); a kernel that never ends is stopped as
without the server, and the server serves the next command as if nothing happened."""

from __future__ import annotations

import json
import re

import pytest

from conftest import SOLUTIONS
from test_server import _judge, _log, served  # noqa: F401 - the module-scoped server fixture

pytestmark = pytest.mark.gpu


def test_a_served_gpu_run_is_judged_and_timed_in_forked_processes(served):  # noqa: F811
    done = _judge(served, "run", "transpose", "solutions/transpose/tuned.py", "--seed", "1", "--json",
                  "--bench-budget", "0.5")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["verdict"] == "accepted" and doc["mode"] == "gpu" and doc["benchmarks"]
    assert all(b["verdict"] == "accepted" and b["median_ms"] > 0 for b in doc["benchmarks"])
    assert re.search(r"worker pid \d+", _log(served))
    print("served gpu run:", json.dumps({"phases_s": doc["phases_s"],
                                         "medians_ms": [b["median_ms"] for b in doc["benchmarks"]]}))


def test_a_device_side_hang_in_a_served_run_does_not_harm_the_next(served):  # noqa: F811
    hung = _judge(served, "run", "transpose", str(SOLUTIONS / "hostile_device_loop.py"), "--seed", "1",
                  "--json", "--no-bench", "--timeout", "5")
    assert hung.returncode == 1 and json.loads(hung.stdout)["verdict"] == "time_limit_exceeded", hung.stdout[-800:]
    # its worker was forked (the line after the command's; the previous command's end may come between,
    # since a client has its exit status before the command's process has ended)
    assert "not used" not in hung.stderr and re.search(r"hostile_device_loop\.py.*?\n[^\n]*worker pid", _log(served), re.S)
    after = _judge(served, "run", "transpose", "solutions/transpose/tuned.py", "--seed", "2", "--json", "--no-bench")
    assert after.returncode == 0 and json.loads(after.stdout)["verdict"] == "accepted", after.stdout[-800:]
