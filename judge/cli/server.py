"""``judge server start|stop|status``: the warm process that judges for run, rank and watch."""

from __future__ import annotations

import sys

import click

from judge.base.exit_codes import ExitCode
from judge.cli.base import main_group, user_errors


@main_group.group("server")
def server_group() -> None:
    """A warm process that judges for 'judge run', 'rank' and 'watch' (docs/server.md).

    The first 'judge run' or 'rank' that finds none starts one when it ends (idle
    time-out 15 min); JUDGE_SERVER=0 neither uses nor starts one, nor does a run in CI.

    \b
    judge server start       import torch and triton once; later commands start at once
    judge server status      this one and every other server of yours, what they are doing
    judge server stop        stop it (it also stops after its idle time-out)
    judge server stop --all  stop every judge server of yours

    Commands run in it exactly as they would alone: each in a fresh process of its
    own, on your terminal, with your folder and environment.
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
        idle = "" if started.idle_s is None else f", idle time-out {started.idle_s / 60:g} min"
        click.echo(f"the judge server is already running (pid {started.pid}{idle}"
                   f"{', started by a judge run' if started.auto else ''}); 'judge server stop' first to start "
                   "one with another idle time-out")
        return
    click.echo(f"judge server started (pid {started.pid}): 'judge run', 'rank' and 'watch' now use it.\n"
               f"It stops after {idle_timeout:g} min without a command, or with 'judge server stop'. "
               f"Log: {started.log_path}")


@server_group.command("stop")
@click.option("--all", "every", is_flag=True,
              help="Stop every judge server of yours, whatever its checkout, cache folder or socket.")
def stop_command(every: bool) -> None:
    """Stop the server; commands it is running are interrupted as by Ctrl-C."""
    from judge.server import census, client, compat
    from judge.server.starter import wait_until_gone

    if every:
        stopped = census.stop_all(census.find_servers())
        for server, gone in stopped:
            click.echo(f"judge server pid {server.pid} ({server.socket}) " + ("stopped" if gone else "is stopping"))
        if not stopped:
            click.echo("no judge server of yours is running")
        return
    reply = client.ask("stop")
    if reply is None:
        click.echo(f"no judge server serves this checkout here ({compat.socket_path()}); "
                   "'judge server status' lists all of yours, 'judge server stop --all' stops them")
        return
    gone = wait_until_gone(compat.socket_path(), 20.0)
    click.echo(f"judge server (pid {reply.get('stopping')}) " + ("stopped" if gone else "is stopping"))


@server_group.command("status")
def status_command() -> None:
    """The server that 'judge run' here uses, and every other judge server of yours: pid, socket, idle
    time-out, when it started, what it runs. Exit status 1: none serves here."""
    from judge.server import census, client, compat

    here = client.ask("status")
    others = [s for s in census.find_servers() if here is None or s.pid != here.get("pid")]
    click.echo("\n".join(census.status_lines(here, others, compat.socket_path())))
    if here is None:
        sys.exit(ExitCode.FAILED)
