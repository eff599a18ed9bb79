"""`judge run` spawns the solution's worker before the judge imports torch, so the
two imports overlap (judge/worker/client.py: spawn_early); the runner takes it
only when it was spawned for the run's mode, and nothing is left running."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.judging.runner import Events, Options, Runner
from judge.challenge.spec import load_spec
from judge.worker import client

from conftest import SOLUTIONS, SPECS

SPEC = load_spec(SPECS / "tiny_transpose.yaml")
SOLUTION = str(SOLUTIONS / "transpose_ok.py")


@pytest.mark.parametrize("visible", ["", "-1"])
def test_no_gpu_is_guessed_when_cuda_visible_devices_hides_them_all(monkeypatch, visible):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert not client.gpu_likely()


def test_the_early_guess_is_interpret_when_asked_or_without_a_gpu(monkeypatch):
    spawned = []
    monkeypatch.setattr(client.Worker, "spawn", lambda self: spawned.append((self.interpret, self.device)))
    monkeypatch.setattr(client, "gpu_likely", lambda: True)
    client.spawn_early(SOLUTION, SPEC, interpret=False, device=None)
    client.spawn_early(SOLUTION, SPEC, interpret=False, device="cuda:1")
    client.spawn_early(SOLUTION, SPEC, interpret=True, device="cuda:1")
    monkeypatch.setattr(client, "gpu_likely", lambda: False)
    client.spawn_early(SOLUTION, SPEC, interpret=False, device=None)
    assert spawned == [(False, "cuda:0"), (False, "cuda:1"), (True, "cpu"), (True, "cpu")]


def _runner(**options) -> Runner:
    return Runner(SPEC, SOLUTION, Options(seed=1, interpret=True, **options), Events())


@pytest.mark.slow
def test_a_matching_early_worker_is_taken_and_judges():
    runner = _runner(benchmark=False)
    runner.early_worker = early = client.spawn_early(SOLUTION, SPEC, interpret=True, device=None)
    try:
        result = runner.run()
        assert runner.worker is early and result.verdict.value == "accepted"
    finally:
        runner.close()
    assert early.process is None  # stopped with the run


@pytest.mark.parametrize("mismatch", ["mode", "environment", "solution"])
def test_an_early_worker_for_another_mode_or_setting_is_stopped_not_used(mismatch):
    runner = _runner(worker_env={"X": "1"} if mismatch == "environment" else {})
    early = client.spawn_early(str(SOLUTIONS / "transpose_wrong_value.py") if mismatch == "solution" else SOLUTION,
                               SPEC, interpret=True, device=None)
    if mismatch == "mode":
        early.interpret = False  # as if spawned on a guess of "GPU" that torch then did not confirm
    runner.early_worker = early
    started = time.perf_counter()
    assert runner.take_early_worker() is None
    assert early.process is None and runner.early_worker is None
    assert time.perf_counter() - started < 1.5  # killed at once: still importing, it cannot hear "exit"


def test_an_early_worker_that_was_never_taken_is_stopped_by_close():
    runner = _runner()
    runner.early_worker = early = client.spawn_early(SOLUTION, SPEC, interpret=True, device=None)
    runner.close()
    assert early.process is None


@pytest.mark.slow
def test_judge_run_uses_the_early_worker_and_leaves_no_process(monkeypatch):
    taken, spawned = [], []
    real_take, real_spawn = Runner.take_early_worker, client.spawn_early

    def spy_spawn(*args):
        spawned.append(real_spawn(*args))
        return spawned[-1]

    monkeypatch.setattr(client, "spawn_early", spy_spawn)
    monkeypatch.setattr(Runner, "take_early_worker", lambda self: taken.append(real_take(self)) or taken[-1])
    result = CliRunner().invoke(main, ["run", str(SPECS / "tiny_transpose.yaml"), SOLUTION, "--interpret",
                                       "--seed", "1", "--no-history"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(spawned) == 1 and taken == spawned
    assert spawned[0].process is None


def test_a_worker_still_running_when_the_judge_exits_is_stopped():
    """A SIGTERM raised after a worker's spawn and before the code that stops it had it (spawn_early
    returning, the run's try) left it running: the judge's exit (atexit) stops every live worker."""
    worker = client.spawn_early(SOLUTION, SPEC, interpret=True, device=None)
    process = worker.process
    client._stop_live_workers()
    assert worker.process is None and process.poll() is not None
