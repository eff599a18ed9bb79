"""``judge profile CHALLENGE SOLUTION``: the solution's kernels on one benchmark case, as the GPU ran them.

The same worker, sandbox and inputs as ``judge run``: the solution loads in a worker confined as a run's
(a .cu is built the same way), and the inputs are drawn in the worker from the case's seed, as a run's
are.  Two passes, each in a worker of its own:

1. **CUPTI** (always): torch's profiler records a few calls after an unrecorded one (compiles,
   autotuning), each after an L2 flush (judge/worker/kernel_trace.py); judge/timing/kernel_profile.py
   turns the records into the report's call and kernel tables.  The last call's outputs are checked
   against the challenge's reference: a profile of a wrong answer says so.
2. **Nsight Compute** (when ``ncu`` is found, unless ``ncu="off"``): ncu starts the worker
   (judge/worker/tool_wrap.py) and measures the kernels of one call inside CUDA's profiler range; its
   report (``.ncu-rep``, for the GUI) is read back with ``ncu --import --csv`` for the metrics that
   explain a kernel's speed.  ncu runs the solution's code only inside the confined worker.

``profile_solution`` is the one call (the CLI and ``judge ui`` use it); it returns the report as a dict
(the shape of ``judge profile --json``).  Raises ProfileError for what the user must change (no GPU,
an unknown case, a solution that does not load).
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from judge.challenge.cases import benchmark_cases, describe
from judge.judging.profile_needs import NEEDS_GPU
from judge.challenge.seeds import case_seed as derive_case_seed
from judge.judging.reference import Reference
from judge.timing import kernel_profile
from judge.worker import tool_wrap
from judge.worker.client import SubmissionInvalid, Worker, WorkerCrashed, WorkerTimeout
from judge.defence.limits import Limits

__all__ = ["ProfileOptions", "ProfileError", "profile_solution", "NEEDS_GPU", "choose_case"]

NCU_NOT_FOUND = ("Nsight Compute (ncu) was not found ($CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin, "
                 "/opt/nvidia/nsight-compute): the report has CUPTI's records only. Nsight Compute comes with "
                 "the CUDA toolkit; with it, judge profile adds DRAM and SM throughput, occupancy, cache hit "
                 "rates and stall reasons per kernel.")


class ProfileError(Exception):
    """What the user must change before a profile can be made (exit 2)."""


@dataclass
class ProfileOptions:
    """How to profile; defaults match the CLI's (``judge profile --help``)."""

    case: str | None = None  # a benchmark case's name; None: the one that moves the most bytes
    seed: int | None = None  # the run's seed (the case's inputs are drawn from it, as in judge run)
    device: str | None = None
    calls: int = 5  # calls recorded by CUPTI, after one that is not
    ncu: str = "auto"  # "auto": when ncu is found; "off"
    report_path: str | None = None  # where ncu's report goes (None: in the judge's cache)
    timeout: float = 30.0  # per call, as judge run's --timeout
    compile_timeout: float = 180.0
    ncu_timeout: float = 600.0  # ncu replays every kernel dozens of times
    limits: Limits = field(default_factory=Limits)
    keep_raw: bool = False  # the report keeps the records it was built from ("raw": samples for tests)
    interpret: bool = False  # CPU mode asked for (judge ui --interpret): refused with NEEDS_GPU, as without a GPU


def choose_case(spec, name: str | None):
    """The benchmark case named ``name``, else the one that moves the most bytes (the last of equals)."""
    cases = benchmark_cases(spec)
    if not cases:
        raise ProfileError(f"challenge '{spec.name}' has no benchmark case to profile")
    if name is None:
        return max(reversed(cases), key=lambda c: (spec.bytes_moved(c.params), spec.flops(c.params)))
    for case in cases:
        if case.name == name:
            return case
    names = ", ".join(f"{c.name} ({describe(c.params)})" for c in cases)
    raise ProfileError(f"challenge '{spec.name}' has no benchmark case '{name}'; its cases: {names}")


