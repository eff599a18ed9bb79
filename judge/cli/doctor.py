"""``judge doctor``: what this machine can do, and how to fix what it cannot (docs/doctor.md)."""

from __future__ import annotations

import json
import sys

import click

from judge.cli.base import main_group


@main_group.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="One JSON document on stdout (the facts and the findings).")
@click.option("--no-probe", is_flag=True, help="Skip judging the probe kernel (alone and through the judge server).")
def doctor_command(as_json: bool, no_probe: bool) -> None:
    """Check this installation: Python, torch, triton and numpy, the GPU, driver and nvcc, the sandbox,
    a tiny Triton kernel (tl.dot, tl.sum) judged alone and through the judge server, the judge servers
    running, Chromium for the UI's tests, the cache and history folders.

    Each line says ok, info, warn or fail, with the fix where one is needed.  Exit status 0 when
    nothing failed, 1 otherwise.  The first thing to run, and to paste into a bug report.
    """
    from judge.doctor.diagnosis import diagnose, document, exit_status, text_lines
    from judge.doctor.facts import gather

    if not as_json and not no_probe:
        click.echo("judging a probe kernel alone and through the judge server (seconds)...", err=True)
    facts = gather(probe=not no_probe)
    findings = diagnose(facts)
    if as_json:
        click.echo(json.dumps(document(facts, findings), indent=1))
    else:
        from judge import __version__

        click.echo(f"judge {__version__} doctor")
        for line in text_lines(findings):
            click.echo(line)
    sys.exit(exit_status(findings))
