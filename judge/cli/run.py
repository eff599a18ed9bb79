"""``judge run CHALLENGE SOLUTION``."""

from __future__ import annotations

import sys

import click

from judge.report.console import make_console, plain_wanted, render_run
from judge.report.progress import ProgressEvents
from judge.report.json_export import run_to_json
from judge.judging.verdict import exit_code_for
from judge.history.recording import record_results
from judge.cli.base import UserError, check_solution_file, load_spec_or_exit, main_group, one_solution_options
from judge.cli.history import history_options
from judge.base.trace import mark


def build_options(seed, interpret, device, timeout, compile_timeout, **extra):
    from judge.judging.runner import Options, missing_device

    problem = missing_device(device, interpret)
    if problem:
        raise UserError(problem)
    return Options(seed=seed, interpret=interpret, device=device, timeout=timeout,
                   compile_timeout=compile_timeout, **extra)


def check_cuda_ready(solutions, interpret: bool) -> None:
    """A CUDA C++ solution in CPU mode or without nvcc: a usage error (exit 2) that says what to install,
    before anything is judged (``judge grade`` grades such a submission invalid instead)."""
    from judge.base.languages import is_cuda_source

    if not any(is_cuda_source(s) for s in solutions):
        return
    from judge.judging.runner import Options, detect_mode
    from judge.worker.cuda_build import cuda_unavailable

    problem = cuda_unavailable(detect_mode(Options(interpret=interpret))[0])
    if problem:
        raise UserError(problem)


def judge_with_progress(spec, solution: str, early_worker, options):
    from judge.challenge.cases import CaseSelectionError
    from judge.judging.reference import ReferenceError_
    from judge.judging.dispatch import judge_solution

    with ProgressEvents(enabled=not plain_wanted(sys.stderr)) as events:
        try:
            return judge_solution(spec, solution, options, events, early_worker)
        except ReferenceError_ as exc:  # the challenge is broken, not the solution
            raise UserError(f"{exc}\nThis is an error in the challenge spec, not in your solution; "
                            f"'judge validate {spec.source}' checks a spec.") from None
        except CaseSelectionError as exc:  # --case or --sizes names no case of this run
            raise UserError(str(exc)) from None


def case_options(func):
    """--case and --sizes: one case judged alone (judge run)."""
    for decorator in reversed([
        click.option("--case", "only_case", default=None, metavar="NAME",
                     help="Judge only the case NAME of the run (edge-2, random-1, an explicit size's name, a LeetGPU "
                          "test's); with the run's --seed, the same sizes and input values. No benchmarks, and the "
                          "run is not recorded in the history."),
        click.option("--sizes", default=None, metavar="N=V,...",
                     help="Judge only these sizes, e.g. --sizes rows=32,cols=1 (every size of the challenge); with "
                          "the run's --seed, the input values the search for a smaller failing size tried there. "
                          "No benchmarks, not recorded in the history."),
    ]):
        func = decorator(func)
    return func


def check_sanitize_ready(sanitize: bool, interpret: bool) -> None:
    """--sanitize in CPU mode or without compute-sanitizer: a usage error (exit 2) that says how to get it."""
    if not sanitize:
        return
    from judge.judging.runner import Options, detect_mode
    from judge.judging.sanitize import sanitize_problem

    problem = sanitize_problem(detect_mode(Options(interpret=interpret))[0])
    if problem:
        raise UserError(problem)


@main_group.command("run")
@one_solution_options
@case_options
@history_options
@click.option("--sanitize", is_flag=True,
              help="After judging, run the failing case (else the largest test) once under NVIDIA's compute-sanitizer: "
                   "memcheck, racecheck, initcheck and synccheck; GPU only (docs/accuracy.md).")
@click.option("--sanitize-tool", "sanitize_tools", multiple=True,
              type=click.Choice(["memcheck", "racecheck", "initcheck", "synccheck"]),
              help="Only this compute-sanitizer tool (repeatable); implies --sanitize.")
def run_command(challenge, solution, seed, interpret, device, timeout, compile_timeout, as_json,
                no_bench, bench_budget, wait_for_gpu, remeasure_peaks, cpu_elements, max_failures, require_kernel,
                torch_compile, only_case, sizes, db_path, no_history, sanitize, sanitize_tools) -> None:
    """Judge SOLUTION (a .py file with solve(), or a .cu file with extern "C" solve()) on CHALLENGE (a name, a .yaml spec, or a LeetGPU
    challenge folder holding challenge.py); on a KernelBench problem file, SOLUTION defines class ModelNew.

    Exit status: 0 accepted, 1 rejected, 2 usage error, 3 internal error,
    130 interrupted (Ctrl-C), 143 stopped by SIGTERM.
    """
    from judge.worker.client import spawn_early

    spec = load_spec_or_exit(challenge)
    solution = check_solution_file(solution)
    check_cuda_ready([solution], interpret)
    if only_case is not None and sizes is not None:
        raise UserError("--case and --sizes each pick the one case to judge: give one of them")
    tools = tuple(sanitize_tools) or (("memcheck", "racecheck", "initcheck", "synccheck") if sanitize else ())
    check_sanitize_ready(bool(tools), interpret)
    early = None
    try:
        # Before torch is imported below: the worker's imports and the judge's overlap.
        early = spawn_early(solution, spec, interpret, device)
        result = judge_with_progress(spec, solution, early, build_options(
            seed, interpret, device, timeout, compile_timeout, benchmark=not no_bench,
            bench_budget_s=bench_budget, remeasure_peaks=remeasure_peaks, cpu_elements=cpu_elements,
            wait_for_gpu_s=wait_for_gpu, require_kernel=require_kernel, torch_compile=torch_compile,
            sanitize=tools, only_case=only_case, sizes=sizes))
    finally:
        if early is not None:
            early.stop()
    alone = only_case is not None or sizes is not None  # one case's verdict is no result of the challenge's
    history_warning = record_results(db_path, no_history or alone, "run", [result.as_dict()])
    if as_json:
        click.echo(run_to_json(result.as_dict()))
    else:
        from judge.report.benchmark_table import render_benchmarks

        render_run(make_console(), result, render_benchmarks, max_failures)
        if result.sanitizer is not None:
            click.echo(sanitizer_text(result.sanitizer))
    mark("result written")
    if history_warning:
        click.echo(history_warning, err=True)
    sys.exit(exit_code_for(result.verdict))


def sanitizer_text(runs: list[dict]) -> str:
    """What --sanitize found, tool by tool (judging/sanitize.py)."""
    if not runs:
        return "compute-sanitizer: no test small enough to run under it (docs/accuracy.md)"
    lines = [f"compute-sanitizer on {runs[0]['case']}:"]
    for run in runs:
        lines.append(run["report"] + (f" ({run['problem']})" if run["problem"] else ""))
    return "\n".join(lines)