def profile_solution(spec, solution: str, options: ProfileOptions, status=None) -> dict:
    """Profile ``solution`` on one benchmark case of ``spec`` (see the module's docstring); the report."""
    import torch

    from judge.judging.runner import environment
    from judge.timing.contention import gpu_turn
    from judge.timing.peaks import get_peaks

    say = status or (lambda text: None)
    if getattr(spec, "shipped", False):
        raise ProfileError("judge profile takes YAML challenges for now; a LeetGPU challenge folder's inputs come "
                           "from its generators (judge run and judge rank time it)")
    if options.interpret or not torch.cuda.is_available():
        raise ProfileError(NEEDS_GPU)
    device = options.device or "cuda:0"
    case = choose_case(spec, options.case)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    env = environment(device)
    report = {"challenge": spec.name, "solution": str(solution), "case": {"name": case.name, "params": case.params},
              "seed": seed, "device": env.get("gpu"), "environment": env, "notes": []}
    with gpu_turn(env, device, say):
        say("measuring the device's peaks (once per device)")
        peaks = get_peaks(device, env)
        report["peaks"] = {k: peaks.get(k) for k in ("copy_gbps", "fp32_tflops", "tf32_tflops", "bf16_tflops")}
        pass_seed = derive_case_seed(seed, case.name)
        say(f"recording {options.calls} calls of solve() on {case.name} with CUPTI")
        calls, check, build = _cupti_pass(spec, solution, case, pass_seed, device, options)
        report["build"], report["check"] = build, check
        nbytes, flops = spec.bytes_moved(case.params), spec.flops(case.params)
        report["cupti"] = kernel_profile.cupti_report(calls, nbytes, flops, spec.bound, peaks)
        report["ncu"] = _ncu_pass(spec, solution, case, pass_seed, device, options, say)
    if options.keep_raw:
        report["raw"] = {"cupti_calls": calls, "ncu_csv": report["ncu"].pop("csv", None)}
    report["ncu"].pop("csv", None)
    if check != "correct":
        report["notes"].append(f"the profiled call's answer is wrong ({check}): its kernels may not do the work")
    return report


def _worker(spec, solution: str, device: str, options: ProfileOptions, wrap=None, mode: str = "cupti") -> Worker:
    worker = Worker(solution, spec, device, False, limits=options.limits)
    worker.wrap, worker.init_extra = wrap, {"profile": mode}
    return worker


def _start(worker: Worker, options: ProfileOptions) -> None:
    """Start the worker (a .cu is built first); a solution that does not load is the user's to fix.  The
    caller stops the worker (after reading what a tool printed)."""
    try:
        worker.start(options.compile_timeout)
    except SubmissionInvalid as exc:
        raise ProfileError(f"the solution could not be loaded ({exc.verdict}): {exc}") from None
    except (WorkerCrashed, WorkerTimeout) as exc:
        raise ProfileError(f"the solution's process failed while loading: {exc}\n{worker.output_tail()}") from None


def _request(worker: Worker, reference: Reference, case, seed: int, mode: str, calls: int, timeout: float,
             options: ProfileOptions) -> dict:
    """The ``profile`` request on the case's inputs drawn from ``seed``, placed here; its reply.  A call that fails
    is the user's to fix (ProfileError)."""
    fields = worker.place(reference.spec.parameters, reference.call_arguments(case.params, seed))
    try:
        header, _ = worker.request({"op": "profile", "calls": calls, "mode": mode, **fields}, timeout,
                                   f"profiling solve() on {case.name}", cap=options.compile_timeout)
    except (WorkerCrashed, WorkerTimeout) as exc:
        raise ProfileError(f"solve() failed while it was profiled: {exc}\n{worker.output_tail()}".strip()) from None
    if not header.get("ok"):
        raise ProfileError(f"solve() failed while it was profiled ({header.get('verdict', 'runtime_error')}): "
                           f"{header.get('message', '')}\n{worker.output_tail()}".strip())
    return header


