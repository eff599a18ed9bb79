"""The honest tools through the worker's sandbox, in CPU mode: what a solution's build needs (ninja and g++ for
torch's load_inline, inductor for torch.compile) and what the judge's own tools start (a profiler's launcher
beside the worker) are let through, and what they make room for (a process group of its own, a build folder)
stays bounded.  Each failed before its fix (issue 45: on an H200 every load_inline solution was "ninja: fatal:
posix_spawn: Operation not permitted", ncu's launcher "a process the solution's import left running", the
torch.compile baseline gone; in CPU mode a C++ load_inline was "Read-only file system", torch.compile "Torch not
compiled with CUDA enabled")."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from judge.challenge.kernelbench import baseline_source, load_problem
from judge.challenge.spec import load_spec
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict

from conftest import ROOT, SOLUTIONS, SPECS, outlived

pytestmark = pytest.mark.slow
LEVEL1 = ROOT / "tests" / "kernelbench" / "KernelBench" / "level1"
KB_SOLUTIONS = ROOT / "tests" / "kernelbench" / "solutions"
needs_a_build = pytest.mark.skipif(not (shutil.which("g++") and shutil.which("ninja")),
                                   reason="load_inline needs g++ and ninja (the test extra installs ninja)")


def kernelbench(solution: Path, **options):
    options.setdefault("seed", 7)
    options.setdefault("interpret", True)
    options.setdefault("cpu_elements", 40_000)
    return judge_solution(load_problem(LEVEL1 / "1_Scaled_ReLU.py"), str(solution), Options(**options))


def built_libraries(cache: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in (cache / "torch_extensions").rglob("*.so")}


@needs_a_build
def test_a_cpp_load_inline_solution_builds_in_the_sandbox_and_is_accepted_twice(tmp_path, monkeypatch):
    """ninja starts each compiler in a process group of its own (posix_spawn's SETPGROUP), which seccomp refused;
    in CPU mode the build folder was not writable either.  The second run loads the first one's build."""
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))  # a real build, not one left by an earlier run
    first = kernelbench(KB_SOLUTIONS / "scaled_relu_cpp.py")
    assert first.verdict == Verdict.ACCEPTED, first.message
    assert first.environment["protections"]["seccomp"].startswith("on"), first.environment["protections"]
    built = built_libraries(tmp_path / "cache")
    assert len(built) == 1, built
    second = kernelbench(KB_SOLUTIONS / "scaled_relu_cpp.py")
    assert second.verdict == Verdict.ACCEPTED, second.message
    assert built_libraries(tmp_path / "cache") == built  # loaded from the build cache, not built again


def test_a_build_that_writes_outside_its_folder_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    """The hostile twin: load_inline told to build in the folder beside its own in the judge's cache, where another
    solution's build would be found by a later run."""
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    result = kernelbench(KB_SOLUTIONS / "hostile_build_elsewhere.py")
    assert result.verdict == Verdict.INVALID_SUBMISSION, result.message
    assert re.search(r"Read-only file system|Permission denied", result.message), result.message
    assert not (tmp_path / "cache" / "torch_extensions" / "planted-by-a-solution").exists()


def test_the_torch_compile_baseline_compiles_with_inductor_in_the_sandbox(tmp_path):
    """The judge's torch.compile baseline (the problem's Model under inductor, kernelbench.baseline_source) judged as
    a solution: inductor writes its cache in the worker's own folder and compiles its C++ with g++ there, and
    torch's own questions to torch.cuda get the truth in CPU mode (no GPU), not the stand-ins' answers."""
    problem = LEVEL1 / "1_Scaled_ReLU.py"
    baseline = tmp_path / "baseline_compile.py"
    baseline.write_text(baseline_source(problem.read_text(), str(problem), "compile"))
    result = kernelbench(baseline, cpu_elements=4_096)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert not any("torch.cuda" in note for note in result.notes), result.notes  # torch's calls, not the solution's


