"""GPU tests: run on a CUDA machine with ``pytest -m gpu`` (deselected elsewhere)."""

from __future__ import annotations

import pytest
import torch

from judge.challenge.catalog import load_challenge
from judge.judging.reference import Reference
from judge.judging.runner import Options
from judge.judging.dispatch import judge_solution
from judge.challenge.spec import parse_spec
from judge.challenge.tensors import make_arguments
from judge.judging.verdict import Verdict

from conftest import CHALLENGES, EXAMPLES, SOLUTIONS

pytestmark = pytest.mark.gpu


def small_bench_spec(name: str, benchmarks: str):
    """A built-in spec with its benchmarks replaced (to keep GPU tests short)."""
    text = (CHALLENGES / f"{name}.yaml").read_text()
    head, _, rest = text.partition("benchmarks:")
    tail = rest[rest.index("\ncost:"):]
    return parse_spec(head + "benchmarks:\n" + benchmarks + tail, str(CHALLENGES / f"{name}.yaml"))


def run(spec, path, **options):
    options.setdefault("seed", 1)
    options.setdefault("bench_budget_s", 0.5)
    return judge_solution(spec, str(path), Options(**options))


@pytest.mark.parametrize("challenge, example", [
    ("transpose", "transpose/naive_1d.py"), ("transpose", "transpose/naive_2d.py"),
    ("transpose", "transpose/tiled.py"), ("transpose", "transpose/tuned.py"),
    ("copy", "copy/naive.py"), ("copy", "copy/tuned.py"),
    ("matmul", "matmul/tiled.py"), ("matmul", "matmul/grouped_autotuned.py"), ("matmul", "matmul/tf32x3.py"),
])
def test_examples_are_accepted_on_the_gpu(challenge, example):
    result = run(load_challenge(challenge), EXAMPLES / example, benchmark=False)
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.mode == "gpu"


def _matmul_ok(solve, M, N, K, seed=3) -> bool:
    spec = load_challenge("matmul")
    params = {"M": M, "N": N, "K": K}
    args = make_arguments(spec, params, seed, "cuda")
    solve(*args)
    torch.cuda.synchronize()
    got = {"A": args[0].cpu(), "B": args[1].cpu(), "C": args[2].cpu()}
    return all(m.ok for m in Reference(spec, "cuda").check(params, seed, got))


def _load(path):
    import importlib.util

    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.solve


@pytest.mark.parametrize("M, N, K", [(8192, 6144, 4096), (8192, 8192, 8192), (1, 8192, 1), (127, 4099, 65)])
def test_matmul_tolerance_accepts_every_fp32_order(M, N, K):
    assert _matmul_ok(lambda A, B, C, M, N, K: torch.matmul(A, B, out=C), M, N, K)  # cuBLAS fp32
    assert _matmul_ok(_load(EXAMPLES / "matmul/grouped_autotuned.py"), M, N, K)  # Triton ieee
    assert _matmul_ok(_load(EXAMPLES / "matmul/tf32x3.py"), M, N, K)


