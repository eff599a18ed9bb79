"""The click group, the shared option decorators and error handling."""

from __future__ import annotations

import sys
import traceback
from contextlib import contextmanager

import click

from judge.base.environment import JudgeEnvironmentError, environment_message, first_unimportable
from judge.base.exit_codes import ExitCode
from judge.base.solution_file import SolutionFileError, check_solution_file as _check_file
from judge import __version__


class UserError(click.ClickException):
    """A mistake in what the user asked for: message, exit code 2, no traceback."""

    exit_code = ExitCode.USAGE


class JudgeGroup(click.Group):
    """Turns unexpected exceptions into one paragraph (tracebacks with --debug)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, click.Abort):  # click would say "Aborted!" and exit 1, a rejection's status
            click.echo("interrupted", err=True)
            sys.exit(ExitCode.INTERRUPTED)
        except (click.ClickException, click.exceptions.Exit):
            raise
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            click.echo(f"Error: {_internal_message(exc, ctx)}", err=True)
            sys.exit(ExitCode.INTERNAL)


def _internal_message(exc: Exception, ctx: click.Context) -> str:
    """The paragraph for an exception no command handled: the judge's own installation (a module of its
    own missing or broken: what to install), else an internal error (the traceback with --debug)."""
    if isinstance(exc, JudgeEnvironmentError):
        return str(exc)
    module = first_unimportable() if isinstance(exc, ImportError) else None
    if module is not None:
        return environment_message(module, f"{type(exc).__name__}: {exc}")
    if ctx.obj and ctx.obj.get("debug"):
        traceback.print_exc()
    return (f"internal error in judge: {type(exc).__name__}: {exc}\n"
            "Run again with 'judge --debug ...' for the traceback, and please report it.")


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    """``judge --version``: the version, then the folders it writes ($JUDGE_HOME and XDG move them)."""
    if not value or ctx.resilient_parsing:
        return
    from judge.base.paths import cache_dir, data_dir

    click.echo(f"judge, version {__version__}\nhistory: {data_dir()}\ncache:   {cache_dir()}")
    ctx.exit()


@click.group(cls=JudgeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and where the judge keeps its history and caches, and exit.")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.option("--challenges-dir", "challenges_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False),
              help="A folder of challenge .yaml specs to search before the built-ins (repeatable; "
                   "also $JUDGE_CHALLENGES_PATH, folders separated by os.pathsep).")
@click.option("--prefer-user", is_flag=True,
              help="Let a user challenge replace a built-in one of the same name (otherwise an error).")
@click.pass_context
def main_group(ctx: click.Context, debug: bool, challenges_dirs: tuple, prefer_user: bool) -> None:
    """Judge Triton GPU kernels against challenge specs, offline.

    \b
    judge list                          the challenges
    judge show transpose                statement, signature, sizes
    judge init transpose my_kernel.py   a starter solution
    judge run transpose my_kernel.py    verdict, cases and timings
    judge new my_op                     scaffold a challenge of your own
    judge validate my_op.yaml           check a challenge spec
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["challenges_dirs"], ctx.obj["prefer_user"] = challenges_dirs, prefer_user


def challenge_argument(func):
    return click.argument("challenge", metavar="CHALLENGE")(func)


def seed_option(func):
    return click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
                        help="Seed for sizes and input values; a run prints its seed, and --seed reproduces it.")(func)


def interpret_option(func):
    return click.option("--interpret", is_flag=True,
                        help="Run through Triton's interpreter on the CPU (automatic without a CUDA GPU).")(func)


def json_option(func):
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON document on stdout and nothing else (docs/json-schema.md).")(func)


def judging_options(func):
    """Options shared by every command that judges solutions."""
    for decorator in reversed([
        seed_option,
        interpret_option,
        click.option("--device", default=None, help="CUDA device, e.g. cuda:1 (default cuda:0)."),
        click.option("--timeout", type=click.FloatRange(0.1), default=None,
                     help="Seconds allowed per solve() call, not counting Triton's compiling and autotuning "
                          "[default: 30 on GPU, 60 in CPU mode]."),
        click.option("--compile-timeout", type=click.FloatRange(1), default=180.0, show_default=True,
                     help="Seconds for loading the solution, and the most one call may take with its "
                          "compiling and autotuning."),
    ]):
        func = decorator(func)
    return func


