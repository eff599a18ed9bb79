"""RED TEAM of CUDA C++ solutions, the part that needs no GPU.

EVERY TEST HERE FAILS ON THE CODE AS THE RED TEAM FOUND IT (commit d366707): each asserts what a
secure judge does.  The attacks are in tests/solutions/redteam_cuda_*; the GPU half is
tests/test_cuda_redteam_gpu.py.  Tests marked ``needs_nvcc`` compile with the real nvcc (no GPU is
needed to compile, link and dlopen); they are skipped where there is none.

Run: python -m pytest -q -p no:cacheprovider tests/test_cuda_redteam.py
"""

from __future__ import annotations

import ctypes
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from judge.challenge.spec import load_spec
from judge.worker import cuda_build, nvcc
from judge.worker.client import Worker
from judge.defence.limits import MemoryWatchdog

from conftest import ROOT, SOLUTIONS
from test_cuda import FAKE_NVCC, _solution, fake_nvcc  # noqa: F401 - the fixture

TRANSPOSE = load_spec(str(ROOT / "challenges" / "transpose.yaml"))
REAL_NVCC = cuda_build.find_nvcc()
needs_nvcc = pytest.mark.skipif(REAL_NVCC is None or not os.path.exists("/usr/include/stdio.h"),
                                reason="needs the real nvcc (and a host compiler)")


def _real_build(source: str, cache: str, capability=(9, 0)) -> cuda_build.Build:
    return cuda_build.build(source, REAL_NVCC, capability, cache, [], 170)


# -- finding 2: the build cache gives one folder's library to another ---------------------------------
def test_the_same_source_in_another_folder_is_built_with_that_folders_headers(tmp_path, fake_nvcc):  # noqa: F811
    """RED TEAM 2 (FAILS NOW): alice/ and bob/ hold the same transpose.cu and different kernel.cuh.  The
    key is the source's bytes; deps.json records alice's absolute header path; bob's lookup checks that
    alice's header is unchanged and returns alice's library (with the real nvcc too: the red team saw
    bob's library return alice's constant).  tests/solutions/redteam_cuda_header_swap/."""
    tool, log = fake_nvcc
    text = '#include "kernel.cuh"\nextern "C" void solve() {}\n'
    alice, bob = _solution(tmp_path / "alice", text), _solution(tmp_path / "bob", text)
    (tmp_path / "alice" / "kernel.cuh").write_text("// correct\n")
    (tmp_path / "bob" / "kernel.cuh").write_text("// wrong\n")
    cache = str(tmp_path / "cache")
    first = cuda_build.build(alice, tool, (9, 0), cache, [], 60)
    second = cuda_build.build(bob, tool, (9, 0), cache, [], 60)
    assert second.library != first.library, "bob is judged with the library built from alice's kernel.cuh"
    assert not second.cached


def test_a_header_that_appears_after_the_build_is_built_in(tmp_path, fake_nvcc):  # noqa: F811
    """RED TEAM 2b (FAILS NOW): ``#if __has_include("tuned.cuh")``: the first build read no local header,
    its deps.json is {} and matches forever; adding tuned.cuh beside the solution changes nothing (seen
    with the real nvcc: the library kept the #else branch)."""
    tool, _ = fake_nvcc
    folder = tmp_path / "sol"
    source = _solution(folder, '#if __has_include("tuned.cuh")\n#include "tuned.cuh"\n#endif\n'
                               'extern "C" void solve() {}\n')
    cache = str(tmp_path / "cache")
    first = cuda_build.build(source, tool, (9, 0), cache, [], 60)
    (folder / "tuned.cuh").write_text("#define TUNED 1\n")
    second = cuda_build.build(source, tool, (9, 0), cache, [], 60)
    assert not second.cached and second.library != first.library, "the build without tuned.cuh is reused"


# -- finding 3: one solution writes the libraries others are judged with --------------------------------
def _cuda_worker(tmp_path, monkeypatch, tool: str, untrusted: bool = False) -> Worker:
    """A worker for a .cu file as `judge run`/`rank` makes it (not spawned): its sandbox policy."""
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.setenv("CUDA_HOME", str(Path(tool).parent.parent))
    monkeypatch.delenv("JUDGE_SANDBOX", raising=False)
    solution = _solution(tmp_path / "attacker", "// any .cu\n", "attack.cu")
    worker = Worker(solution, TRANSPOSE, "cuda:0", False, untrusted=untrusted)
    worker.workdir = tempfile.TemporaryDirectory(prefix="judge-worker-")
    worker.cuda = worker._cuda_settings(60)
    return worker