def test_matmul_tolerance_rejects_tf32_at_the_benchmark_size():
    assert not _matmul_ok(_load(SOLUTIONS / "matmul_tf32.py"), 8192, 6144, 4096)
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        assert not _matmul_ok(lambda A, B, C, M, N, K: torch.matmul(A, B, out=C), 8192, 6144, 4096)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def test_cuda_fault_is_a_runtime_error_and_the_judge_goes_on():
    result = run(load_challenge("transpose"), SOLUTIONS / "transpose_illegal_address.py", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert len(result.tests) > 1  # later cases still ran in fresh workers


def test_benchmark_reports_rates_peak_and_torch():
    spec = small_bench_spec("transpose", "  - {name: b4096, rows: 4096, cols: 4096}\n")
    result = run(spec, EXAMPLES / "transpose/tuned.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    (bench,) = result.benchmarks
    assert bench["calls"] >= 10 and bench["verified_calls"] >= 3
    assert bench["ci_low_ms"] <= bench["median_ms"] <= bench["ci_high_ms"]
    assert bench["gbps"] > 100 and 0 < bench["pct_of_peak"] < 150
    assert bench["torch_median_ms"] > 0 and bench["copy_bound_ms"] > 0
    assert bench["timer_trusted"]


def test_unjoined_stream_is_not_faster_than_the_honest_twin():
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    honest = run(spec, SOLUTIONS / "transpose_honest_20x.py")
    cheat = run(spec, SOLUTIONS / "transpose_side_stream.py")
    assert honest.verdict == Verdict.ACCEPTED, honest.message
    honest_ms = honest.benchmarks[0]["median_ms"]
    # The rule (docs/security.md): the judge waits for the whole device after every call, so work
    # left on another stream is always judged on its results, and timed by the host clock.
    assert cheat.verdict == Verdict.ACCEPTED, cheat.message
    bench = cheat.benchmarks[0]
    assert not bench["timer_trusted"]
    assert bench["median_ms"] >= 0.9 * honest_ms


def test_a_kernel_on_a_private_unjoined_stream_gets_one_verdict_in_20_runs():
    """Before, such a solution was wrong_answer in one run and accepted in others (a race on
    the memory of the last call's tensors).  20 seeds, every other run with benchmarks, four
    runs at a time on the GPU: one verdict, accepted."""
    from concurrent.futures import ThreadPoolExecutor

    spec = small_bench_spec("transpose", "  - {name: b1024, rows: 1024, cols: 1024}\n")

    def one(seed):
        result = run(spec, SOLUTIONS / "transpose_private_stream.py", seed=seed, benchmark=seed % 2 == 0,
                     bench_budget_s=0.2)
        return seed, result.verdict, result.message

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(one, range(1, 21)))
    assert {verdict for _, verdict, _ in outcomes} == {Verdict.ACCEPTED}, \
        [(seed, verdict.value, message[:200]) for seed, verdict, message in outcomes if verdict != Verdict.ACCEPTED]


def test_work_hidden_in_the_launch_guards_shadow_is_undone():
    """A 1 ms host sleep grows the guard to ~2 ms; 20 copies on an unjoined stream then ran while
    it slept, unseen by events and audit.  The outputs are poisoned again after the guard
    (bench.Repoison), so that work is overwritten and the verified calls fail."""
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    honest = run(spec, SOLUTIONS / "transpose_honest_20x.py")
    cheat = run(spec, SOLUTIONS / "cheat_hide_in_guard.py")
    assert honest.verdict == Verdict.ACCEPTED, honest.message
    if cheat.verdict == Verdict.ACCEPTED:
        assert cheat.benchmarks[0]["median_ms"] >= 0.9 * honest.benchmarks[0]["median_ms"]
    else:
        assert cheat.verdict == Verdict.WRONG_ANSWER, cheat.message


def test_host_work_and_copies_inside_the_guards_spin_are_timed():
    """Red team, 2026-11-26: the softmax computed on the host between two copy-engine copies, inside the spin
    that its own host time earns it, then one timed copy from scratch.  It read 0.0082 ms on an H100, trusted,
    against 0.0102 ms for the honest kernel, with a 1.57 ms guard.  The inputs now hold poison until the
    guard's fills run after its spin (timed_loop.Repoison): the copy reads poison and the verified calls fail.
    Were it ever accepted and trusted, its time would have to count the host's work (well over 0.1 ms)."""
    spec = load_challenge("softmax")
    honest = run(spec, EXAMPLES / "softmax/split.py")
    cheat = run(spec, SOLUTIONS / "cheat_host_compute_in_guard.py")
    assert honest.verdict == Verdict.ACCEPTED, honest.message
    fields = ("median_ms", "timer_trusted", "launch_guard_us", "exposed_dropped", "exposed_kept")
    print("honest", {k: honest.benchmarks[0].get(k) for k in fields})
    print("cheat", cheat.verdict.value, {k: cheat.benchmarks[0].get(k) for k in fields} if cheat.benchmarks else
          cheat.message[:300])
    assert cheat.verdict in (Verdict.WRONG_ANSWER, Verdict.ACCEPTED), cheat.message
    if cheat.verdict == Verdict.ACCEPTED and cheat.benchmarks[0]["timer_trusted"]:
        assert cheat.benchmarks[0]["median_ms"] >= 0.1


def test_two_phase_work_in_the_guards_shadow_is_timed():
    """20 transposes into scratch on an unjoined stream, a 1 ms host sleep (the guard grows), then the
    current stream waits and copies scratch to the output.  Under a guard that slept on one SM the
    transposes ran during it and only the copy was timed; the guard's kernel now holds every SM."""
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    honest = run(spec, SOLUTIONS / "transpose_honest_20x.py")
    cheat = run(spec, SOLUTIONS / "cheat_two_phase_guard.py")
    assert honest.verdict == Verdict.ACCEPTED and cheat.verdict == Verdict.ACCEPTED, (honest.message, cheat.message)
    assert honest.benchmarks[0]["guard_holds_gpu"] and cheat.benchmarks[0]["guard_holds_gpu"]
    if cheat.benchmarks[0]["timer_trusted"]:
        assert cheat.benchmarks[0]["median_ms"] >= 0.9 * honest.benchmarks[0]["median_ms"]


def test_wrong_result_while_timed_is_a_wrong_answer():
    spec = small_bench_spec("transpose", "  - {name: b1024, rows: 1024, cols: 1024}\n")
    result = run(spec, SOLUTIONS / "transpose_wrong_when_timed.py")
    assert result.verdict == Verdict.WRONG_ANSWER
    assert "timed call" in result.message


def test_patched_cuda_timers_do_not_make_a_solution_faster():
    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    honest = run(spec, SOLUTIONS / "transpose_honest_20x.py")
    cheat = run(spec, SOLUTIONS / "cheat_patch_timers.py")
    assert cheat.verdict == Verdict.ACCEPTED, cheat.message
    assert cheat.benchmarks[0]["median_ms"] >= 0.9 * honest.benchmarks[0]["median_ms"]


def test_pointer_keyed_cache_is_caught_while_timed():
    spec = small_bench_spec("transpose", "  - {name: b1024, rows: 1024, cols: 1024}\n")
    result = run(spec, SOLUTIONS / "cheat_cache_by_pointer.py")
    assert result.verdict == Verdict.WRONG_ANSWER


def test_gpu_memory_storm_is_a_clear_runtime_error():
    result = run(load_challenge("transpose"), SOLUTIONS / "abuse_gpu_memory.py", benchmark=False)
    assert result.verdict == Verdict.RUNTIME_ERROR
    assert "out of memory" in result.message.lower() or "OutOfMemoryError" in result.message
    again = run(load_challenge("transpose"), EXAMPLES / "transpose/tiled.py", benchmark=False)
    assert again.verdict == Verdict.ACCEPTED  # the GPU is usable afterwards


def test_an_uncached_torch_baseline_is_timed_by_a_worker_spawned_with_the_run(tmp_path, monkeypatch):
    """Its worker imports while the tests run, is loaded before the solution is timed,
    and is stopped with the run (issue 16)."""
    from judge.judging import benchmark_stage
    from judge.judging.runner import Runner

    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path))
    made, order = [], []
    real, real_tests = benchmark_stage.BaselineWorker.__init__, Runner.run_tests

    def spy(self, ctx):
        real(self, ctx)
        made.append(self)
        order.append("baseline spawned")

    def tests_spy(self, cases):
        order.append("tests")
        return real_tests(self, cases)

    monkeypatch.setattr(benchmark_stage.BaselineWorker, "__init__", spy)
    monkeypatch.setattr(Runner, "run_tests", tests_spy)
    spec = small_bench_spec("transpose", "  - {name: sq, rows: 2048, cols: 2048}\n")
    result = run(spec, EXAMPLES / "transpose/tuned.py")
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert len(made) == 1 and order[:2] == ["baseline spawned", "tests"], "spawned once, before the first test"
    assert made[0].worker.process is None and result.benchmarks[0]["torch_median_ms"] > 0
    again = run(spec, EXAMPLES / "transpose/tuned.py")  # now cached: no baseline worker at all
    assert len(made) == 1 and again.benchmarks[0]["torch_cached"]


