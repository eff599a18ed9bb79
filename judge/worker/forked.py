"""A solution's worker forked by the server, seen from the command that asked for it.

In a command the server forked, ``SERVER`` links back to the server; ``Worker.spawn``
(judge/worker/client.py) then asks the server to fork the worker instead of
starting ``python -m judge.worker``, which imports torch and triton again (seconds).
The worker is the server's child, not the command's, so the command waits for
it and reads its exit status through the connection it asked on (``ForkedProcess``
answers as ``subprocess.Popen`` does).
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
from dataclasses import dataclass

from judge.base.process import process_context
from judge.base import wire

__all__ = ["SERVER", "ServerLink", "ForkedProcess", "fork_worker"]


@dataclass(frozen=True)
class ServerLink:
    path: str
    fingerprint: str


SERVER: ServerLink | None = None  # set in a command the server forked (daemon._become_command)


def fork_worker(protocol_fds: list[int], output_fd: int, cwd: str, env: dict) -> "ForkedProcess | None":
    """Ask the server for a worker on these descriptors; None if there is no server or it
    refuses (it cannot serve this environment): the caller then spawns the worker itself."""
    link = SERVER
    if link is None:
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(10)
        conn.connect(link.path)
        wire.send(conn, {"op": "worker", "fds": list(protocol_fds), "cwd": cwd, "env": env,
                         "fingerprint": link.fingerprint, **process_context()},  # this command's limits
                  [*protocol_fds, output_fd])
        reply, _ = wire.receive(conn)
    except (OSError, wire.Closed, ValueError):
        conn.close()
        return None
    if "pid" not in reply:
        conn.close()
        return None
    conn.settimeout(None)
    return ForkedProcess(int(reply["pid"]), conn)


class ForkedProcess:
    """``subprocess.Popen``'s pid, poll, wait, kill and returncode for a worker the server forked."""

    def __init__(self, pid: int, conn: socket.socket):
        self.pid, self.conn = pid, conn
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read_exit(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._read_exit(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is not None:  # reaped: its pid and group may be another process's now
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def _read_exit(self, timeout: float | None) -> None:
        ready, _, _ = select.select([self.conn], [], [], timeout)
        if not ready:
            return
        try:
            message, _ = wire.receive(self.conn)
            self.returncode = int(message["exit"])
        except (OSError, wire.Closed, ValueError, KeyError, TypeError):
            self.returncode = self._lost()
        self.conn.close()

    def _lost(self) -> int:
        """The server went away before saying how the worker ended: kill what is left of it."""
        self.kill()
        return -signal.SIGKILL
