"""Issues 24 and 25 on a GPU: the cheats of the timed path and the holes of the worker that only a GPU
shows, each a solution that was accepted (or crashed the judge) before (H100, 2026-11-25).  The logic
behind each is tested without a GPU in tests/test_bench_loop.py, test_timing.py and test_sealed.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from judge.judging.dispatch import judge_solution
from judge.judging.failures import headline
from judge.judging.runner import Options
from judge.judging.verdict import Verdict
from judge.timing.speed import physical_floor_ms

from conftest import EXAMPLES, ROOT, SOLUTIONS
from test_gpu import run, small_bench_spec
from test_harness import ATTACKS, HOSTILE, TINY

pytestmark = pytest.mark.gpu


def _floor_ms(result, spec) -> float:
    from judge.judging.benchmark_stage import case_cost
    from judge.challenge.cases import benchmark_cases

    case = benchmark_cases(spec)[0]
    nbytes, flops = case_cost(spec, case)
    return physical_floor_ms(nbytes, flops, result.environment.get("peaks"),
                             int(result.environment.get("l2_bytes") or 0))[0]


def _never_faster_than_physics(result, spec, honest_ms: float | None = None) -> None:
    """Accepted only at an honest time: never under the floor, nor much under the honest kernel's."""
    if result.verdict != Verdict.ACCEPTED:
        return
    median = result.benchmarks[0]["median_ms"]
    assert median >= 0.8 * _floor_ms(result, spec), result.benchmarks[0]
    if honest_ms is not None:
        assert median >= 0.9 * honest_ms, (median, honest_ms)


def test_a_copy_on_a_private_unjoined_stream_is_timed_at_its_real_cost():
    spec = small_bench_spec("copy", "  - {name: n4096, N: 4096}\n")
    honest = run(spec, EXAMPLES / "copy/tuned.py")
    cheat = run(spec, SOLUTIONS / "cheat_private_stream_copy.py")
    assert honest.verdict == Verdict.ACCEPTED, honest.message
    _never_faster_than_physics(cheat, spec, 0.8 * honest.benchmarks[0]["median_ms"])
    if cheat.verdict == Verdict.ACCEPTED:
        assert cheat.benchmarks[0]["disagreeing_calls"] > 0


def test_a_matmul_honest_only_where_audited_is_a_wrong_answer():
    spec = small_bench_spec("matmul", "  - {name: m1024, M: 1024, N: 1024, K: 1024}\n")
    result = run(spec, SOLUTIONS / "cheat_audit_aware_matmul.py")
    assert result.verdict == Verdict.WRONG_ANSWER, result.message
    # what happened first (issue 45 item 7); the untimed call's diagnosis, if any, on the lines after it
    assert "a timed call returned a wrong result" in headline(result.message), result.message


