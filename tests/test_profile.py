"""``judge profile`` without a GPU (issue 41): the report built from records (judge/timing/kernel_profile.py),
the worker's cut of a profiler trace (judge/worker/kernel_trace.py), running a worker under a tool
(judge/worker/tool_wrap.py), and the command's answers where there is no GPU.  The GPU half is
tests/test_profile_gpu.py; the samples under tests/data/profile/ were recorded on an H200 by
scripts/cute_profile_gpu.sh profiles."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.timing import kernel_profile as kp
from judge.worker import tool_wrap
from judge.worker.kernel_trace import records

from conftest import ROOT

PEAKS = {"copy_gbps": 4000.0, "fp32_tflops": 50.0}


def _kernel(name, ts, dur, grid=(128, 128, 1), block=(256, 1, 1), corr=1):
    return {"kind": "kernel", "name": name, "ts": ts, "dur": dur, "correlation": corr, "grid": list(grid),
            "block": list(block), "registers": 32, "shared_memory": 16384, "stream": 7}


def _launch(ts, corr):
    return {"kind": "launch", "name": "cudaLaunchKernel", "ts": ts, "dur": 3.0, "correlation": corr}


# -- the CUPTI part ---------------------------------------------------------------------------------------
def test_one_kernel_is_the_whole_call_and_gets_the_calls_rate():
    calls = [{"host_ms": 0.01, "records": [_launch(0.0, 1), _kernel("void transpose_kernel<64>(float*)", 5.0, 134.0)]}
             for _ in range(3)]
    report = kp.cupti_report(calls, 2 * 8192 * 8192 * 4, 0, "memory", PEAKS)
    (kernel,) = report["kernels"]
    assert kernel["short_name"] == "transpose_kernel" and kernel["launches"] == 1 and kernel["share"] == 1.0
    assert kernel["grid"] == [128, 128, 1] and kernel["registers"] == 32 and kernel["shared_memory"] == 16384
    gbps = 2 * 8192 * 8192 * 4 / 134e-6 / 1e9
    assert kernel["gbps"] == pytest.approx(gbps) and kernel["pct_of_peak"] == pytest.approx(100 * gbps / 4000)
    assert report["call"]["span_us"] == 134.0 and report["call"]["gbps"] == pytest.approx(gbps)
    assert report["call"]["peak_kind"] == "copy bandwidth" and report["gaps"]["first_launch_us"] == 5.0
    assert report["call"]["host_us"] == pytest.approx(10.0)


def test_two_kernels_share_the_call_and_the_gap_between_them_is_idle_time():
    records_ = [_launch(0, 1), _kernel("k_a", 10.0, 30.0, corr=1), _launch(2, 2), _kernel("k_b", 50.0, 10.0, corr=2)]
    report = kp.cupti_report([{"records": records_}], 1e6, 0, "memory", PEAKS)
    names = [k["short_name"] for k in report["kernels"]]
    assert names == ["k_a", "k_b"]  # by time
    assert [k["share"] for k in report["kernels"]] == [pytest.approx(0.75), pytest.approx(0.25)]
    assert "gbps" not in report["kernels"][0]  # which kernel moved which bytes is not known from CUPTI
    assert report["call"]["span_us"] == 50.0 and report["call"]["busy_us"] == 40.0 and report["call"]["idle_us"] == 10.0
    assert report["gaps"] == {"per_call": 1, "idle_us": 10.0, "largest_us": [10.0], "first_launch_us": 10.0}


def test_overlapping_kernels_on_two_streams_are_not_counted_twice():
    records_ = [_kernel("a", 0.0, 100.0), _kernel("b", 20.0, 30.0), _kernel("c", 90.0, 20.0)]
    call = kp.cupti_report([{"records": records_}], 0, 0, "memory", None)["call"]
    assert call["span_us"] == 110.0 and call["busy_us"] == 110.0 and call["gbps"] is None


def test_launches_per_call_and_times_are_medians_over_the_calls():
    calls = [{"records": [_kernel("step", 10.0 * i, 5.0 + n) for i in range(4)]} for n in (0, 1, 50)]
    (kernel,) = kp.cupti_report(calls, 0, 0, "memory", None)["kernels"]
    assert kernel["launches"] == 4 and kernel["time_us"] == 24.0  # the 50 µs-slower call does not move it


def test_copies_and_fills_are_rows_of_their_own():
    records_ = [_kernel("k", 0.0, 10.0), {"kind": "memset", "name": "Memset (Device)", "ts": 12.0, "dur": 2.0,
                                          "bytes": 4096}]
    kernels = kp.cupti_report([{"records": records_}], 0, 0, "memory", None)["kernels"]
    assert [k["short_name"] for k in kernels] == ["k", "[memset] Memset (Device)"] and kernels[1]["bytes"] == 4096


def test_a_compute_bound_call_is_rated_in_flops_against_the_fp32_peak():
    flops = 2.0 * 8192 * 6144 * 4096
    call = kp.cupti_report([{"records": [_kernel("mm", 0.0, 9400.0)]}], 1e9, flops, "compute", PEAKS)["call"]
    assert call["tflops"] == pytest.approx(flops / 9.4e-3 / 1e12) and call["peak_kind"] == "fp32 matmul (cuBLAS)"


def test_malformed_records_from_the_worker_are_dropped_not_trusted():
    calls = [{"records": [{"kind": "kernel", "name": "k", "ts": "0", "dur": 1.0}, {"kind": "kernel", "ts": 0.0,
              "dur": -5.0}, "junk", {"kind": "kernel", "name": "ok", "ts": 1.0, "dur": 2.0, "grid": ["x"],
                                      "registers": True}], "host_ms": "fast", "cut": 3}, "junk"]
    report = kp.cupti_report(calls, 0, 0, "memory", None)
    (kernel,) = report["kernels"]
    assert kernel["name"] == "ok" and kernel["grid"] is None and kernel["registers"] is None
    assert report["call"]["host_us"] is None and report["records_cut"] == 3 and report["calls"] == 1


DATA = ROOT / "tests" / "data" / "profile"


def _sample(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def test_a_recorded_cute_transpose_profile_reads_its_one_kernel():
    """CUPTI's records of five calls of cute_swizzle.cu on 8192², taken on an H200 (judge profile --keep-raw)."""
    sample = _sample("cupti_transpose_cute_swizzle.json")
    durations = sorted(r["dur"] for call in sample["cupti_calls"] for r in call["records"] if r["kind"] == "kernel")
    report = kp.cupti_report(sample["cupti_calls"], 2 * 8192 * 8192 * 4, 0, "memory", {"copy_gbps": 4175.0})
    (kernel,) = report["kernels"]
    assert kernel["short_name"] == "transpose_cute_swizzle" and kernel["name"].startswith("void transpose_cute_swizzle<")
    assert kernel["launches"] == 1 and kernel["grid"] == [128, 128, 1] and kernel["block"] == [256, 1, 1]
    assert kernel["registers"] == 32 and kernel["shared_memory"] == 16384 and kernel["share"] == pytest.approx(1.0)
    assert kernel["time_us"] == durations[2] and report["call"]["span_us"] == pytest.approx(durations[2])
    assert kernel["gbps"] == pytest.approx(2 * 8192 * 8192 * 4 / (durations[2] * 1e-6) / 1e9)
    assert 90 < kernel["pct_of_peak"] < 100 and report["gaps"]["per_call"] == 0
    assert 0 < report["gaps"]["first_launch_us"] < 100 and report["call"]["host_us"] < 1000


