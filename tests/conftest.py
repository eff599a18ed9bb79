"""Shared fixtures.  GPU tests are marked ``gpu`` and deselected by default
(pyproject's addopts); run them on a CUDA machine with ``pytest -m gpu``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "tests" / "solutions"
SPECS = ROOT / "tests" / "specs"
EXAMPLES = ROOT / "solutions"
CHALLENGES = ROOT / "challenges"

# The judge's own process must never run in interpreter mode by accident.
os.environ.pop("TRITON_INTERPRET", None)
# No test may leave a judge server behind: a server that a test starts (judge server start, in any
# subprocess that inherits this environment) stops as soon as this process ends, however it ends
# (Ctrl-C, a kill); and no command uses or starts a server unless its test asks for one
# (tests/test_server.py sets its own JUDGE_SERVER).
os.environ["JUDGE_SERVER_STOP_WITH"] = str(os.getpid())
os.environ["JUDGE_SERVER"] = "0"
# No grade reads or writes the durations of earlier grades (grading/durations.py): a test's start order
# must not depend on what the tests before it graded.  tests/test_schedule.py turns it on in a temporary cache.
os.environ["JUDGE_GRADE_HISTORY"] = "0"


def outlived(pid: int, seconds: float = 5.0) -> bool:
    """Whether process ``pid`` is still there ``seconds`` from now (it is then killed, so no test leaves it)."""
    import time

    deadline = time.monotonic() + seconds
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = Path(f"/proc/{pid}").exists()
    if alive:
        os.kill(pid, 9)
    return alive


@pytest.fixture(scope="session", autouse=True)
def _no_judge_server_outlives_the_session():
    """A judge server a test started (it stops with this process: JUDGE_SERVER_STOP_WITH above) and
    left running fails the session, and is stopped here, running commands and all."""
    yield
    from judge.server import census

    deadline = time.monotonic() + 5.0  # one stopped a moment ago may still be on its way out
    while (left := [s for s in census.find_servers() if s.stop_with == os.getpid()]) and time.monotonic() < deadline:
        time.sleep(0.2)
    if left:
        census.terminate(left)
        pytest.fail(f"{len(left)} judge server(s) started by this test session were still running at its end "
                    f"(now stopped): " + "; ".join(f"pid {s.pid}, socket {s.socket}" for s in left)
                    + ". A test that starts a server must stop it (judge server stop), even when it fails.")


def served_vs_alone():
    """scripts/served_vs_alone.py, loaded once: its ``Server`` and ``environments`` are the tests' one way to start a
    judge server of this checkout and to judge through it (``judge_server`` below), its ``shipped_pairs`` the
    challenge each shipped solution is judged on."""
    import importlib.util
    import sys

    if "served_vs_alone" not in sys.modules:
        spec = importlib.util.spec_from_file_location("served_vs_alone", ROOT / "scripts" / "served_vs_alone.py")
        module = sys.modules["served_vs_alone"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up
        spec.loader.exec_module(module)
    return sys.modules["served_vs_alone"]


@pytest.fixture(scope="module")
def judge_server():
    """A judge server for one test module, in cache and data folders of its own: ``(alone_env, server)``, the
    environment of a run alone (JUDGE_SERVER=0) and the running ``served_vs_alone.Server``, whose ``env`` reaches
    it.  Stopped at the module's end, however its tests end."""
    import tempfile

    sva = served_vs_alone()
    with tempfile.TemporaryDirectory(prefix="served-vs-alone-") as base:
        alone_env, served_env = sva.environments(Path(base))
        running = sva.Server(served_env)
        try:
            yield alone_env, running
        finally:
            running.stop()


@pytest.fixture
def tiny_spec_path() -> Path:
    return SPECS / "tiny_transpose.yaml"


def pytest_collection_modifyitems(config, items):
    """Skip the GPU tests without a CUDA GPU; torch is imported only when some are collected, so the
    pure tests run where torch is not installed at all (tests/test_layout.py::test_pure_tests_need_no_torch)."""
    if not any("gpu" in item.keywords for item in items):
        return
    try:
        import torch
    except ImportError:
        cuda = False
    else:
        cuda = torch.cuda.is_available()
    if cuda:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _collector_on_after_each_test():
    """A worker session run inside the test process (tests/test_bench_loop.py) turns the garbage collector off
    between its calls (judge/worker/draw_window.py); the next test gets it back."""
    import gc

    yield
    gc.enable()


@pytest.fixture(autouse=True)
def _private_history(tmp_path_factory, monkeypatch):
    """Every test records run/rank history in a temporary data dir, never in the real home."""
    monkeypatch.setenv("JUDGE_DATA_DIR", str(tmp_path_factory.mktemp("judge-data")))
    monkeypatch.delenv("JUDGE_DB", raising=False)