def test_a_run_or_rank_worker_cannot_write_other_solutions_builds(tmp_path, monkeypatch, fake_nvcc):  # noqa: F811
    """RED TEAM 3 (FAILS NOW): under run/rank/watch the policy makes <cache>/cuda writable whole: a
    solution's library (its constructor runs in the sandbox at load) plants a build folder under every
    other key, and the next judgement of another solution loads it (redteam_cuda_cache_poison.cu;
    the test below does it under the real sandbox)."""
    tool, _ = fake_nvcc
    worker = _cuda_worker(tmp_path, monkeypatch, tool)
    try:
        cache = Path(worker.cuda["cache"])
        other = cache / ("f" * 32)  # another solution's key folder
        other.mkdir(parents=True)
        writable = [os.path.abspath(p) for p in worker._policy()["write"]]
        reach = [w for w in writable if os.path.commonpath([w, str(other)]) == w]
        assert not reach, f"the worker may write another solution's build folder {other} through {reach}"
    finally:
        worker.workdir.cleanup()


@needs_nvcc
def test_a_planted_library_is_not_what_another_solution_is_judged_with(tmp_path, monkeypatch):
    """RED TEAM 3, the whole attack without a GPU: build naive.cu and the poisoner with the real nvcc into
    the judge's cache; load the poisoner's library in a process confined by the policy client.Worker gives
    a `judge run` worker for it (Landlock and seccomp on); then look naive.cu up again: it must still be
    its own library, not a planted "!" copy whose solve() computes nothing.  (Failed when the worker
    could write the cache; the judge now builds and only the judge writes there.)"""
    from judge.defence import sandbox

    if not sandbox.available()["landlock"].startswith("on"):
        pytest.skip("no Landlock here")
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    monkeypatch.delenv("JUDGE_SANDBOX", raising=False)
    attacker_file = _solution(tmp_path / "attacker", (SOLUTIONS / "redteam_cuda_cache_poison.cu").read_text(),
                              "poison.cu")
    worker = Worker(attacker_file, TRANSPOSE, "cuda:0", False)
    worker.workdir = tempfile.TemporaryDirectory(prefix="judge-worker-")
    settings = worker._cuda_settings(60)
    cache = settings["cache"]
    victim = _real_build(str(ROOT / "solutions" / "transpose" / "naive.cu"), cache)
    attacker = _real_build(attacker_file, cache)
    worker.cuda = dict(settings, library=attacker.library)
    policy = worker._policy()
    code = textwrap.dedent(f"""
        import ctypes
        from judge.defence import sandbox
        print(sandbox.apply(sandbox.Policy.from_message({policy!r})))
        ctypes.CDLL({attacker.library!r})
    """)
    try:
        subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    finally:
        worker.workdir.cleanup()
    again = _real_build(str(ROOT / "solutions" / "transpose" / "naive.cu"), cache)
    assert again.library == victim.library, f"naive.cu would now be judged with {again.library}"
    assert not hasattr(ctypes.CDLL(again.library), "redteam_planted")


# -- finding 4: compile-time memory is not counted --------------------------------------------------------
def test_the_memory_watchdog_counts_the_workers_children(tmp_path):
    """RED TEAM 4 (FAILS NOW): the watchdog reads VmRSS of the worker's pid alone, and nvcc's
    children (cudafe++ held 1.6 GB for redteam_cuda_compile_memory.cu) are not the worker.  Here a
    stand-in 'worker' starts a child that holds 400 MB; the limit is 200 MB."""
    child = "import time; b = bytearray(400 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('held', flush=True); time.sleep(30)"
    parent = (f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', {child!r}]); "
              "time.sleep(30)")
    worker = subprocess.Popen([sys.executable, "-c", parent], start_new_session=True)
    killed = []
    watchdog = MemoryWatchdog(worker.pid, 200 * 1024**2, lambda: killed.append(os.killpg(worker.pid, 9)))
    watchdog.start()
    try:
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and not killed:
            time.sleep(0.1)
        assert killed, "a child holding 400 MB under a 200 MB limit was not seen"
    finally:
        watchdog.stop()
        try:
            os.killpg(worker.pid, 9)
        except ProcessLookupError:
            pass
        worker.wait()