def test_a_recorded_triton_matmul_profile_is_rated_in_flops():
    sample = _sample("cupti_matmul_tiled.json")
    flops = 2.0 * 8192 * 6144 * 4096
    report = kp.cupti_report(sample["cupti_calls"], 4.0 * (8192 * 6144 + 6144 * 4096 + 8192 * 4096), flops, "compute",
                             {"copy_gbps": 4175.0, "fp32_tflops": 50.8})
    (kernel,) = report["kernels"]
    assert kernel["short_name"] == "matmul_tiled_kernel" and kernel["registers"] == 96 and kernel["grid"] == [128, 64, 1]
    assert report["call"]["peak_kind"] == "fp32 matmul (cuBLAS)" and 40 < report["call"]["tflops"] < 47


@pytest.mark.parametrize("name, short", [
    ("void transpose_cute_swizzle<cute::Tensor<cute::ViewEngine<cute::gmem_ptr<float const*> >, "
     "cute::Layout<cute::tuple<int, int>, cute::tuple<int, cute::C<1> > > > >(cute::Tensor<...>, ...)",
     "transpose_cute_swizzle"),
    ("transpose_kernel", "transpose_kernel"),
    ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<...>(...)::{lambda(int)#1}>(int, "
     "at::native::...)", "at::native::elementwise_kernel"),
])
def test_kernel_names_lose_their_templates_and_parameters(name, short):
    assert kp.short_kernel_name(name) == short


