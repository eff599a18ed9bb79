"""``judge profile CHALLENGE SOLUTION``: the solution's kernels on one benchmark case (judging/profile.py)."""

from __future__ import annotations

import json
import sys

import click

from judge.base.exit_codes import ExitCode
from judge.cli.base import (UserError, challenge_argument, check_solution_file, json_option, load_spec_or_exit,
                            main_group, seed_option, user_errors)


@main_group.command("profile")
@challenge_argument
@click.argument("solution", metavar="SOLUTION")
@click.option("--case", "case_name", default=None, metavar="NAME",
              help="The benchmark case to profile [default: the one that moves the most bytes]; 'judge show "
                   "CHALLENGE' lists them.")
@seed_option
@click.option("--device", default=None, help="CUDA device, e.g. cuda:1 (default cuda:0).")
@click.option("--calls", type=click.IntRange(1, 20), default=5, show_default=True,
              help="Calls recorded by CUPTI (after one that compiles and is not recorded); medians are reported.")
@click.option("--no-ncu", is_flag=True, help="Leave Nsight Compute out even where ncu is installed (faster).")
@click.option("--ncu-report", "ncu_report", default=None, metavar="FILE",
              help="Where Nsight Compute's full report (.ncu-rep, for its GUI) goes [default: a new file in the "
                   "judge's cache folder, named in the output].")
@click.option("--timeout", type=click.FloatRange(0.1), default=30.0, show_default=True,
              help="Seconds allowed per solve() call, not counting Triton's compiling and autotuning.")
@click.option("--compile-timeout", type=click.FloatRange(1), default=180.0, show_default=True,
              help="Seconds for loading the solution (a .cu is compiled) and for one call with its compiling.")
@click.option("--keep-raw", is_flag=True, hidden=True,
              help="Keep CUPTI's records and ncu's CSV in the JSON report (samples for the tests).")
@json_option
def profile_command(challenge, solution, case_name, seed, device, calls, no_ncu, ncu_report, timeout,
                    compile_timeout, keep_raw, as_json) -> None:
    """Profile SOLUTION's kernels on one benchmark case of CHALLENGE, on a GPU.

    The solution runs as in 'judge run': in its sandboxed worker, on the inputs the run draws from --seed.
    CUPTI (through torch's profiler) records a few calls: each kernel's launches, grid, block, registers,
    shared memory, time and share of the call, the call's bytes per second against the measured copy peak
    (FLOP/s for compute-bound challenges), and the gaps between kernels.  Where Nsight Compute (ncu) is
    installed, one more call is measured with its counters: DRAM and SM throughput, occupancy, L1/L2 hit
    rates, the top stall reasons, and a .ncu-rep file for its GUI.

    Exit status: 0 profiled, 1 the profiled call's answer was wrong, 2 usage error (also: no GPU),
    3 internal error.
    """
    from judge.base.cuda_driver import torch_has_cuda, visible_device_count
    from judge.judging.profile_needs import NEEDS_GPU, certainly_no_gpu

    if certainly_no_gpu(torch_has_cuda(), visible_device_count()):  # said before torch is imported
        raise UserError(NEEDS_GPU)
    from judge.judging.profile import ProfileError, ProfileOptions, profile_solution
    from judge.judging.runner import Options, detect_mode, missing_device

    spec = load_spec_or_exit(challenge)
    solution = check_solution_file(solution)
    if detect_mode(Options())[0]:  # no GPU that torch can use
        raise UserError(NEEDS_GPU)
    problem = missing_device(device, False)
    if problem:
        raise UserError(problem)
    from judge.cli.run import check_cuda_ready

    check_cuda_ready([solution], False)
    options = ProfileOptions(case=case_name, seed=seed, device=device, calls=calls, ncu="off" if no_ncu else "auto",
                             report_path=ncu_report, timeout=timeout, compile_timeout=compile_timeout,
                             keep_raw=keep_raw)
    status = (lambda text: None) if as_json else (lambda text: click.echo(f"... {text}", err=True))
    with user_errors(ProfileError):
        report = profile_solution(spec, solution, options, status)
    if as_json:
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        from judge.report.console import make_console
        from judge.report.profile_view import render_profile

        render_profile(make_console(), report)
    sys.exit(ExitCode.OK if report.get("check") == "correct" else ExitCode.FAILED)
