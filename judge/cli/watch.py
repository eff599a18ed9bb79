"""``judge watch CHALLENGE SOLUTION``: judge the file, then again on every save.

The process stays warm (torch imported, peaks and baselines cached), and the
next judgement's worker is spawned as soon as a judgement ends, so that it has
imported torch and triton by the time the file is saved.  Each judgement is a
``judge run`` in every other respect: a fresh worker loads the file as it is
then, and the checks and the timing are the same.
"""

from __future__ import annotations

import random
import signal
import sys

import click

from judge.base.exit_codes import ExitCode
from judge.history.recording import record_results
from judge.cli.run import check_cuda_ready
from judge.cli.base import UserError, check_solution_file, load_spec_or_exit, main_group, one_solution_options
from judge.cli.history import history_options
from judge.cli.run import build_options, case_options, judge_with_progress
from judge.report.watch_view import WatchOutput


@main_group.command("watch")
@one_solution_options
@click.option("--poll", is_flag=True,
              help="Look at the file's time stamp every 0.1 s instead of asking the operating system "
                   "(the way without the optional watchfiles package).")
@case_options
@history_options
def watch_command(challenge, solution, seed, interpret, device, timeout, compile_timeout, as_json,
                  no_bench, bench_budget, wait_for_gpu, remeasure_peaks, cpu_elements, max_failures, require_kernel,
                  torch_compile, poll, only_case, sizes, db_path, no_history) -> None:
    """Judge SOLUTION on CHALLENGE, then again each time the file is saved; Ctrl-C stops.

    Takes the options of 'judge run'. One seed serves every judgement (printed; --seed
    picks it), so that each judgement's times compare with the previous one's.

    Exit status: 130 when Ctrl-C stops it (its normal end), 2 usage error, 3 internal error,
    143 stopped by SIGTERM.
    """
    from judge.watch.run_changes import changes_between
    from judge.watch.file_watch import FileWatcher, signature
    from judge.worker.client import spawn_early

    spec = load_spec_or_exit(challenge)
    solution = check_solution_file(solution)
    check_cuda_ready([solution], interpret)
    if only_case is not None and sizes is not None:
        raise UserError("--case and --sizes each pick the one case to judge: give one of them")
    alone = only_case is not None or sizes is not None  # one case's verdicts are no results of the challenge's
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    watcher = FileWatcher(solution, poll)
    out = WatchOutput(as_json, solution, watcher.backend, click.echo, max_failures)
    early, previous, count = None, None, 0
    try:
        early = spawn_early(solution, spec, interpret, device)  # before torch is imported: they overlap
        while True:
            judged = signature(watcher.path)
            try:
                check_solution_file(solution)
            except UserError as exc:  # deleted, emptied into a directory...: wait for the next save
                out.problem(exc.message)
            else:
                count += 1
                options = build_options(seed, interpret, device, timeout, compile_timeout,
                                        benchmark=not no_bench, bench_budget_s=bench_budget,
                                        remeasure_peaks=remeasure_peaks and count == 1, cpu_elements=cpu_elements,
                                        wait_for_gpu_s=wait_for_gpu, require_kernel=require_kernel,
                                        torch_compile=torch_compile, only_case=only_case, sizes=sizes)
                result = judge_with_progress(spec, solution, early, options)
                early = spawn_early(solution, spec, interpret, device)  # imports while the person edits
                doc = result.as_dict()
                out.show(result, count, changes_between(previous, doc))
                previous = doc
                warning = record_results(db_path, no_history or alone, "run", [doc])
                if warning:
                    click.echo(warning, err=True)
            watcher.wait(judged)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the clean-up short
        if not as_json:
            click.echo("\nstopped watching", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    finally:
        if early is not None:
            early.stop()
        watcher.close()
