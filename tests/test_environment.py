"""The judge's own environment (judge/base/environment.py): a module the worker imports before the
solution (torch, triton, numpy for Triton's interpreter) that is missing or broken is an internal error
naming it and how to install it (exit 3), never a verdict on the solution."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from judge.base import environment
from judge.base.environment import JudgeEnvironmentError, check_worker_modules

from conftest import ROOT, SOLUTIONS


def test_the_interpreter_needs_numpy_and_a_gpu_worker_does_not(monkeypatch):
    monkeypatch.setattr(environment.importlib.util, "find_spec", lambda name: None if name == "numpy" else object())
    check_worker_modules(interpret=False)
    with pytest.raises(JudgeEnvironmentError, match="importing numpy fails.*pip install numpy"):
        check_worker_modules(interpret=True)


def _judge(tmp_path, pythonpath: str, solution: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, JUDGE_SERVER="0", JUDGE_CACHE_DIR=str(tmp_path / "cache"),
               JUDGE_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=os.pathsep.join([pythonpath, str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "judge", "run", "transpose", solution, "--seed", "1"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


@pytest.mark.slow
def test_a_worker_without_numpy_is_the_judges_error_not_the_solutions(tmp_path):
    """A numpy the import path finds but that will not import (a missing one, as the minimal install had):
    the worker's own `import triton` fails in CPU mode.  It was RUNTIME_ERROR "the solution's process
    exited with status 1 during loading the solution", exit 1."""
    fake = tmp_path / "site" / "numpy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ModuleNotFoundError("No module named \'numpy\'", name="numpy")\n')
    done = _judge(tmp_path, str(tmp_path / "site"), str(SOLUTIONS / "transpose_ok.py"))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "importing numpy fails" in done.stderr and "pip install numpy" in done.stderr
    assert "not your solution" in done.stderr and "RUNTIME_ERROR" not in done.stdout


@pytest.mark.slow
def test_a_solution_that_claims_a_broken_environment_is_still_judged(tmp_path):
    done = _judge(tmp_path, str(tmp_path), str(SOLUTIONS / "hostile_forge_environment_error.py"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "RUNTIME_ERROR" in done.stdout and "importing numpy fails" not in done.stderr