@pytest.mark.skipif(not shutil.which("cc"), reason="the stand-in launcher is built with cc")
def test_a_profilers_launcher_beside_the_worker_is_the_judges_not_the_solutions(tmp_path):
    """A stand-in for ncu: the tool (tests/data/standin_profiler.sh) starts the worker below a launcher of its own
    (tests/data/standin_launcher.c) whose command line holds the worker's arguments, laid out as ncu's
    TreeLauncherSubreaper's on the H200.  The launcher was taken for the worker, and the worker itself for "a
    process the solution's import left running"; then the harness's freeze after each reply stopped the worker,
    the launcher's own child, and the launcher took the stop for the program's end ("The application returned an
    error code (19)"): a worker under a tool is not frozen, and the tool sees its program run to its end."""
    import subprocess

    from judge.judging.reference import Reference
    from judge.worker.client import Worker
    from judge.worker.tool_wrap import Wrap

    launcher = tmp_path / "TreeLauncherSubreaper"
    subprocess.run(["cc", "-O1", "-o", str(launcher), str(ROOT / "tests" / "data" / "standin_launcher.c")], check=True)
    spec = load_spec(SPECS / "tiny_transpose.yaml")
    worker = Worker(str(ROOT / "solutions" / "transpose" / "naive_2d.py"), spec, "cpu", True)
    tool = (str(ROOT / "tests" / "data" / "standin_profiler.sh"), str(launcher))
    worker.wrap = Wrap("standin", tool, env={"JUDGE_NAMESPACES": "0"})  # as ncu's (tool_wrap.ncu_wrap)
    try:
        worker.start(120)
        fields = worker.place(spec.parameters, Reference(spec, "cpu").call_arguments({"rows": 3, "cols": 2}, 1))
        header, _ = worker.request({"op": "call", **fields}, 60)
        assert header.get("ok"), header
        assert worker.kernel["seccomp_mode"] == "filter"  # what the kernel says of the worker, not of the launcher
        header, _ = worker.request({"op": "call", **fields}, 60)  # a second call: the tool still runs its program
        assert header.get("ok"), header
        output = worker.end_wrapped(30)
        assert "error code" not in output, output
        assert worker.process.returncode == 0, output
    finally:
        worker.stop()


@pytest.mark.parametrize("namespaces", ["1", "0"])
def test_a_child_in_a_process_group_of_its_own_ends_with_the_worker(namespaces, monkeypatch):
    """setpgid is allowed (ninja needs it), so the judge ends the worker's whole tree, not its group: a child that made
    a group of its own was missed by the group's kill.  Without namespaces, too (the worker adopts orphans)."""
    monkeypatch.setenv("JUDGE_NAMESPACES", namespaces)
    result = judge_solution(load_spec(SPECS / "tiny_transpose.yaml"), str(SOLUTIONS / "hostile_setpgid_child.py"),
                            Options(seed=8, interpret=True))
    assert result.verdict == Verdict.RUNTIME_ERROR, result.message
    message = next(t.message for t in result.tests if t.verdict != Verdict.ACCEPTED)
    assert "solve() left a process running" in message, message
    pid = int(re.search(r"left a process running \(pid (\d+) ", message).group(1))
    assert not outlived(pid), "the child in a group of its own outlived its worker"


def test_a_file_larger_than_a_calls_printed_output_can_be_written():
    """RLIMIT_FSIZE held every file to what one call may print (64 MiB): g++ died writing inductor's precompiled
    header.  Now a file has a limit of its own (Limits.file_bytes) and printed output is watched by the judge."""
    from judge.defence.limits import Limits

    result = judge_solution(load_spec(SPECS / "tiny_transpose.yaml"), str(SOLUTIONS / "writes_a_large_file.py"),
                            Options(seed=8, interpret=True, limits=Limits(output_bytes=1 << 20)))
    assert result.verdict == Verdict.ACCEPTED, result.message
