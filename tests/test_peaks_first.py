"""On a fresh GPU machine the device's peaks are measured while the early worker is
still importing, before the init message lets any of the solution's code run
(Runner.measure_peaks_first), and the benchmark stage then uses them."""

from __future__ import annotations

from judge.judging import runner as runner_module
from judge.judging.runner import Options, Runner, RunResult
from judge.judging import benchmark_stage
from judge.timing import peaks as peaks_module


class FakeWorker:
    def __init__(self, order):
        self.order, self.process = order, object()

    def start(self, timeout):
        self.order.append("init sent")

    def stop(self):
        self.order.append("stopped")


def _runner(order, **options) -> Runner:
    runner = Runner.__new__(Runner)
    runner.interpret, runner.device = False, "cuda:0"
    runner.options = Options(**options)
    runner.events = runner_module.Events()
    runner.result = RunResult("c", "s.py", "gpu", 1, "cuda:0", environment={"gpu": "G", "driver": "d", "torch": "t"})
    runner.early_worker, runner.peaks, runner.worker = None, None, None
    runner.spec, runner.seed, runner.reference, runner.timings = None, 1, None, []  # what bench_context reads
    runner.take_early_worker = lambda: FakeWorker(order)
    return runner


def test_uncached_peaks_are_measured_before_the_solution_can_run(monkeypatch, tmp_path):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path))
    order = []
    monkeypatch.setattr(peaks_module, "measure_peaks", lambda device: order.append("peaks") or {"copy_gbps": 1.0})
    runner = _runner(order)
    assert runner.start_worker()
    assert order == ["peaks", "init sent"] and runner.peaks["copy_gbps"] == 1.0
    assert "peaks" in runner.result.phases_s
    # the benchmark stage takes them as they are, without measuring or reading again
    monkeypatch.setattr(benchmark_stage, "get_peaks", lambda *a: (_ for _ in ()).throw(AssertionError("again")))
    monkeypatch.setattr(benchmark_stage, "_time_baseline", lambda *a: [])
    runner.baseline = None
    runner.record_benchmarks(benchmark_stage.run_benchmarks(runner.bench_context(), []))
    assert runner.result.environment["peaks"]["copy_gbps"] == 1.0


def test_cached_peaks_no_benchmark_or_cpu_mode_measure_nothing_first(monkeypatch, tmp_path):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path))
    order = []
    monkeypatch.setattr(peaks_module, "measure_peaks", lambda device: order.append("peaks") or {"copy_gbps": 2.0})
    peaks_module.get_peaks("cuda:0", {"gpu": "G", "driver": "d", "torch": "t"})  # now cached
    order.clear()
    for options, interpret in [({}, False), ({"benchmark": False}, False), ({}, True)]:
        runner = _runner(order, **options)
        runner.interpret = interpret
        assert runner.start_worker()
    assert order == ["init sent"] * 3
    runner = _runner(order, remeasure_peaks=True)
    runner.start_worker()
    assert order[-2:] == ["peaks", "init sent"]


def test_a_failed_early_measurement_is_left_for_the_benchmarks(monkeypatch, tmp_path):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path))
    order = []

    def out_of_memory(device):
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(peaks_module, "measure_peaks", out_of_memory)
    runner = _runner(order)
    assert runner.start_worker() and order == ["init sent"] and runner.peaks is None
