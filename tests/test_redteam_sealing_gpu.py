"""Issue 38 on a GPU: the worker's namespaces, dropped capabilities, read-only mounts and seccomp's allow-list
hold with CUDA, Triton's compiler and launcher builds, and nvcc's tools (each nvcc step runs under the same
allow-list); the red team's classes that a GPU run could differ on.  CPU-mode twins: test_redteam_sealing.py."""

from __future__ import annotations

import pytest

from judge.challenge.catalog import load_challenge
from judge.judging.verdict import Verdict

from conftest import EXAMPLES, SOLUTIONS
from test_gpu import run

pytestmark = pytest.mark.gpu

SEALED = {"namespaces": "on", "read_only": "on", "capabilities": "dropped", "no_new_privs": "on",
          "seccomp": "on (allow-list)"}


def _assert_sealed(result) -> None:
    protections = result.environment["protections"]
    for name, start in SEALED.items():
        assert protections[name].startswith(start), (name, protections)
    assert protections["landlock"].startswith(("on", "partial")), protections
    assert result.sealed is True


@pytest.mark.parametrize("challenge, example", [("transpose", "transpose/tiled.py"), ("transpose", "transpose/tiled.cu"),
                                                ("matmul", "matmul/tiled.py")])
def test_a_gpu_worker_is_sealed_and_judges_as_before(challenge, example):
    """Triton kernels compiled (launchers built with gcc, ptxas) and a CUDA C++ solution built with nvcc (each
    step under the allow-list) and run, all inside the worker's namespaces with no capability left."""
    result = run(load_challenge(challenge), EXAMPLES / example)
    assert result.verdict == Verdict.ACCEPTED, result.message
    _assert_sealed(result)
    assert result.benchmarks and result.benchmarks[0]["median_ms"] > 0


def test_root_powers_are_gone_in_a_gpu_worker():
    result = run(load_challenge("transpose"), SOLUTIONS / "hostile_root_powers.py", benchmark=False)
    message = next(t.message for t in result.tests if t.verdict != Verdict.ACCEPTED)
    for call in ("fanotify_init", "syslog", "sethostname"):
        assert f"{call}: Operation not permitted" in message, message


def test_a_helper_left_running_cannot_write_a_gpu_reply():
    result = run(load_challenge("transpose"), SOLUTIONS / "hostile_late_writer.py", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR and "left a process running" in result.message, result.message


def test_the_judge_is_not_there_for_a_gpu_worker(tmp_path):
    import os

    target = os.getpid()
    result = run(load_challenge("transpose"), SOLUTIONS / "hostile_reschedule_judge.py", benchmark=False,
                 worker_env={"JUDGE_TEST_TARGET": str(target)})
    message = next(t.message for t in result.tests if t.verdict != Verdict.ACCEPTED)
    assert "allowed" not in message, message
