"""RED TEAM of CUDA C++ solutions, on a GPU (``pytest -m gpu -s tests/test_cuda_redteam_gpu.py``; needs nvcc).

Each test asserts what a SECURE judge answers to one attack of tests/solutions/redteam_cuda_*;
on the code as the red team found it (commit d366707) every one is expected to FAIL.  The red team
could not run them through the judge (its device's copy of the repository predates the CUDA code);
what it did run on an H200 is in each attack's header (the deferred-thread race, in a harness doing
measured_call's steps).  The CPU half is tests/test_cuda_redteam.py.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from judge.challenge.catalog import load_challenge
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict
from judge.worker.cuda_build import find_nvcc
from judge.defence.limits import Limits

from conftest import EXAMPLES, SOLUTIONS
from test_gpu import small_bench_spec

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(find_nvcc() is None, reason="no nvcc")]


def run(spec, path, **options):
    options.setdefault("seed", 1)
    options.setdefault("bench_budget_s", 0.5)
    return judge_solution(spec, str(path), Options(**options))


def median(result) -> float:
    return result.benchmarks[0]["median_ms"]


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A judge cache of the test's own (the CUDA builds, peaks...): no earlier run's builds interfere."""
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    return tmp_path / "judge-cache"


# -- finding 1: native threads ----------------------------------------------------------------------------
def test_redteam_native_thread_left_running_is_a_runtime_error():
    """A std::thread solve() leaves running (it only sleeps): Session.threads_left sees Python threads only."""
    result = run(load_challenge("transpose"), SOLUTIONS / "redteam_cuda_native_thread_left.cu", benchmark=False)
    print("native thread left:", result.verdict.value, result.message[:300])
    assert result.verdict == Verdict.RUNTIME_ERROR and "thread" in result.message


def test_redteam_deferred_native_thread_is_not_timed_faster_than_the_honest_kernel():
    """solve() computes 1/8 of C; a native thread launches the rest once the judge's synchronize returns,
    ahead of the judge's digest.  Secure: refused, or no faster than solutions/matmul/tiled.cu."""
    spec = small_bench_spec("matmul", "  - {name: m4096, M: 4096, N: 4096, K: 4096}\n")
    honest = run(spec, EXAMPLES / "matmul" / "tiled.cu")
    cheat = run(spec, SOLUTIONS / "redteam_cuda_deferred_native_thread.cu")
    assert honest.verdict == Verdict.ACCEPTED, honest.message
    print(f"deferred native thread: {cheat.verdict.value}, median "
          f"{median(cheat) if cheat.benchmarks else None} ms vs honest {median(honest)} ms; {cheat.message[:300]}")
    assert not (cheat.verdict == Verdict.ACCEPTED and median(cheat) < 0.8 * median(honest)), \
        f"accepted at {median(cheat):.3f} ms, the honest kernel takes {median(honest):.3f} ms"


# -- finding 2: one folder's library for another's ----------------------------------------------------------
def test_redteam_header_swap_bob_is_judged_with_his_own_kernel(tmp_path, own_cache):
    folder = tmp_path / "submissions"
    shutil.copytree(SOLUTIONS / "redteam_cuda_header_swap", folder)
    spec = load_challenge("transpose")
    alice = run(spec, folder / "alice" / "transpose.cu", benchmark=False)
    bob = run(spec, folder / "bob" / "transpose.cu", benchmark=False)
    print("header swap: alice", alice.verdict.value, "bob", bob.verdict.value, bob.notes)
    assert alice.verdict == Verdict.ACCEPTED, alice.message
    assert bob.verdict == Verdict.WRONG_ANSWER, "bob's kernel writes nothing, but he was judged with alice's library"


# -- finding 3: cache poisoning under run/rank ----------------------------------------------------------------
def test_redteam_cache_poison_leaves_other_solutions_builds_alone(own_cache):
    spec = load_challenge("transpose")
    victim = EXAMPLES / "transpose" / "naive.cu"
    before = run(spec, victim, benchmark=False)
    attacker = run(spec, SOLUTIONS / "redteam_cuda_cache_poison.cu", benchmark=False)
    after = run(spec, victim, benchmark=False)
    planted = sorted(str(p.relative_to(own_cache)) for p in own_cache.rglob("solution.so") if p.parent.name == "!")
    print("cache poison: victim", before.verdict.value, "attacker", attacker.verdict.value, "victim again",
          after.verdict.value, "planted:", planted)
    assert before.verdict == Verdict.ACCEPTED and attacker.verdict == Verdict.ACCEPTED
    assert after.verdict == Verdict.ACCEPTED, f"naive.cu judged with a planted library: {after.message[:200]}"


# -- finding 4: the compiler's memory ------------------------------------------------------------------------------
def test_redteam_compile_memory_counts_against_the_host_memory_limit():
    limits = Limits(host_memory_bytes=int(1.5 * 1024**3))
    spec = load_challenge("transpose")
    control = run(spec, EXAMPLES / "transpose" / "naive.cu", benchmark=False, limits=limits)
    assert control.verdict == Verdict.ACCEPTED, f"the worker alone needs more than the limit: {control.message}"
    bomb = run(spec, SOLUTIONS / "redteam_cuda_compile_memory.cu", benchmark=False, limits=limits)
    print("compile memory:", bomb.verdict.value, bomb.notes, bomb.message[:200])
    assert bomb.verdict != Verdict.ACCEPTED, "the compiler held ~1.6 GB under a 1.5 GiB limit, unseen"


# -- finding 5: diagnostics ------------------------------------------------------------------------------------------
def test_redteam_diagnostic_flood_is_a_short_compile_error():
    result = run(load_challenge("transpose"), SOLUTIONS / "redteam_cuda_diagnostic_flood.cu", benchmark=False)
    print("diagnostic flood:", result.verdict.value, len(result.message), "characters")
    assert result.verdict == Verdict.COMPILE_ERROR
    assert len(result.message) <= 64 * 1024, f"a {len(result.message)}-character compile_error message"


# -- finding 6: a wrapper nvcc in the home folder --------------------------------------------------------------------
def test_redteam_home_reader_sees_nothing_of_home_with_a_wrapper_nvcc(tmp_path, monkeypatch, own_cache):
    real = find_nvcc()
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "secret.txt").write_text("the grader's secret is swordfish\n")
    wrapper = home / "bin" / "nvcc"
    wrapper.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert find_nvcc() == str(wrapper)
    result = run(load_challenge("transpose"), SOLUTIONS / "redteam_cuda_home_reader.cu", benchmark=False,
                 untrusted=True)  # as judge grade runs it
    text = json.dumps(result.as_dict())
    print("home reader:", result.verdict.value, "secret seen:", "swordfish" in text)
    assert "swordfish" not in text


# -- finding 7: the solution's own cudaGetLastError ---------------------------------------------------------------------
def test_redteam_own_last_error_does_not_hide_a_failed_launch():
    result = run(load_challenge("transpose"), SOLUTIONS / "redteam_cuda_own_last_error.cu", benchmark=False)
    print("own last error:", result.verdict.value, result.message[:200])
    assert result.verdict == Verdict.RUNTIME_ERROR and "after solve() returned" in result.message
