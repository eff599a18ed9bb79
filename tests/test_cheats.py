"""The cheat suite in CPU mode: each solution in tests/solutions/cheat_* or
abuse_* tries one attack from docs/security.md; the verdict must not be
accepted (or, for abuse, the judge must survive and say what happened).
GPU-only cheats (unjoined streams, patched CUDA timers, GPU memory) are in
test_gpu.py.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from judge.challenge.catalog import load_challenge
from judge.judging.runner import Options
from judge.judging.dispatch import judge_solution
from judge.challenge.spec import load_spec
from judge.judging.verdict import Verdict
from judge.defence.limits import Limits

from conftest import SOLUTIONS, SPECS, outlived

pytestmark = pytest.mark.slow
TINY = load_spec(SPECS / "tiny_transpose.yaml")


def judge(name: str, spec=TINY, **options):
    options.setdefault("seed", 8)
    options.setdefault("interpret", True)
    return judge_solution(spec, str(SOLUTIONS / name), Options(**options))


@pytest.mark.parametrize("name", [
    "cheat_cache_by_shape.py",  # caught by the repeated sizes with new values
    "cheat_skip_after_warmup.py",
    "cheat_read_expected.py",  # the expected output never exists in the worker
])
def test_cheats_are_wrong_answers(name):
    result = judge(name)
    assert result.verdict == Verdict.WRONG_ANSWER, result.message


def test_patched_comparisons_in_the_worker_change_nothing_the_judge_compares():
    """Comparisons happen in the judge's process: patching torch's and numpy's in the worker never passed."""
    result = judge("cheat_patch_comparisons.py")
    assert result.verdict == Verdict.WRONG_ANSWER, result.message


def test_a_thread_that_finishes_the_outputs_after_solve_returned_is_frozen_before_it_can():
    """Outputs are read when solve() has returned and the worker's reply has arrived, with the worker frozen (every
    thread of it): a thread that writes them later writes too late (one that wrote between a timed call's
    synchronize and its digest was accepted: the red team, 2026-11-26)."""
    result = judge("cheat_deferred_thread.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "never written" in result.tests[0].message, result.tests[0].message


@pytest.mark.parametrize("name", ["cheat_forge_reply.py", "cheat_forge_dtype.py", "cheat_forge_area.py"])
def test_a_forged_worker_reply_is_never_accepted(name):
    """The judge reads the spec's tensors from the shared memory itself, whatever the worker says it did (an "ok"
    without a call, a dtype of its own) or does to the memory (shrinking it is refused: it is sealed)."""
    result = judge(name)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)


def test_shape_cache_is_caught_by_a_repeat_case():
    result = judge("cheat_cache_by_shape.py")
    failing = [t.name for t in result.tests if t.verdict == Verdict.WRONG_ANSWER]
    assert failing and all(name.startswith("repeat-") for name in failing)


def test_precision_downgrade_is_rejected():
    result = judge("cheat_low_precision_matmul.py", spec=load_challenge("matmul"))
    assert result.verdict == Verdict.WRONG_ANSWER


def test_patched_timers_do_not_break_the_judge():
    assert judge("cheat_patch_timers.py").verdict == Verdict.ACCEPTED


def test_printing_gigabytes_is_cut_off():
    result = judge("abuse_print_flood.py", limits=Limits(output_bytes=8 * 1024**2))
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "wrote more than 8 MiB" in result.tests[0].message


def test_host_memory_storm_is_killed_with_a_clear_message():
    result = judge("abuse_host_memory.py", limits=Limits(host_memory_bytes=2 * 1024**3), timeout=60)
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "GiB of host memory" in result.message


def _marked_processes(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_forked_children_die_with_the_worker():
    mark = f"JUDGE_TEST_MARK={uuid.uuid4().hex}"
    key, value = mark.split("=")
    result = judge("abuse_fork_and_hang.py", timeout=1.0, compile_timeout=10, worker_env={key: value})
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED
    deadline = time.monotonic() + 5
    while _marked_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked_processes(mark) == [], "children of the worker outlived it"


def test_judge_output_files_are_untouched_by_a_failing_worker(tmp_path):
    # The judge writes nothing in the solution's folder: the worker runs in a temp dir.
    before = sorted(os.listdir(SOLUTIONS))
    judge("transpose_crash.py")
    assert sorted(os.listdir(SOLUTIONS)) == before


LOOPS_FOREVER = """
import os, time

def solve(input, output, rows, cols):
    print(os.getpid(), flush=True)
    while True:
        time.sleep(0.05)
"""


@pytest.mark.skipif(not Path("/proc").exists(), reason="needs /proc")
def test_a_worker_dies_with_the_judge_that_spawned_it(tmp_path):
    """A judge killed mid-judgement (a Dask worker of judge grade --cluster, which the
    OOM killer may kill and which Dask then replaces; kill -9) left the worker running
    the submission behind, forever: ten seconds after the grade of a looping submission
    that killed its Dask worker twice, two orphans each held a core.  (A submission can
    no longer kill its judge itself: test_a_solution_cannot_signal_its_judge.)"""
    import subprocess
    import sys

    solution = tmp_path / "loops_forever.py"
    solution.write_text(LOOPS_FOREVER)
    script = ("import sys; from judge.challenge.spec import load_spec; from judge.judging.runner import Options; "
              "from judge.judging.dispatch import judge_solution; "
              "judge_solution(load_spec(sys.argv[1]), sys.argv[2], Options(seed=1, interpret=True, timeout=60))")
    judge_process = subprocess.Popen([sys.executable, "-c", script, str(SPECS / "tiny_transpose.yaml"), str(solution)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children = Path(f"/proc/{judge_process.pid}/task/{judge_process.pid}/children")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not children.read_text().split():
        time.sleep(0.1)
    pid = int(children.read_text().split()[0])
    time.sleep(3)  # the worker loads the solution, which then loops
    judge_process.kill()
    judge_process.wait()
    assert not outlived(pid), "the worker outlived the judge that spawned it"