def test_the_worker_keeps_the_gpus_records_and_their_launches_from_a_trace():
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "ts": 1, "dur": 5, "args": {}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2, "dur": 4, "args": {"correlation": 9}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamIsCapturing", "ts": 1, "dur": 1,
         "args": {"correlation": 8}},
        {"ph": "X", "cat": "kernel", "name": "k" * 5000, "ts": 10, "dur": 100,
         "args": {"correlation": 9, "grid": [4, 1, 1], "block": [128, 1, 1], "registers per thread": 40,
                  "shared memory": 0, "stream": 7}},
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": 120, "dur": 2,
         "args": {"correlation": 10, "bytes": 64}},
    ]
    found, cut = records(events)
    assert [r["kind"] for r in found] == ["launch", "kernel", "memset"] and cut == 0
    kernel = found[1]
    assert len(kernel["name"]) == 1000 and kernel["grid"] == [4, 1, 1] and kernel["registers"] == 40
    assert found[2]["bytes"] == 64


def test_each_recorded_call_keeps_what_was_launched_inside_its_range():
    """One profiler session, a range per call: the L2 flush and the inputs' draw between calls, launched
    outside the ranges, are in no call."""
    def launch(ts, corr):
        return {"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts, "dur": 2, "args": {"correlation": corr}}

    def kernel(ts, corr, name):
        return {"cat": "kernel", "name": name, "ts": ts, "dur": 50, "args": {"correlation": corr}}

    events = [launch(0, 1), kernel(5, 1, "flush"), {"cat": "user_annotation", "name": "judge.profile.call.1",
              "ts": 100, "dur": 80}, launch(110, 2), kernel(115, 2, "solve"), launch(200, 3), kernel(205, 3, "flush")]
    found, _ = records(events, (100, 180))
    assert [(r["kind"], r["name"]) for r in found] == [("launch", "cudaLaunchKernel"), ("kernel", "solve")]


# -- Nsight Compute -------------------------------------------------------------------------------------------
NCU_CSV = '''==PROF== Connected to process 1234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes.sum.per_second","dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","l1tex__t_sector_hit_rate.pct","launch__registers_per_thread","launch__shared_mem_per_block_static","launch__shared_mem_per_block_dynamic","lts__t_sector_hit_rate.pct","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio","smsp__average_warps_issue_stalled_selected_per_issue_active.ratio","smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"
"","","","","","","","","","","","Tbyte/second","%","usecond","%","register/thread","Kbyte/block","byte/block","%","%","%","inst","inst","inst","inst","inst"
"0","1234","python3","127.0.0.1","void transpose_tiled(const float *, float *, int, int)","1","7","(32, 8, 1)","(256, 256, 1)","0","9.0","3.91","87.5","137.25","0","16","4.22","0","52.3","31.2","83.1","12.5","4.25","1.5","1","0.75"
'''


def test_ncus_csv_is_read_with_its_units():
    rows = kp.parse_ncu_csv(NCU_CSV)
    assert len(rows) == 1 and rows[0]["gpu__time_duration.sum"] == (137.25, "usecond")
    (kernel,) = kp.ncu_kernels(rows)
    assert kernel["short_name"] == "transpose_tiled" and kernel["launches"] == 1
    assert kernel["duration_us"] == 137.25 and kernel["dram_bytes_per_s"] == pytest.approx(3.91e12)
    assert kernel["dram_pct"] == 87.5 and kernel["sm_pct"] == 31.2 and kernel["occupancy_pct"] == 83.1
    assert kernel["l1_hit_pct"] == 0 and kernel["l2_hit_pct"] == 52.3 and kernel["registers"] == 16
    assert kernel["shared_memory_per_block"] == pytest.approx(4220)
    assert [s["reason"] for s in kernel["top_stalls"]] == ["long_scoreboard", "barrier", "mio_throttle"]
    assert kernel["top_stalls"][0]["share"] == pytest.approx(12.5 / (12.5 + 4.25 + 1.5 + 0.75))  # selected is no stall


def test_ncus_refusal_of_the_counters_says_what_needs_admin_rights():
    output = ("==PROF== Connected to process 99\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission "
              "to access NVIDIA GPU Performance Counters on the target device 0.\n")
    problem = kp.ncu_problem(output)
    assert "NVreg_RestrictProfilingToAdminUsers=0" in problem and "root" in problem
    assert kp.ncu_problem("==ERROR== Failed to prepare kernel for profiling\n").startswith("Nsight Compute failed")
    assert kp.ncu_problem("==PROF== Disconnected from process 99\n") is None
    assert "no kernel" in kp.ncu_problem("==WARNING== No kernels were profiled.\n")


# -- the tool around the worker -------------------------------------------------------------------------------
def test_ncu_is_found_in_the_toolkit_and_its_folders_are_readable(tmp_path):
    toolkit = tmp_path / "cuda"
    (toolkit / "bin").mkdir(parents=True)
    real = toolkit / "nsight-compute-2025.3.1"
    real.mkdir()
    (real / "ncu").write_text("#!/bin/sh\n")
    (real / "ncu").chmod(0o755)
    (toolkit / "bin" / "ncu").symlink_to(real / "ncu")
    found = tool_wrap.find_tool("ncu", {"CUDA_HOME": str(toolkit), "PATH": ""})
    assert found == str(toolkit / "bin" / "ncu")
    assert str(real.resolve()) in tool_wrap.tool_folders(found)


def test_the_ncu_command_measures_only_the_profiled_range_with_the_clocks_left_alone():
    wrap = tool_wrap.ncu_wrap("/cuda/bin/ncu", "/tmp/r.ncu-rep", ["--set", "full"], locks=("/t/lock",))
    argv = list(wrap.argv)
    assert argv[0] == "/cuda/bin/ncu" and argv[argv.index("--profile-from-start") + 1] == "off"
    assert argv[argv.index("--clock-control") + 1] == "none" and argv[argv.index("--export") + 1] == "/tmp/r.ncu-rep"
    assert argv[-2:] == ["--set", "full"] and wrap.outputs == ("/tmp/r.ncu-rep",) and wrap.writable == ("/t/lock",)
    assert wrap.env == {"JUDGE_NAMESPACES": "0"}  # ncu's library must reach ncu: no network namespace of its own
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--section"] == list(tool_wrap.NCU_SECTIONS)


def test_ncus_lock_folder_is_made_for_all_users_and_is_what_the_worker_may_write(tmp_path):
    """ncu's library in the profiled worker makes and locks files in <tmp>/nvidia/nsight_compute (seen on the
    H200: without it, "Failed to open/create lock directory", then "lock file .../lock.<GPU UUID>",
    InterprocessLockFailed): the judge makes the folder beforehand, as a shared tool would, and the sandbox
    lets the worker write there; a folder that is a link is never granted."""
    (folder,) = tool_wrap.ncu_lock_folders({}, temps=(str(tmp_path),))
    assert folder == str((tmp_path / "nvidia" / "nsight_compute").resolve()) and os.path.isdir(folder)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o1777
    assert stat.S_IMODE(os.stat(tmp_path / "nvidia").st_mode) == 0o1777
    (tmp_path / "other" / "nvidia").mkdir(parents=True)
    (tmp_path / "other" / "nvidia" / "nsight_compute").symlink_to(tmp_path / "home")
    (tmp_path / "home").mkdir()
    assert tool_wrap.ncu_lock_folders({}, temps=(str(tmp_path / "other"),)) == ()


def test_in_the_sandbox_ncus_lock_can_be_made_and_locked_and_nothing_outside(tmp_path):
    import subprocess
    import textwrap

    from judge.defence import sandbox

    if not sandbox.available()["landlock"].startswith("on"):
        pytest.skip("no Landlock here")
    (tmp_path / "tmp").mkdir()
    (folder,) = tool_wrap.ncu_lock_folders({}, temps=(str(tmp_path / "tmp"),))
    policy = sandbox.policy_for(str(tmp_path / "sol"), str(tmp_path / "scratch"), (folder,)).as_message()
    code = textwrap.dedent(f"""
        import fcntl, os
        from judge.defence import sandbox
        print(sandbox.apply(sandbox.Policy.from_message({policy!r})))
        with open(os.path.join({folder!r}, "lock.GPU-1234"), "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            print("locked")
        try:
            open(os.path.join({str(tmp_path)!r}, "planted"), "w")
            print("planted")
        except PermissionError:
            print("refused")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert "locked" in done.stdout and "refused" in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
def test_a_wrapped_worker_is_started_by_its_tool_with_its_pipes_and_sandbox(tmp_path, monkeypatch):
    """A stand-in tool that runs its program: the worker behind it loads, answers a call, and its sandbox reads
    the tool's folder.  The same path ncu takes, minus the GPU (CPU mode)."""
    from judge.challenge.catalog import load_challenge
    from judge.worker.client import Worker

    tool = tmp_path / "tool" / "fake-ncu"
    tool.parent.mkdir()
    tool.write_text('#!/bin/sh\n"$@"\necho "tool: the program ended" >&2\n')  # as ncu, which reports after it
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    spec = load_challenge("vector_add")
    worker = Worker(str(ROOT / "solutions" / "vector_add" / "blocked.py"), spec, "cpu", True)
    lock = tmp_path / "locks"
    lock.mkdir()
    worker.wrap = tool_wrap.Wrap("fake", (str(tool),), (str(tool.parent),), (str(lock),))
    try:
        worker.start(120)
        policy = worker._policy()
        assert str(tool.parent) in policy["read"] and str(lock) in policy["write"]
        from judge.judging.reference import Reference

        fields = worker.place(spec.parameters, Reference(spec, "cpu").call_arguments({"N": 8}, 1))
        header, _ = worker.request({"op": "call", **fields}, 60)
        assert header["ok"], header
        assert "tool: the program ended" in worker.end_wrapped(10)
    finally:
        worker.stop()


# -- the command ------------------------------------------------------------------------------------------------
def test_profile_without_a_gpu_is_a_usage_error_that_says_why(monkeypatch):
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    result = CliRunner().invoke(main, ["profile", "transpose", str(ROOT / "solutions" / "transpose" / "tiled.py")])
    assert result.exit_code == 2
    assert "needs an NVIDIA GPU" in result.output and "CPU mode" in result.output


def test_profile_names_the_cases_when_the_one_asked_for_does_not_exist():
    from judge.challenge.catalog import load_challenge
    from judge.judging.profile import ProfileError, choose_case

    spec = load_challenge("transpose")
    assert choose_case(spec, None).name == "square-8192"  # the most bytes
    with pytest.raises(ProfileError, match="no benchmark case 'huge'.*leetgpu-7000x6000 \\(rows=7000, cols=6000\\)"):
        choose_case(spec, "huge")


def test_profile_says_it_needs_a_gpu_before_importing_torch():
    """Issue 49 item 9: 3.3 s before saying so, importing torch to learn what torch's own files tell."""
    import subprocess

    from judge.base.cuda_driver import torch_has_cuda, visible_device_count

    if not (torch_has_cuda() is False or visible_device_count() == 0):
        pytest.skip("torch may see a GPU here")
    code = ("import sys\nfrom judge.cli import main\ntry:\n    main(['profile', 'transpose', 'x.py'])\n"
            "except SystemExit as exc:\n    print(exc.code, 'torch' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), JUDGE_SERVER="0")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.split() == ["2", "False"], done.stdout + done.stderr
    assert "needs an NVIDIA GPU" in done.stderr


def test_only_a_certain_answer_skips_torch():
    from judge.judging.profile_needs import certainly_no_gpu

    assert certainly_no_gpu(False, None) and certainly_no_gpu(True, 0) and certainly_no_gpu(None, 0)
    assert not certainly_no_gpu(True, 1) and not certainly_no_gpu(None, None) and not certainly_no_gpu(True, None)
