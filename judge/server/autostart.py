"""The judge server starts itself, as build tools' daemons do (Gradle's, Bazel's): a ``judge run`` or
``judge rank`` that found no server judges in its own process exactly as before and, once it has
printed its result, starts one in the background with a short idle time-out; the next commands go
through it (judge/server/client.py).

It starts after the command, never during it, so that its imports never compete with the run's
timing; in its own session, detached from the terminal, with the command's environment less the
grading secret (as ``judge server start``).  Not with ``JUDGE_SERVER=0`` (no server used or
started), nor in CI (``$CI`` set, as every CI service sets it), nor after a command that did not
judge (a usage error, Ctrl-C).  Two commands ending at once start one server: the lock beside the
socket is taken without waiting and handed to the new server, which lets it go once it listens.
"""

from __future__ import annotations

import os
import sys

from judge.server import client, compat

__all__ = ["IDLE_S", "NOTICE", "wanted", "start_in_background"]

IDLE_S = 15 * 60.0
NOTICE = "started a judge server for faster runs (idle time-out 15 min; JUDGE_SERVER=0 turns this off)"
_JUDGED = (0, 1)  # accepted, rejected: the command judged something (not a usage error, not Ctrl-C)


def wanted(argv: list[str]) -> bool:
    """Whether ``judge ARGV``, run in this process, should start a server when it ends."""
    return allowed() and compat.served_command(argv) in ("run", "rank")  # watch is its own warm process


def allowed() -> bool:
    """Whether this process may start a server: not with ``JUDGE_SERVER=0``, nor in CI."""
    return os.environ.get(client.SERVER_ENV) != "0" and not _in_ci()


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def start_in_background(code: int) -> None:
    """After a command that ended with ``code``: start a server if none answers and none is
    being started; say so once on stderr.  Never fails the command that called it."""
    if code not in _JUDGED:
        return
    from judge.server.starter import ServerStartError

    try:
        started = _start()
    except (OSError, ServerStartError) as exc:
        print(f"judge server: none started ({exc}); 'judge server start' says more", file=sys.stderr)
        return
    if started:
        print(NOTICE, file=sys.stderr)


def _start() -> bool:
    """Spawn the server unless one answers or another process is starting one; whether it did."""
    import fcntl
    import subprocess

    from judge.server.starter import daemon_argv

    path = compat.socket_path()
    if not compat.private_folder(path.parent):
        return False  # judge server start explains why; a run says nothing
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # another command or `judge server start` is starting one
        answer = client.connect(path)
        if answer is not None:
            answer.close()
            return False
        log_path = compat.log_path()
        compat.private_folder(log_path.parent)  # not the socket's folder when that path was too long
        env = {k: v for k, v in os.environ.items() if k not in compat.SECRET_NAMES}  # never in the server
        argv = daemon_argv(path, IDLE_S) + ["--auto", "--lock-fd", str(lock.fileno())]
        with open(log_path, "a") as log:  # the server's "ready" and its log; our copy of the lock goes below
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                       cwd=compat.PACKAGE_ROOT, start_new_session=True, pass_fds=(lock.fileno(),))
        client.note_starting(path, process.pid)  # a run typed meanwhile waits for it, or says it is starting
    return True
