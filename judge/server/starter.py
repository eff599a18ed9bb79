"""Starting this checkout's judge server in the background (``judge server start``) and
waiting for one to go (``start`` replacing an out-of-date server, ``judge server stop``)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from judge.server import client, compat

__all__ = ["START_TIMEOUT_S", "STOP_WITH_ENV", "ServerStartError", "Started", "start", "daemon_argv",
           "wait_until_gone"]

START_TIMEOUT_S = 180.0  # its imports take seconds; compiling their bytecode the first time, more
# A process id: the server stops as soon as that process ends (tests/conftest.py sets the test
# session's, so that no server a test started outlives the session, however it ends).
STOP_WITH_ENV = "JUDGE_SERVER_STOP_WITH"


class ServerStartError(RuntimeError):
    """No server could be started; the message says why (a usage error for the CLI)."""


@dataclass(frozen=True)
class Started:
    """The server's pid; ``already``: one of this code was running (``log_path`` is None; ``idle_s`` its
    idle time-out, ``auto`` whether a judge run started it)."""

    pid: int
    log_path: Path | None
    already: bool
    idle_s: float | None = None
    auto: bool = False


def start(idle_s: float) -> Started:
    """Start a server that stops after ``idle_s`` seconds without a command, once: a running
    server of this code is kept, an out-of-date one (the judge or its torch changed) replaced."""
    path = compat.socket_path()
    if not compat.private_folder(path.parent):
        raise ServerStartError(f"{path.parent} is not a folder of yours that only you may write in; a judge "
                               "server's socket cannot live there (set JUDGE_CACHE_DIR to one)")
    with _start_lock(path):  # two starts at once: the second finds the first's server
        status = client.ask("status")
        if status is not None and status.get("fingerprint_ok"):
            return Started(status["pid"], None, already=True, idle_s=status.get("idle_timeout_s"),
                           auto=bool(status.get("auto")))
        if status is not None:  # out of date: the judge or its torch changed
            client.ask("stop")
            wait_until_gone(path, 15.0)
        log_path = compat.log_path()
        compat.private_folder(log_path.parent)
        return Started(_spawn(path, log_path, idle_s), log_path, already=False)


@contextlib.contextmanager
def _start_lock(path):
    """An exclusive lock beside the socket, held while a server is started."""
    import fcntl

    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _spawn(path, log_path, idle_s: float) -> int:
    """The daemon's process, started in a session of its own; its pid once it says ``ready``."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in compat.SECRET_NAMES}  # never in the server
    with open(log_path, "a") as log:
        process = subprocess.Popen(daemon_argv(path, idle_s), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=log, env=env, cwd=compat.PACKAGE_ROOT, start_new_session=True, text=True)
    client.note_starting(path, process.pid)
    line = _first_line(process, START_TIMEOUT_S)
    if line != "ready":
        process.kill()
        tail = log_path.read_text(errors="replace")[-1500:] if log_path.exists() else ""
        raise ServerStartError(f"the judge server did not start ({line or 'no answer'}).\n{tail}".rstrip())
    process.stdout.close()
    return process.pid


def daemon_argv(path, idle_s: float) -> list[str]:
    """The server's command line; ``--interpret`` on a machine that judges in CPU mode (its workers' Triton
    mode, compat.triton_mode_mismatch), ``--stop-with`` the process named by $JUDGE_SERVER_STOP_WITH."""
    import os

    argv = [sys.executable, "-m", "judge.daemon.daemon", str(path), str(idle_s)]
    if compat.machine_interprets():
        argv.append("--interpret")
    stop_with = os.environ.get(STOP_WITH_ENV, "").strip()
    if stop_with:
        if not stop_with.isdigit():
            raise ServerStartError(f"{STOP_WITH_ENV} must be the id of the process whose end stops the server, "
                                   f"not {stop_with!r}; unset it to let the server stop only when idle")
        argv += ["--stop-with", stop_with]
    return argv


def _first_line(process, timeout: float) -> str:
    import select

    ready, _, _ = select.select([process.stdout], [], [], timeout)
    if not ready:
        return f"nothing after {timeout:.0f} s"
    line = process.stdout.readline().strip()
    return line or f"it exited with status {process.wait()}"


def wait_until_gone(path, timeout: float) -> bool:
    """Whether the socket at ``path`` went within ``timeout`` seconds (its server stopped)."""
    deadline = time.monotonic() + timeout
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not path.exists()