def bench_options(func):
    """--no-bench and --bench-budget, for commands that judge on a GPU (same meaning as in run)."""
    for decorator in reversed([
        click.option("--no-bench", is_flag=True, help="Check correctness only; skip the timed benchmarks."),
        click.option("--bench-budget", type=click.FloatRange(0.1), default=2.0, show_default=True,
                     help="Seconds of timed calls per benchmark case, at most (after at least 10 calls)."),
    ]):
        func = decorator(func)
    return func


def cpu_elements_option(func):
    """--cpu-elements: CPU mode's largest test, for YAML specs and LeetGPU folders alike."""
    from judge.challenge.leetgpu_format import CPU_ELEMENT_BUDGET  # pure and small: no torch

    return click.option("--cpu-elements", type=click.IntRange(1), default=None, metavar="N",
                        help="CPU mode: the largest test, in tensor elements (all its tensors together). YAML "
                             "specs scale their size caps (interpret.max) until the largest generated test holds "
                             "N elements, and run their explicit sizes up to N elements; LeetGPU challenge folders "
                             "skip functional tests above N (the example test always runs). The run's notes say "
                             "which tests were left out and the N that runs them. [default: YAML specs their "
                             f"interpret.max caps (48 a size); LeetGPU folders {CPU_ELEMENT_BUDGET}]")(func)


def require_kernel_option(func):
    """--require-kernel: the opt-in rule against answers that torch computes alone (run, watch, rank, grade)."""
    return click.option("--require-kernel", is_flag=True,
                        help="Reject a solve() call that launches no Triton kernel of the solution's own (a "
                             "@triton.jit function in its files) as invalid_submission: output.copy_(input.T) "
                             "alone no longer passes. Also a challenge's 'require_kernel: true' and a grade "
                             "manifest's.")(func)


def max_failures_option(func):
    """--max-failures, for the commands that print one run's report (run, watch)."""
    from judge.report.console import MAX_FAILURES

    return click.option("--max-failures", type=click.IntRange(1), default=MAX_FAILURES, show_default=True,
                        metavar="N",
                        help="Distinct failures shown in full; failed cases that share their cause count as one "
                             "(the first in full, the others by name). --json keeps every case.")(func)


def wait_option(func):
    return click.option("--wait-for-gpu", "wait_for_gpu", type=click.FloatRange(0), default=0.0, metavar="S",
                        help="Before timing, wait up to S seconds for other processes to leave the GPU "
                             "(times taken on a shared GPU are flagged and not stored).")(func)


def torch_compile_option(func):
    """--torch-compile: a KernelBench problem's second baseline (run, watch)."""
    return click.option("--torch-compile", is_flag=True,
                        help="A KernelBench problem on a GPU: also time its Model under torch.compile (inductor, "
                             "default mode; cached per device), the second baseline KernelBench publishes.")(func)


def one_solution_options(func):
    """CHALLENGE SOLUTION and the options of a command that judges one solution (run, watch)."""
    for decorator in reversed([challenge_argument, click.argument("solution", metavar="SOLUTION"), judging_options,
                               json_option, bench_options, wait_option, remeasure_option, cpu_elements_option,
                               max_failures_option, require_kernel_option, torch_compile_option]):
        func = decorator(func)
    return func


def remeasure_option(func):
    return click.option("--remeasure-peaks", is_flag=True,
                        help="Measure the device's copy and matmul peaks and the torch baselines again "
                             "(both are cached).")(func)


def current_search_path():
    """The challenge search path of this invocation: --challenges-dir, $JUDGE_CHALLENGES_PATH, built-ins."""
    from judge.challenge.catalog import CatalogError, SearchPath

    ctx = click.get_current_context(silent=True)
    obj = (ctx.find_root().obj if ctx is not None else None) or {}
    with user_errors(CatalogError):
        return SearchPath.from_environment(obj.get("challenges_dirs", ()), obj.get("prefer_user", False))


def load_spec_or_exit(name_or_path: str):
    from judge.challenge.catalog import ChallengeConflict, UnknownChallenge, load_challenge
    from judge.challenge.spec import SpecError

    with user_errors(UnknownChallenge, ChallengeConflict, SpecError):
        return load_challenge(name_or_path, current_search_path())


def check_solution_file(path: str) -> str:
    """A readable Python source file, or a clear error (exit 2)."""
    with user_errors(SolutionFileError):
        return _check_file(path)


@contextmanager
def user_errors(*kinds: type[Exception]):
    """Exceptions of ``kinds``, which the layers below raise for a mistake in what was asked,
    become UserError with the same message (exit 2, no traceback)."""
    try:
        yield
    except kinds as exc:
        raise UserError(str(exc)) from None