def test_a_transpose_dishonest_once_it_spots_the_timed_phase_is_timed_honestly():
    """Above the floor is not enough: on an H200 it read 0.11 ms where the same torch copy takes 0.31 ms
    (the audit's allowance had been calibrated with the guard's remainder in it)."""
    spec = small_bench_spec("transpose", "  - {name: b7000x6000, rows: 7000, cols: 6000}\n")
    honest = run(spec, SOLUTIONS / "transpose_torch_copy.py")
    cheat = run(spec, SOLUTIONS / "cheat_flush_aware_transpose.py")
    assert honest.verdict == Verdict.ACCEPTED, honest.message
    bench = honest.benchmarks[0]  # a rare honest outlier may be flagged (H100: 1 call), never a pattern of them
    assert bench["timer_trusted"] and bench["disagreeing_calls"] <= max(1, bench["calls"] // 10), bench
    _never_faster_than_physics(cheat, spec, honest.benchmarks[0]["median_ms"])


def test_outputs_precomputed_from_the_case_seed_get_nothing():
    """The cheat looks for the case's seed in its frames to draw the timed inputs itself; the draws are the
    harness's now (another process), so it finds none and falls back to torch.matmul: accepted, at an honest
    time only (wrong_answer before the harness, when it found a stale seed)."""
    spec = small_bench_spec("matmul", "  - {name: m1024, M: 1024, N: 1024, K: 1024}\n")
    result = run(spec, SOLUTIONS / "cheat_precompute_timed_inputs.py")
    assert result.verdict in (Verdict.ACCEPTED, Verdict.WRONG_ANSWER), result.message
    _never_faster_than_physics(result, spec)


def test_a_copy_launched_from_a_thread_after_solve_returned_is_refused():
    spec = small_bench_spec("copy", "  - {name: n4096, N: 4096}\n")
    result = run(spec, SOLUTIONS / "cheat_deferred_launch_thread.py")
    assert result.verdict != Verdict.ACCEPTED or result.benchmarks[0]["median_ms"] >= 0.8 * _floor_ms(result, spec)


def test_a_patched_worker_protocol_is_a_runtime_error():
    spec = small_bench_spec("transpose", "  - {name: b7000x6000, rows: 7000, cols: 6000}\n")
    result = run(spec, SOLUTIONS / "cheat_patch_worker_protocol.py")  # its forged replies are not believed
    assert result.verdict == Verdict.RUNTIME_ERROR, result.message
    assert "changed the judge's own code" in result.message or "malformed reply" in result.message, result.message


def test_a_repointed_output_is_never_written_on_the_gpu():
    """As in CPU mode (test_sealed.py): the harness reads the output's own memory, which the re-pointed
    tensor never wrote (a runtime error when the judge read the solution's tensors in its process)."""
    spec = small_bench_spec("copy", "  - {name: n4096, N: 4096}\n")
    result = run(spec, SOLUTIONS / "cheat_repoint_copy.py")
    assert result.verdict == Verdict.WRONG_ANSWER and "never written" in result.message, result.message


def test_an_out_of_bounds_store_names_the_tensor_on_the_gpu():
    spec = small_bench_spec("transpose", "  - {name: b1024, rows: 1024, cols: 1024}\n")
    results = [run(spec, SOLUTIONS / "transpose_oob_store.py", benchmark=False) for _ in range(2)]
    assert [r.verdict for r in results] == [Verdict.RUNTIME_ERROR] * 2
    assert results[0].message == results[1].message and "outside `output`" in results[0].message


def test_a_solution_that_takes_the_judges_gpu_memory_is_a_runtime_error_not_a_crash():
    spec = small_bench_spec("transpose", "  - {name: b1024, rows: 1024, cols: 1024}\n")
    result = run(spec, SOLUTIONS / "abuse_lift_memory_fraction.py", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR, result.message
    again = run(spec, EXAMPLES / "transpose/tiled.py", benchmark=False)
    assert again.verdict == Verdict.ACCEPTED  # the GPU is the judge's again


@pytest.mark.skipif(not __import__("judge.defence.sandbox", fromlist=["x"]).available()["landlock"].startswith("on"),
                    reason="no Landlock here (kernel, or the sandbox extra not installed)")
def test_the_sandbox_holds_on_the_gpu(tmp_path):
    secret = tmp_path / "grader" / "hidden.txt"
    secret.parent.mkdir()
    secret.write_text("SECRET_TOKEN=hunter2")
    solution = tmp_path / "submission" / "reads.py"  # its own folder: the solution's folder is readable
    solution.parent.mkdir()
    solution.write_text(f"def solve(input, output, rows, cols):\n    raise RuntimeError(open({str(secret)!r}).read())\n")
    spec = small_bench_spec("transpose", "  - {name: b64, rows: 64, cols: 64}\n")
    result = run(spec, solution, benchmark=False)
    from judge.defence import sandbox

    print("sandbox:", result.environment.get("protections"), sandbox._installation_paths(),
          os.environ.get("PYTHONPATH"), result.message[-300:])
    assert result.verdict == Verdict.RUNTIME_ERROR and "hunter2" not in result.message
    assert "Permission denied" in result.message
    print("protections on the GPU:", result.environment["protections"])


BUSY = """
import time, torch
a = torch.rand(8192, 8192, device="cuda")
end = time.time() + {seconds}
while time.time() < end:
    a = (a @ a).clamp_(-1, 1)
    torch.cuda.synchronize()
"""


def test_a_gpu_someone_else_is_using_is_noticed_and_not_stored(tmp_path):
    busy = subprocess.Popen([sys.executable, "-c", BUSY.format(seconds=60)])
    try:
        time.sleep(3)
        out = subprocess.run([sys.executable, "-m", "judge", "run", "transpose", str(EXAMPLES / "transpose/tuned.py"),
                              "--seed", "1", "--json", "--db", str(tmp_path / "h.db")],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
    finally:
        busy.kill()
        busy.wait()
    import json

    doc = json.loads(out.stdout)
    print("contended:", json.dumps([{k: b.get(k) for k in ("name", "median_ms", "gpu_checks")} for b in doc["benchmarks"]]))
    assert doc["verdict"] == "accepted", doc["message"]
    assert all(b.get("contention") for b in doc["benchmarks"]), [b.get("gpu_checks") for b in doc["benchmarks"]]
    assert "not recorded in the history" in out.stderr


def test_two_judges_on_one_gpu_take_turns():
    env = dict(os.environ)
    command = [sys.executable, "-m", "judge", "run", "transpose", str(EXAMPLES / "transpose/tuned.py"), "--seed", "1",
               "--json", "--no-history"]
    alone = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    import json

    alone_ms = [b["median_ms"] for b in json.loads(alone.stdout)["benchmarks"]]
    both = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env) for _ in range(2)]
    docs = [json.loads(p.communicate(timeout=300)[0]) for p in both]
    for doc in docs:
        assert doc["verdict"] == "accepted"
        for bench, ms in zip(doc["benchmarks"], alone_ms):
            assert bench["median_ms"] <= 1.1 * ms, (bench["median_ms"], ms)  # not spoiled by the other judge
            assert not bench.get("contention"), bench.get("gpu_checks")


@pytest.mark.parametrize("cheat", ["cheat_deferred_torch_mode.py", "cheat_deferred_dispatch_mode.py"])
def test_a_torch_mode_that_finishes_outputs_after_the_clock_is_caught_on_the_gpu(cheat):
    """Red team 27: the mode ran inside the judge's digest after the synchronize (untimed work).  The judge's
    reads are in the harness's process now: the outputs were never written (as in CPU mode, test_e2e.py)."""
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    result = run(spec, SOLUTIONS / cheat)
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert "never written" in result.message, result.message


@pytest.mark.parametrize("name", ATTACKS)
def test_an_attack_on_the_judges_code_gets_nothing_on_the_gpu_either(name):
    """The harness's classes (tests/test_harness.py) in GPU mode, where the judge's slots reach the solution's
    process as CUDA IPC handles instead of CPU mode's shared file: solve() still writes only what the attack got."""
    result = judge_solution(TINY, str(HOSTILE / name), Options(seed=5, benchmark=False))
    assert result.verdict == Verdict.WRONG_ANSWER, (result.verdict, result.message)
    assert not any(t.verdict == Verdict.ACCEPTED for t in result.tests), [(t.name, t.verdict) for t in result.tests]


def test_a_tensor_kept_from_an_earlier_call_is_readable_on_the_gpu():
    """The red team's honest memoising solve() (tests/solutions/harness_redteam/keeps_input.py) on the transpose
    spec's sizes, which grow the judge's device memory (a new IPC allocation each time): the worker closes an
    allocation when its last tensor goes, not when the next arrives, so the kept tensor is never unmapped."""
    spec = small_bench_spec("transpose", "  - {name: square-64, rows: 64, cols: 64}\n")
    result = run(spec, ROOT / "tests" / "solutions" / "harness_redteam" / "keeps_input.py", benchmark=False)
    assert result.verdict == Verdict.ACCEPTED, result.message
