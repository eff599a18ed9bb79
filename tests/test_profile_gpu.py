"""CuTe solutions and ``judge profile`` on a GPU (``pytest -m gpu tests/test_profile_gpu.py``; issue 41).

The CuTe tests need nvcc and the CUTLASS headers (pip install 'judge[cutlass]' or CUTLASS_PATH); the
Nsight Compute test needs ncu with readable counters."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from judge.challenge.catalog import load_challenge
from judge.cli import main
from judge.judging.dispatch import judge_solution
from judge.judging.runner import Options
from judge.judging.verdict import Verdict
from judge.worker.cuda_build import find_cutlass, find_nvcc
from judge.worker.tool_wrap import find_tool

from conftest import EXAMPLES

pytestmark = pytest.mark.gpu
needs_cute = pytest.mark.skipif(find_nvcc() is None or find_cutlass() is None,
                                reason="needs nvcc and the CUTLASS headers")


@needs_cute
@pytest.mark.parametrize("name", ["cute_naive.cu", "cute_smem.cu", "cute_swizzle.cu"])
def test_the_cute_transposes_are_accepted(name):
    """The functional tests hold 1x1, 1x7, 31x33, 1000x999...: every edge tile of the 64x64 tiling."""
    result = judge_solution(load_challenge("transpose"), str(EXAMPLES / "transpose" / name),
                            Options(seed=1, benchmark=False))
    assert result.verdict == Verdict.ACCEPTED, result.message
    assert any("CUTLASS" in note for note in result.notes), result.notes


def _profile(*args: str) -> dict:
    result = CliRunner().invoke(main, ["profile", *args, "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_profile_lists_the_tiled_kernel_at_the_bandwidth_judge_run_reports():
    """One kernel, named; its bytes per second within 10 % of the median judge run reports on the same case."""
    spec = load_challenge("transpose")
    run = judge_solution(spec, str(EXAMPLES / "transpose" / "tiled.py"), Options(seed=1))
    assert run.verdict == Verdict.ACCEPTED, run.message
    (timed,) = [b for b in run.benchmarks if b["name"] == "square-8192"]
    report = _profile("transpose", str(EXAMPLES / "transpose" / "tiled.py"), "--case", "square-8192", "--no-ncu")
    assert report["check"] == "correct" and report["cupti"]["calls"] == 5
    (kernel,) = report["cupti"]["kernels"]
    assert "transpose" in kernel["short_name"] and kernel["launches"] == 1 and kernel["grid"] and kernel["block"]
    assert abs(kernel["gbps"] - timed["gbps"]) <= 0.10 * timed["gbps"], (kernel["gbps"], timed["gbps"])
    assert kernel["share"] == pytest.approx(1.0)


@needs_cute
def test_profile_of_a_cute_solution_reads_its_registers_and_shared_memory():
    report = _profile("transpose", str(EXAMPLES / "transpose" / "cute_swizzle.cu"), "--case", "square-8192",
                      "--no-ncu", "--calls", "3")
    (kernel,) = report["cupti"]["kernels"]
    assert kernel["short_name"] == "transpose_cute_swizzle" and kernel["shared_memory"] == 64 * 64 * 4
    assert kernel["block"] == [256, 1, 1] and kernel["grid"] == [128, 128, 1] and kernel["registers"] > 0


@pytest.mark.skipif(find_tool("ncu") is None, reason="no Nsight Compute")
def test_profile_with_nsight_compute_reports_each_kernels_metrics(tmp_path):
    path = tmp_path / "tiled.ncu-rep"
    report = _profile("transpose", str(EXAMPLES / "transpose" / "tiled.cu"), "--case", "square-8192",
                      "--ncu-report", str(path))
    ncu = report["ncu"]
    assert ncu["status"] == "measured", ncu
    (kernel,) = ncu["kernels"]
    assert kernel["short_name"] == "transpose_tiled" and kernel["launches"] == 1
    for key in ("duration_us", "dram_pct", "sm_pct", "occupancy_pct", "l2_hit_pct", "registers"):
        assert kernel[key] is not None and kernel[key] >= 0, key
    assert kernel["shared_memory_per_block"] == 32 * 33 * 4 and len(kernel["top_stalls"]) == 3
    assert os.path.getsize(ncu["report"]) > 0 and ncu["report"] == str(path)
