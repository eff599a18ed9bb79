"""``judge server start|stop|status``: the warm process that judges for run, rank and watch."""

from __future__ import annotations

import sys
import time

import click

from judge.base.exit_codes import ExitCode
from judge.cli.base import main_group, user_errors


@main_group.group("server")
def server_group() -> None:
    """A warm process that judges for 'judge run', 'rank' and 'watch' (docs/server.md).

    \b
    judge server start     import torch and triton once; later commands start at once
    judge server status    is it running, what is it doing
    judge server stop      stop it (it also stops after --idle-timeout minutes unused)

    Commands run in it exactly as they would alone: each in a fresh process of its
    own, on your terminal, with your folder and environment. JUDGE_SERVER=0 skips it.
    """


@server_group.command("start")
@click.option("--idle-timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Minutes without a command after which the server stops.")
def start_command(idle_timeout: float) -> None:
    """Start this checkout's judge server in the background (once; it says so if it runs)."""
    from judge.server.starter import ServerStartError, start

    with user_errors(ServerStartError):
        started = start(idle_timeout * 60.0)
    if started.already:
        click.echo(f"the judge server is already running (pid {started.pid})")
        return
    click.echo(f"judge server started (pid {started.pid}): 'judge run', 'rank' and 'watch' now use it.\n"
               f"It stops after {idle_timeout:g} min without a command, or with 'judge server stop'. "
               f"Log: {started.log_path}")


@server_group.command("stop")
def stop_command() -> None:
    """Stop the server; commands it is running are interrupted as by Ctrl-C."""
    from judge.server import client, compat
    from judge.server.starter import wait_until_gone

    reply = client.ask("stop")
    if reply is None:
        click.echo("no judge server is running")
        return
    gone = wait_until_gone(compat.socket_path(), 20.0)
    click.echo(f"judge server (pid {reply.get('stopping')}) " + ("stopped" if gone else "is stopping"))


@server_group.command("status")
def status_command() -> None:
    """Whether the server runs, for which Python and judge, and what it is running. Exit status 1: none."""
    from judge.server import client

    status = client.ask("status")
    if status is None:
        click.echo("no judge server is running")
        sys.exit(ExitCode.FAILED)
    up = time.time() - status["started_at"]
    click.echo(f"judge server pid {status['pid']}, up {up / 60:.1f} min, {status['served']} command(s) served\n"
               f"  python {status['python']} · torch {status['torch']} · triton {status['triton']}\n"
               f"  judge  {status['judge']}\n  socket {status['socket']}")
    if not status.get("fingerprint_ok"):
        click.echo("  out of date: the judge or its torch/triton changed; the next command stops it "
                   "('judge server start' starts a new one)")
    for child in status["running"]:
        click.echo(f"  running: {child['kind']} {child['what']} (pid {child['pid']}, {child['for_s']} s)")