@pytest.mark.parametrize("timeout", [3.0])
def test_a_hang_in_the_first_call_on_the_gpu_is_stopped_at_the_per_call_timeout(timeout):
    import time

    spec = small_bench_spec("transpose", "  - {name: sq, rows: 256, cols: 256}\n")
    started = time.monotonic()
    result = run(spec, SOLUTIONS / "transpose_hang.py", timeout=timeout)
    assert result.verdict == Verdict.TIME_LIMIT_EXCEEDED
    assert f"did not finish within {timeout:g} s" in result.tests[0].message
    assert time.monotonic() - started < 30


def test_a_real_slow_compile_is_not_counted_against_the_per_call_timeout(tmp_path, monkeypatch):
    """A fresh Triton cache and a kernel unrolled to compile for seconds, with a 1 s
    per-call timeout: accepted, because the compile is reported and not counted."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    solution = tmp_path / "slow_compile.py"
    solution.write_text(SLOW_COMPILE)
    spec = small_bench_spec("transpose", "  - {name: sq, rows: 256, cols: 256}\n")
    result = run(spec, solution, timeout=1.0, benchmark=False)  # the worker inherits TRITON_CACHE_DIR
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert result.phases_s["first_call"] > 1.0, "the compile took longer than the per-call timeout"


# A transpose whose kernel XORs its bits with a constant twice, 4000 times over,
# fully unrolled: bit-identical results, and seconds of code generation.
SLOW_COMPILE = '''
import triton
import triton.language as tl


@triton.jit
def _k(x, y, rows, cols, B: tl.constexpr):
    r = tl.program_id(0) * B + tl.arange(0, B)
    c = tl.program_id(1) * B + tl.arange(0, B)
    m = (r[:, None] < rows) & (c[None, :] < cols)
    bits = tl.load(x + r[:, None] * cols + c[None, :], mask=m).to(tl.int32, bitcast=True)
    for i in tl.static_range(4000):
        bits = bits ^ (i + 1)
        bits = bits ^ (i + 1)
    tile = bits.to(tl.float32, bitcast=True)
    tl.store(y + c[:, None] * rows + r[None, :], tl.trans(tile), mask=(c[:, None] < cols) & (r[None, :] < rows))


def solve(input, output, rows, cols):
    _k[(triton.cdiv(rows, 32), triton.cdiv(cols, 32))](input, output, rows, cols, B=32)
'''


def test_a_real_tf32_matmul_gets_the_tf32_hint():
    """tl.dot with input_precision="tf32" on the GPU (what its default gives): the hint's TF32 emulation
    (inputs rounded to nearest) must explain the hardware's result, or the hint never fires where it matters."""
    result = run(load_challenge("matmul"), SOLUTIONS / "matmul_tf32.py", benchmark=False)
    assert result.verdict == Verdict.WRONG_ANSWER
    failed = [t for t in result.tests if t.verdict == Verdict.WRONG_ANSWER]
    print("tf32 hint:", [(t.name, "rounded to TF32" in t.message) for t in failed])
    assert failed and all("rounded to TF32" in t.message for t in failed), failed[0].message
