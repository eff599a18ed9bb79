"""What ``judge run``, ``rank`` and ``watch`` do first: hand the command line to a
running judge server (judge/server/daemon.py) and wait for its exit status.

Imports nothing heavy (no click, no torch): when no server answers, the command
runs in this process as it always did, and this cost only a ``stat``.
``JUDGE_SERVER=0`` skips the server.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

from judge.server import compat, wire

__all__ = ["run_served", "ask"]

SERVER_ENV = "JUDGE_SERVER"


def run_served(argv: list[str]) -> int | None:
    """Run ``judge ARGV`` in the server; its exit status, or None to run it here."""
    if os.environ.get(SERVER_ENV) == "0" or compat.served_command(argv) is None:
        return None
    path = compat.socket_path()
    if not path.exists():
        return None
    conn = _connect(path)
    if conn is None:
        return None
    umask = os.umask(0)
    os.umask(umask)
    request = {"op": "command", "argv": list(argv), "cwd": os.getcwd(), "env": dict(os.environ),
               "umask": umask, "fingerprint": compat.fingerprint()}
    try:
        wire.send(conn, request, [0, 1, 2])
        reply, _ = wire.receive(conn)
    except (OSError, wire.Closed, ValueError):
        conn.close()
        return None
    if "refused" in reply:
        print(f"judge server: not used ({reply['refused']}); judging in this process", file=sys.stderr)
        conn.close()
        return None
    return _wait_for_exit(conn)


def _connect(path) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(10)
    try:
        conn.connect(str(path))
    except OSError:  # a socket left by a server that is gone
        conn.close()
        return None
    return conn


def _wait_for_exit(conn: socket.socket) -> int:
    """Forward this process's signals (Ctrl-C) to the command until it ends; its status."""
    def forward(signum, _frame):
        try:
            wire.send(conn, {"signal": signum})
        except OSError:
            pass

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(signum, forward)
    conn.settimeout(None)
    try:
        while True:
            message, fds = wire.receive(conn)
            for fd in fds:
                os.close(fd)
            if "exit" in message:
                code = int(message["exit"])
                return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as a shell says
    except (OSError, wire.Closed, ValueError):
        print("Error: the judge server stopped answering during the command; its result is lost. "
              "Run it again (JUDGE_SERVER=0 judges without the server).", file=sys.stderr)
        return 3


def ask(op: str) -> dict | None:
    """A ``status`` or ``stop`` request to this checkout's server; None if none answers."""
    path = compat.socket_path()
    if not path.exists():
        return None
    conn = _connect(path)
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
