"""``judge grade``: many submissions in one go, with JUnit, JSON and Markdown for CI.

The command is thin: judge/grading/ turns its arguments into entries (plan.py),
settings and a placement (settings.py, placement.py), grades them (session.py)
and writes the outputs after every submission (outputs.py, the one place that
writes files); judge/report/grade_table.py draws the console's lines and table.
docs/grading.md documents the behaviour.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from judge.grading.outputs import GradeOutputs
from judge.grading.placement import place
from judge.grading.plan import GradeError, load_specs, manifest_requires_kernel, plan_entries
from judge.grading.records import SECRET_SEED_ENV, GradeSettings
from judge.grading.session import GradeSession, exit_status, interrupted_once, outcome
from judge.grading.settings import pass_rule, public_seed, read_previous, require_sandbox, take_secret
from judge.report.console import make_console
from judge.report.grade_table import kernelbench_lines, render_table, start_line, summary_line
from judge.cli.base import bench_options, cpu_elements_option, current_search_path, judging_options, main_group, \
    require_kernel_option, user_errors


@main_group.command("grade")
@click.argument("challenge", required=False, metavar="[CHALLENGE FILE...]")
@click.argument("files", nargs=-1, metavar="")
@click.option("--manifest", type=click.Path(exists=True, dir_okay=False),
              help="A YAML file mapping submissions to challenges and files (docs/grading.md).")
@click.option("--dir", "directory", type=click.Path(exists=True, file_okay=False),
              help="A folder laid out as FOLDER/<who>/<challenge>.py.")
@click.option("--kernelbench-run", type=click.Path(exists=True, file_okay=False), metavar="RUN",
              help="KernelBench's generations, RUN/level_<L>_problem_<id>_sample_<s>_kernel.py, their problems under "
                   "--challenges-dir; writes RUN/eval_results.json as KernelBench's evaluator does "
                   "(docs/kernelbench.md).")
@judging_options
@bench_options
@cpu_elements_option
@require_kernel_option
@click.option("--gpus", default=None, help="Grade in parallel, one submission per GPU: 'all' or indices like 0,1.")
@click.option("--jobs", type=click.IntRange(1), default=None,
              help="CPU mode only: grade this many submissions at a time [default: 1].")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Grade on a Dask cluster: a scheduler's address (tcp://host:8786), or 'local' to start one "
                   "worker per GPU (CPU mode: --jobs workers) here; needs judge[cluster] (docs/grading.md).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), help="Write JUnit XML here.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the results as JSON here ('-': stdout, and nothing else there).")
@click.option("--summary", "summary_path", type=click.Path(dir_okay=False), help="Write a Markdown summary here.")
@click.option("--resume", is_flag=True, help="Skip submissions already graded in the --json FILE (same content "
              "and settings).")
@click.option("--min-pass", default=None, help="Exit 0 when at least this many results are accepted: a count "
              "(8) or a fraction (0.8, 80%) [default: all].")
@click.option("--secret-seed-env", default=SECRET_SEED_ENV, show_default=True, metavar="NAME",
              help="Environment variable holding a secret seed, mixed with the public one and never printed.")
@click.option("--no-sandbox", is_flag=True, help="Grade even where the workers' sandbox (Landlock, seccomp) is not "
              "available here; without it a grade refuses to start (docs/security.md).")
def grade_command(challenge, files, manifest, directory, kernelbench_run, seed, interpret, device, timeout,
                  compile_timeout, no_bench, bench_budget, cpu_elements, require_kernel, gpus, jobs, cluster, junit_path,
                  json_path, summary_path,
                  resume, min_pass, secret_seed_env, no_sandbox) -> None:
    """Grade many solutions; write JUnit, JSON and Markdown reports for CI.

    \b
    judge grade transpose alice.py bob.py     several solutions of one challenge
    judge grade --manifest grading.yaml       submissions and challenges from a manifest
    judge grade --dir submissions/            submissions/<who>/<challenge>.py
    judge --challenges-dir KernelBench/KernelBench grade --kernelbench-run runs/RUN
                                              KernelBench's runs/RUN, and its eval_results.json

    Exit status: 0 when all are accepted (or --min-pass is met), 1 otherwise,
    2 usage error, 3 internal error, 130 when interrupted (the outputs are kept),
    143 stopped by SIGTERM.
    """
    with user_errors(GradeError):  # the grading code's usage errors: exit 2, as click's own
        require_sandbox(no_sandbox)
        rule = pass_rule(min_pass)
        entries = plan_entries(challenge, files, manifest, directory, current_search_path, click.echo, kernelbench_run)
        specs = load_specs(entries)
        previous = read_previous(json_path) if resume else None
        placement = place(cluster, gpus, jobs, device, interpret)
        settings = GradeSettings(public_seed(seed, previous), take_secret(secret_seed_env, click.echo),
                                 placement.interpret, timeout, compile_timeout, not no_bench, bench_budget,
                                 cpu_elements, require_kernel or manifest_requires_kernel(manifest))
        console = make_console(sys.stderr if json_path == "-" else sys.stdout)
        outputs = GradeOutputs(json_path, junit_path, summary_path, click.echo,
                               str(Path(kernelbench_run) / "eval_results.json") if kernelbench_run else None)
        session = GradeSession(entries, specs, settings, outputs, console, previous)
        console.print(start_line(len(entries), placement.interpret, settings.seed_label, placement.where))
        with interrupted_once():
            completed = session.run(placement.grader(session))
            doc = session.document()
            session.outputs.finish(doc)
        render_table(console, doc)
        for line in kernelbench_lines(doc):
            console.print(line, markup=False, highlight=False)
        ok, rule_note = outcome(doc, rule)
        console.print(summary_line(doc, ok, rule_note))
        sys.exit(exit_status(ok, completed))
