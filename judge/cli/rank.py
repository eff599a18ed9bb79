"""``judge rank CHALLENGE SOLUTION...`` and ``judge sweep CHALLENGE SOLUTION...``."""

from __future__ import annotations

import sys

import click

from judge.base.exit_codes import ExitCode
from judge.report.console import make_console, plain_wanted
from judge.report.progress import RankProgress
from judge.history.recording import record_results
from judge.cli.base import UserError, user_errors, challenge_argument, check_solution_file, cpu_elements_option, \
    judging_options, json_option, load_spec_or_exit, main_group, require_kernel_option
from judge.cli.history import history_options
from judge.cli.run import build_options, check_cuda_ready


def _paths(solutions: tuple) -> list[str]:
    paths = [check_solution_file(s) for s in solutions]
    seen = set()
    for p in paths:
        if p in seen:
            raise UserError(f"{p} is given twice")
        seen.add(p)
    return paths


def _check_plot(plot_path: str | None, options) -> None:
    """Fail before judging when a plot was asked for and cannot be drawn: first in CPU mode, which has
    nothing to plot whatever is installed, then without matplotlib (judge[plot])."""
    if plot_path is None:
        return
    from judge.report.plots import PlotUnavailable, require_matplotlib
    from judge.judging.runner import detect_mode

    if detect_mode(options)[0]:
        raise UserError("--plot draws GPU timings, and this is CPU mode (Triton's interpreter): there is nothing "
                        "to plot; leave --plot out to rank by correctness")
    with user_errors(PlotUnavailable):
        require_matplotlib()


@main_group.command("rank")
@challenge_argument
@click.argument("solutions", nargs=-1, required=True, metavar="SOLUTION...")
@judging_options
@json_option
@click.option("--budget", type=click.FloatRange(0.1), default=None,
              help="Wall-clock seconds for the timing rounds in all [default: 2 per timed worker and benchmark "
                   "case]; at least 3 rounds are always run.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write a bar chart with CIs (.png, .svg or .pdf; needs judge[plot]).")
@click.option("--remeasure-peaks", is_flag=True, help="Measure the device's copy and matmul peaks again.")
@cpu_elements_option
@require_kernel_option
@history_options
def rank_command(challenge, solutions, seed, interpret, device, timeout, compile_timeout, as_json, budget,
                 plot_path, remeasure_peaks, cpu_elements, require_kernel, db_path, no_history) -> None:
    """Judge several SOLUTIONs on the same cases and seed, and rank the accepted ones by speed.

    Solutions are timed together in interleaved rounds; the score is the
    geometric mean over the benchmark cases of median times.  In CPU mode the
    ranking is by correctness only.  Exit status: 0 all accepted, 1 any
    rejected, 2 usage error, 3 internal error, 130 interrupted (Ctrl-C), 143 stopped by SIGTERM.
    """
    from judge.report.plots import rank_chart, write_plot
    from judge.ranking.rank_runner import rank_solutions
    from judge.ranking.ranking_math import RoundPlan
    from judge.report.ranking_tables import render_rank

    spec = load_spec_or_exit(challenge)
    paths = _paths(solutions)
    options = build_options(seed, interpret, device, timeout, compile_timeout, remeasure_peaks=remeasure_peaks,
                            cpu_elements=cpu_elements, require_kernel=require_kernel)
    check_cuda_ready(paths, interpret)
    _check_plot(plot_path, options)
    plan = RoundPlan(budget_s=budget) if budget is not None else None
    with RankProgress(enabled=not plain_wanted(sys.stderr)) as events:
        result = rank_solutions(spec, paths, options, plan, events)
    doc = result.as_dict()
    warnings = [record_results(db_path, no_history, "rank", doc["results"]),
                write_plot(rank_chart, doc, plot_path)]
    _finish(doc, as_json, render_rank, warnings, result.all_accepted)


@main_group.command("sweep")
@challenge_argument
@click.argument("solutions", nargs=-1, required=True, metavar="SOLUTION...")
@judging_options
@json_option
@click.option("--sizes", default=None,
              help="Comma-separated sizes: N (every size parameter = N) or name=V:name=V "
                   "[default: the 6 largest powers of two the challenge allows].")
@click.option("--budget", type=click.FloatRange(0.1), default=None,
              help="Wall-clock seconds for the timing rounds in all [default: 0.5 per worker and size]; "
                   "at least 2 rounds are always run.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write the chart of rate against size (.png, .svg or .pdf; needs judge[plot]).")
def sweep_command(challenge, solutions, seed, interpret, device, timeout, compile_timeout, as_json, sizes,
                  budget, plot_path) -> None:
    """Bandwidth (or TFLOP/s) against size for each SOLUTION, with torch and the peak (GPU only).

    Every timed call is verified; the full functional tests are not run
    (judge rank runs them).  Exit status: 0 all timed, 1 any failed, 2 usage error,
    3 internal error, 130 interrupted (Ctrl-C), 143 stopped by SIGTERM.
    """
    from judge.report.plots import sweep_chart, write_plot
    from judge.report.ranking_tables import render_sweep
    from judge.ranking.sweep import SweepUnavailable, default_sizes, parse_sizes, sweep

    spec = load_spec_or_exit(challenge)
    if getattr(spec, "shipped", False):
        raise UserError(f"{challenge} is a LeetGPU challenge folder: its tests have fixed sizes, so there is "
                        "nothing to sweep; 'judge rank' times solutions on its performance test")
    paths = _paths(solutions)
    options = build_options(seed, interpret, device, timeout, compile_timeout)
    check_cuda_ready(paths, interpret)
    _check_plot(plot_path, options)
    with user_errors(SweepUnavailable):
        chosen = parse_sizes(sizes, spec) if sizes else default_sizes(spec)
        with RankProgress(enabled=not plain_wanted(sys.stderr)) as events:
            doc = sweep(spec, paths, options, chosen, budget, events)
    _finish(doc, as_json, render_sweep, [write_plot(sweep_chart, doc, plot_path)],
            all(s["verdict"] == "accepted" for s in doc["series"]))


def _finish(doc: dict, as_json: bool, render, warnings: list, all_accepted: bool) -> None:
    """The tail rank and sweep share: the document as JSON or a table (and where its plot went),
    the warnings on stderr, and the exit status."""
    from judge.report.ranking_tables import document_to_json

    if as_json:
        click.echo(document_to_json(doc))
    else:
        render(make_console(), doc)
        if doc.get("plot"):
            click.echo(f"plot written to {doc['plot']}")
    for warning in filter(None, warnings):
        click.echo(warning, err=True)
    sys.exit(ExitCode.OK if all_accepted else ExitCode.FAILED)
