"""``judge server start|stop|status``: the warm process that judges for run, rank and watch."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time

import click

from judge.base.exit_codes import ExitCode
from judge.cli.base import UserError, main_group

START_TIMEOUT_S = 180.0  # its imports take seconds; compiling their bytecode the first time, more


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
    from judge.server import client, compat

    path = compat.socket_path()
    if not compat.private_folder(path.parent):
        raise UserError(f"{path.parent} is not a folder of yours that only you may write in; a judge server's "
                        "socket cannot live there (set JUDGE_CACHE_DIR to one)")
    with _start_lock(path):  # two starts at once: the second finds the first's server
        status = client.ask("status")
        if status is not None and status.get("fingerprint_ok"):
            click.echo(f"the judge server is already running (pid {status['pid']})")
            return
        if status is not None:  # out of date: the judge or its torch changed
            client.ask("stop")
            _wait_until_gone(path, 15.0)
        log_path = compat.log_path()
        compat.private_folder(log_path.parent)
        pid = _spawn(path, log_path, idle_timeout * 60.0)
    click.echo(f"judge server started (pid {pid}): 'judge run', 'rank' and 'watch' now use it.\n"
               f"It stops after {idle_timeout:g} min without a command, or with 'judge server stop'. "
               f"Log: {log_path}")


@contextlib.contextmanager
def _start_lock(path):
    """An exclusive lock beside the socket, held while a server is started."""
    import fcntl

    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _spawn(path, log_path, idle_s: float) -> int:
    import os

    from judge.server import compat

    env = {k: v for k, v in os.environ.items() if k not in compat.SECRET_NAMES}  # never in the server
    with open(log_path, "a") as log:
        process = subprocess.Popen([sys.executable, "-m", "judge.daemon.daemon", str(path), str(idle_s)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, env=env,
                                   cwd=compat.PACKAGE_ROOT, start_new_session=True, text=True)
    line = _first_line(process, START_TIMEOUT_S)
    if line != "ready":
        process.kill()
        tail = log_path.read_text(errors="replace")[-1500:] if log_path.exists() else ""
        raise UserError(f"the judge server did not start ({line or 'no answer'}).\n{tail}".rstrip())
    process.stdout.close()
    return process.pid


def _first_line(process, timeout: float) -> str:
    import select

    ready, _, _ = select.select([process.stdout], [], [], timeout)
    if not ready:
        return f"nothing after {timeout:.0f} s"
    line = process.stdout.readline().strip()
    return line or f"it exited with status {process.wait()}"


def _wait_until_gone(path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not path.exists()


@server_group.command("stop")
def stop_command() -> None:
    """Stop the server; commands it is running are interrupted as by Ctrl-C."""
    from judge.server import client, compat

    reply = client.ask("stop")
    if reply is None:
        click.echo("no judge server is running")
        return
    gone = _wait_until_gone(compat.socket_path(), 20.0)
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
