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

__all__ = ["run_served", "ask", "connect", "connect_here"]

SERVER_ENV = "JUDGE_SERVER"


def run_served(argv: list[str]) -> int | None:
    """Run ``judge ARGV`` in the server; its exit status (negative: killed by that signal, as
    Popen says), or None to run it here."""
    if compat.served_command(argv) is None:
        return None
    conn = connect_here()
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
