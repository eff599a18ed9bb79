"""What ``judge run``, ``rank`` and ``watch`` do first: hand the command line to a
running judge server (judge/daemon/daemon.py) and wait for its exit status.

Imports nothing heavy (no click, no torch): when no server answers, the command
runs in this process as it always did, and this cost only a ``stat``; it then
starts one when it ends (judge/server/autostart.py).  ``JUDGE_SERVER=0`` skips the
server and starts none.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from pathlib import Path

from judge.server import compat
from judge.base import signals, wire
from judge.base.trace import mark

__all__ = ["run_served", "ask", "connect", "connect_here", "starting_pid", "note_starting", "STARTING_NOTICE"]

SERVER_ENV = "JUDGE_SERVER"
# A run typed while the server the previous run started is still importing waits this long for it at most
# (its imports take seconds on a small machine: waiting longer than a run alone would cost more than it saves).
STARTING_WAIT_S = 2.0
STARTING_NOTICE = "the judge server is still starting; this run judges alone"


def run_served(argv: list[str]) -> int | None:
    """Run ``judge ARGV`` in the server; its exit status (negative: killed by that signal, as
    Popen says), or None to run it here."""
    if compat.served_command(argv) is None:
        return None
    conn = connect_here() or _wait_for_starting()
    if conn is None:
        return None
    forwarded = _forward_signals(conn)  # before the request: a Ctrl-C from now on reaches the command
    if signals.received() is not None:  # one came before: nothing was started, this process takes it
        _restore(forwarded)
        conn.close()
        return None
    try:
        mark("request sent")
        wire.send(conn, _request(argv), [0, 1, 2])
        reply, _ = wire.receive(conn)
    except (OSError, wire.Closed, ValueError):
        reply = {"refused": "the server did not answer"}
    if "refused" in reply:
        _restore(forwarded)
        if _global_debug(argv):  # otherwise silent: the command runs here exactly as it would have there
            print(f"judge server: not used ({reply['refused']}); judging in this process", file=sys.stderr)
        conn.close()
        if forwarded.pending:  # Ctrl-C while it was refusing: taken as it would have been here
            signal.raise_signal(forwarded.pending)
        return None
    return _wait_for_exit(conn)


def _global_debug(argv: list[str]) -> bool:
    """Whether ``--debug`` comes before the command's name (``judge --debug run ...``)."""
    name = compat.served_command(argv)
    return "--debug" in argv[:argv.index(name)] if name in argv else False


def _request(argv: list[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in compat.SECRET_NAMES}
    return {"op": "command", "argv": list(argv), "cwd": os.getcwd(), "env": env, **compat.process_context(),
            "fingerprint": compat.fingerprint()}


def connect_here() -> socket.socket | None:
    """A connection to this checkout's server (``compat.socket_path``), if ``JUDGE_SERVER`` is not 0, its
    folder is private and one answers as this user; else None, at the cost of a ``stat``."""
    if os.environ.get(SERVER_ENV) == "0":
        return None
    path = compat.socket_path()
    if not path.exists() or not compat.private_folder(path.parent):
        return None
    return connect(path)


def _wait_for_starting(wait_s: float = STARTING_WAIT_S) -> socket.socket | None:
    """A connection to this checkout's server if one is being started and listens within ``wait_s``;
    else None, having said so on stderr when one is starting (a run typed right after the first was
    judged alone without a word, issue 49 item 7).  Costs a stat when none is starting."""
    if os.environ.get(SERVER_ENV) == "0":
        return None
    path = compat.socket_path()
    if starting_pid(path) is None:
        return None
    import time

    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and signals.received() is None:
        if path.exists():
            conn = connect(path)
            if conn is not None:
                return conn
        if starting_pid(path) is None:  # it failed to start, or is gone
            break
        time.sleep(0.05)
    print(STARTING_NOTICE, file=sys.stderr)
    return None


def starting_path(path) -> Path:
    """Beside the socket: the pid of the server being started for it (note_starting)."""
    return Path(path).with_suffix(".starting")


def note_starting(path, pid: int) -> None:
    """Say that the server ``pid`` is being started for the socket ``path`` (autostart, judge server start)."""
    try:
        starting_path(path).write_text(f"{pid}\n")
    except OSError:
        pass


def starting_pid(path) -> int | None:
    """The pid of the server that was last started for the socket ``path`` (``note_starting``), while it is
    alive and a judge server of that socket; else None.  It is starting while it does not answer there."""
    path = Path(path)
    try:
        pid = int(starting_path(path).read_text().strip() or 0)
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, ValueError, IndexError):
        return None
    if not any(cmdline):  # its exec has not set its arguments up yet (just after Popen returned), or a zombie
        return pid if state != "Z" else None
    if "judge.daemon.daemon" not in cmdline or str(path) not in cmdline:
        return None  # gone, and its pid another process's now
    return pid


def connect(path) -> socket.socket | None:
    """A connection to the server at ``path``, if one answers and runs as this user."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(10)
    try:
        conn.connect(str(path))
    except OSError:  # a socket left by a server that is gone
        conn.close()
        return None
    if not _peer_is_us(conn):
        conn.close()
        return None
    return conn


def _peer_is_us(conn: socket.socket) -> bool:
    import struct

    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):  # pragma: no cover - not Linux: the folder's ownership stands alone
        return True
    return struct.unpack("3i", creds)[1] == os.getuid()


class _Forwarded(dict):
    pending: int | None = None  # the last signal forwarded


_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def _forward_signals(conn: socket.socket) -> _Forwarded:
    """Send this process's signals to the command; the previous handlers, to restore."""
    previous = _Forwarded()

    def forward(signum, _frame):
        previous.pending = signum
        try:
            wire.send(conn, {"signal": signum})
        except OSError:
            pass

    for signum in _SIGNALS:
        previous[signum] = signal.signal(signum, forward)
    return previous


def _restore(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def _wait_for_exit(conn: socket.socket) -> int:
    """Wait for the command to end (its signals forwarded meanwhile); its status as Popen gives it."""
    conn.settimeout(None)
    try:
        while True:
            message, fds = wire.receive(conn)
            for fd in fds:
                os.close(fd)
            if isinstance(message, dict) and "exit" in message:
                return int(message["exit"])
    except (OSError, wire.Closed, ValueError, TypeError):
        print("Error: the judge server stopped answering during the command; its result is lost. "
              "Run it again (JUDGE_SERVER=0 judges without the server).", file=sys.stderr)
        return 3


def ask(op: str, path=None) -> dict | None:
    """A ``status`` or ``stop`` request to the server at ``path`` (this checkout's, by default);
    None if none answers."""
    path = compat.socket_path() if path is None else Path(path)
    if not path.exists():
        return None
    conn = connect(path)
    if conn is None:
        return None
    try:
        wire.send(conn, {"op": op, "fingerprint": compat.fingerprint()})
        reply, _ = wire.receive(conn)
        return reply
    except (OSError, wire.Closed, ValueError):
        return None
    finally:
        conn.close()