def _cupti_pass(spec, solution: str, case, seed: int, device: str, options: ProfileOptions):
    """(the worker's recorded calls, the last call's check, the CUDA build if any)."""
    reference = Reference(spec, device)
    worker = _worker(spec, solution, device, options)
    try:
        _start(worker, options)
        timeout = options.timeout * (options.calls + 2) + 30.0
        header = _request(worker, reference, case, seed, "cupti", options.calls, timeout, options)
        check = _check(reference, worker, case, seed)
        calls = header.get("calls") if isinstance(header.get("calls"), list) else []
        return calls, check, dict(worker.build)
    finally:
        worker.stop()


def _check(reference: Reference, worker: Worker, case, seed: int) -> str:
    """"correct", or what is wrong with the last profiled call's outputs (read from the shared memory)."""
    outside = worker.stores_outside()
    if outside:
        return "wrong: " + " | ".join(outside)[:400]
    bad = [m for m in reference.check(case.params, seed, worker.results()) if not m.ok]
    return "correct" if not bad else "wrong: " + " | ".join(m.message() for m in bad)[:400]


def default_report_path(spec, solution: str, case) -> str:
    """Where ncu's report goes unless the user names a file: the judge's cache, one file per profile."""
    from judge.base.paths import cache_dir

    folder = cache_dir() / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return str(folder / f"{spec.name}-{Path(solution).stem}-{case.name}-{stamp}.ncu-rep")


def _ncu_pass(spec, solution: str, case, seed: int, device: str, options: ProfileOptions, say) -> dict:
    """Nsight Compute's part of the report: {"status", "report", "kernels", "problem"}."""
    if options.ncu == "off":
        return {"status": "off"}
    ncu = tool_wrap.find_tool("ncu")
    if ncu is None:
        return {"status": "not found", "problem": NCU_NOT_FOUND}
    path = os.path.abspath(options.report_path) if options.report_path else default_report_path(spec, solution, case)
    if not path.endswith(".ncu-rep"):
        path += ".ncu-rep"
    extra = os.environ.get(tool_wrap.NCU_FLAGS_ENV, "").split()
    worker = _worker(spec, solution, device, options, tool_wrap.ncu_wrap(ncu, path, extra), mode="ncu")
    say(f"measuring one call of solve() on {case.name} with Nsight Compute ({ncu})")
    output = ""
    try:
        _start(worker, options)
        _request(worker, Reference(spec, device), case, seed, "ncu", 1, options.ncu_timeout, options)
        output = worker.end_wrapped(options.ncu_timeout)
    except ProfileError as exc:
        output = worker.output_tail(65536, 400)
        problem = kernel_profile.ncu_problem(output) or str(exc)
        return {"status": "failed", "problem": problem, "tool": ncu}
    finally:
        worker.stop()
    problem = kernel_profile.ncu_problem(output)
    if problem or not os.path.isfile(path):
        return {"status": "failed", "tool": ncu,
                "problem": problem or f"Nsight Compute wrote no report ({path}); what it printed:\n{output[-2000:]}"}
    return _read_ncu_report(ncu, path)


def _read_ncu_report(ncu: str, path: str) -> dict:
    """The report's metrics (``ncu --import --csv --page raw``)."""
    try:
        done = subprocess.run([ncu, "--import", path, "--csv", "--page", "raw", "--print-units", "base"], capture_output=True, text=True,
                              timeout=300, errors="replace")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"status": "failed", "tool": ncu, "report": path, "problem": f"ncu --import failed: {exc}"}
    rows = kernel_profile.parse_ncu_csv(done.stdout)
    if done.returncode != 0 or not rows:
        return {"status": "failed", "tool": ncu, "report": path,
                "problem": f"ncu --import read no kernel (exit status {done.returncode}): {done.stderr[-600:]}"}
    return {"status": "measured", "tool": ncu, "report": path, "kernels": kernel_profile.ncu_kernels(rows),
            "csv": done.stdout}