# -- finding 5: diagnostics of unbounded width ------------------------------------------------------------
def test_compile_diagnostics_are_bounded_in_characters_not_only_lines():
    """RED TEAM 5 (FAILS NOW): 60 lines are kept, of any width.  A Python error is cut to ~4000
    characters (loader.format_error); a compile error should be bounded likewise."""
    output = "\n".join(f'mine.cu({i}): error: static assertion failed with "{"A" * 1_000_000}"' for i in range(5))
    size = len(nvcc.user_diagnostics(output, "mine.cu", "mine.cu", "", ""))
    assert size <= 64 * 1024, f"a compile_error message of {size} characters"


@needs_nvcc
def test_a_one_kilobyte_source_cannot_make_a_megabyte_compile_error(tmp_path):
    """RED TEAM 5 with the real nvcc (FAILS NOW): redteam_cuda_diagnostic_flood.cu makes nvcc print one
    8.5 MB static_assert message; CompileFailed carries it whole (the worker then sends it, the judge
    reports it; over 16 MiB the reply is refused as malformed and the verdict turns runtime_error)."""
    source = _solution(tmp_path / "sol", (SOLUTIONS / "redteam_cuda_diagnostic_flood.cu").read_text(), "flood.cu")
    with pytest.raises(cuda_build.CompileFailed) as failed:
        _real_build(source, str(tmp_path / "cache"))
    message = str(failed.value)
    assert "static assertion failed" in message[:200]
    size = len(message)
    assert size <= 64 * 1024, f"a compile_error message of {size} characters"


# -- finding 6: a wrapper nvcc opens its folder's parent to the sandbox ------------------------------------
def test_a_wrapper_nvcc_does_not_open_the_home_folder_to_the_sandbox(tmp_path, monkeypatch, fake_nvcc):  # noqa: F811
    """RED TEAM 6 (FAILS NOW): nvcc found on PATH as a wrapper script (this image's /usr/local/bin/nvcc
    is one: `exec /usr/local/cuda-13.0/bin/nvcc "$@"`) in ~/bin: realpath keeps the script, the toolkit
    root becomes the home folder, and client.Worker._policy makes it readable to every CUDA worker -
    also under `judge grade` (strict)."""
    tool, _ = fake_nvcc
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    wrapper = home / "bin" / "nvcc"
    wrapper.write_text(f'#!/bin/sh\nexec {tool} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "judge-cache"))
    assert cuda_build.find_nvcc() == str(wrapper)  # what the judge picks
    (tmp_path / "grading").mkdir()
    solution = _solution(tmp_path / "grading" / "ada", "// .cu\n", "transpose.cu")
    worker = Worker(solution, TRANSPOSE, "cuda:0", False, untrusted=True)  # judge grade
    worker.workdir = tempfile.TemporaryDirectory(prefix="judge-worker-")
    try:
        try:
            worker.cuda = dict(worker._cuda_settings(60), library=str(tmp_path / "judge-cache" / "x" / "solution.so"))
        except cuda_build.CudaUnavailable:
            return  # no toolkit found (no /usr/local/cuda here): refusing is secure too
        readable = [os.path.abspath(p) for p in worker._policy()["read"]]
        key = str(home / ".ssh" / "id_ed25519")
        assert not [r for r in readable if os.path.commonpath([r, key]) == r], \
            f"the grader's SSH key is readable by every CUDA submission through {cuda_build.toolkit_root(str(wrapper))}"
    finally:
        worker.workdir.cleanup()


# -- finding 7: the launch check calls the solution's own cudaGetLastError -------------------------------
@needs_nvcc
def test_the_launch_check_asks_the_cuda_runtime_not_the_solution(tmp_path):
    """RED TEAM 7 (FAILS NOW): CudaSolve binds ``self.library.cudaGetLastError``; dlsym on the solution's
    handle finds a cudaGetLastError the solution exports first (redteam_cuda_own_last_error.cu answers
    0 and hides its failed launch; here it answers 4242 so the test can tell)."""
    from judge.worker.cuda_solve import CudaSolve
    from judge.worker.loader import SubmissionError

    text = (SOLUTIONS / "redteam_cuda_own_last_error.cu").read_text().replace(
        "int redteam_no_error(void) { return 0; }", "int redteam_no_error(void) { return 4242; }")
    built = _real_build(_solution(tmp_path / "sol", text, "own.cu"), str(tmp_path / "cache"))
    try:
        solve = CudaSolve(built.library, ["pointer", "pointer", "c_int", "c_int"], "prototype", "own.cu")
    except SubmissionError:
        return  # refusing a library that exports the runtime's names is secure too
    assert solve.last_error() != 4242, "the judge's launch check ran the solution's own cudaGetLastError"
