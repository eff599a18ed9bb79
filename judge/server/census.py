"""Every judge server of this user, wherever its socket is: ``judge server status`` lists them,
``judge server stop --all`` stops them, and the test suite checks that none it started is left.

No one environment knows every server: a server's socket sits under the cache folder of the
environment that started it (``$JUDGE_CACHE_DIR``, ``$JUDGE_HOME/cache``, ``$XDG_CACHE_HOME/judge``,
``~/.cache/judge``), or under ``<tmp>/judge-<uid>`` when that path is too long for a Unix socket.
On Linux the processes are the list: /proc holds every process of this user whose command line
is a server's (``python -m judge.daemon.daemon SOCKET IDLE_S [--stop-with PID]``, or
``judge.server.daemon`` of older judges).  The sockets in every folder the judge could have used
are asked as well, for a system without /proc.  Imports nothing heavy.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from judge.base.process import start_time
from judge.server import client

__all__ = ["FoundServer", "find_servers", "stop_all", "terminate", "describe", "status_lines", "socket_folders"]

DAEMON_MODULES = ("judge.daemon.daemon", "judge.server.daemon")  # the second: judges before the move


@dataclass(frozen=True)
class FoundServer:
    pid: int
    socket: str
    idle_s: float | None
    started_at: float | None  # seconds since the epoch
    stop_with: int | None  # it stops when this process ends (JUDGE_SERVER_STOP_WITH)
    status: dict | None  # its answer to ``status``; None: it did not answer (stopping, its socket gone)
    auto: bool = False  # a judge run started it (judge/server/autostart.py)

    @classmethod
    def answered(cls, status: dict, socket=None) -> "FoundServer":
        """A server known by its answer to ``status``."""
        return cls(status["pid"], str(socket or status.get("socket")), status.get("idle_timeout_s"),
                   status.get("started_at"), status.get("stop_with"), status, bool(status.get("auto")))


def find_servers() -> list[FoundServer]:
    """This user's judge servers, by pid."""
    found: dict[int, FoundServer] = {}
    for pid, args in _daemon_processes():
        found[pid] = _from_arguments(pid, args)
    for path in _sockets():
        status = client.ask("status", path)
        if status is not None and isinstance(status.get("pid"), int) and status["pid"] not in found:
            found[status["pid"]] = FoundServer.answered(status, path)
    return sorted(found.values(), key=lambda s: s.pid)


def _daemon_processes() -> list[tuple[int, list[str]]]:
    """(pid, arguments after the module) of this user's processes that are judge servers (Linux)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # it ended meanwhile
            continue
        for i, arg in enumerate(argv[:-1]):
            if arg == "-m" and argv[i + 1] in DAEMON_MODULES and start_time(int(entry.name)) is not None:
                found.append((int(entry.name), [a for a in argv[i + 2:] if a]))
                break
    return found


def _from_arguments(pid: int, args: list[str]) -> FoundServer:
    socket = args[0] if args else "?"
    status = client.ask("status", socket) if args else None
    if status is not None and status.get("pid") != pid:
        status = None  # the socket is another server's now
    stop_with = args[args.index("--stop-with") + 1] if "--stop-with" in args[:-1] else None
    return FoundServer(pid, socket, _number(args[1]) if len(args) > 1 else None, _started_at(pid),
                       int(stop_with) if stop_with and stop_with.isdigit() else None, status, "--auto" in args)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _started_at(pid: int) -> float | None:
    """When process ``pid`` started, in seconds since the epoch (Linux)."""
    ticks = start_time(pid)
    try:
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
    except (OSError, StopIteration, ValueError):
        return None
    return None if not ticks else boot + ticks / os.sysconf("SC_CLK_TCK")


def socket_folders() -> list[Path]:
    """Every folder a server's socket may be in: the server folder of each cache folder the judge
    could have used, and the temporary folders of sockets whose path was too long."""
    caches = [os.environ.get("JUDGE_CACHE_DIR"), os.environ.get("JUDGE_HOME") and
              str(Path(os.environ["JUDGE_HOME"], "cache")), os.environ.get("XDG_CACHE_HOME") and
              str(Path(os.environ["XDG_CACHE_HOME"], "judge")), str(Path.home() / ".cache" / "judge")]
    folders = [Path(c) / "server" for c in caches if c]
    folders += [Path(t) / f"judge-{os.getuid()}" for t in (tempfile.gettempdir(), "/tmp")]
    return list(dict.fromkeys(folders))


def _sockets() -> list[Path]:
    return [p for folder in socket_folders() if folder.is_dir() for p in sorted(folder.glob("*.sock"))]


def stop_all(servers: list[FoundServer], timeout: float = 20.0) -> list[tuple[FoundServer, bool]]:
    """Ask each server to stop (one that does not answer gets SIGTERM, which it takes as ``stop``);
    each with whether it was gone within ``timeout`` seconds (running commands are interrupted first)."""
    for server in servers:
        if server.status is None or client.ask("stop", server.socket) is None:
            _signal(server.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(_alive(s) for s in servers) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [(s, not _alive(s)) for s in servers]


def terminate(servers: list[FoundServer], grace: float = 12.0) -> None:
    """Stop these servers for certain: ``stop_all``, then SIGKILL what is left after ``grace`` seconds."""
    for server, gone in stop_all(servers, grace):
        if not gone:
            _signal(server.pid, signal.SIGKILL)


def _alive(server: FoundServer) -> bool:
    return start_time(server.pid) is not None


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def describe(server: FoundServer) -> list[str]:
    """Lines about one server for ``judge server status``."""
    status = server.status or {}
    started = server.started_at or status.get("started_at")
    when = "?" if started is None else \
        f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(started))} (up {(time.time() - started) / 60:.1f} min)"
    idle = "?" if server.idle_s is None else f"{server.idle_s / 60:g} min"
    head = f"pid {server.pid} · started {when}{' by a judge run' if server.auto else ''} · idle time-out {idle}"
    if server.stop_with is not None:
        head += f" · stops with process {server.stop_with}"
    if not status:
        state = "starting (importing torch and triton; it serves once it answers)" \
            if client.starting_pid(server.socket) == server.pid else "not answering (stopping, or its socket is gone)"
        return [f"{head} · {state}", f"  socket {server.socket}"]
    lines = [f"{head} · {status.get('served', 0)} command(s) served", f"  socket {server.socket}",
             f"  judge  {status.get('judge')} · python {status.get('python')} · torch {status.get('torch')} · "
             f"triton {status.get('triton')}" + (f" ({status['triton_mode']}: the workers it forks)"
                                                 if status.get("triton_mode") else "")]
    lines += [f"  running: {c['kind']} {c['what']} (pid {c['pid']}, {c['for_s']} s)" for c in status.get("running", [])]
    return lines


def status_lines(here: dict | None, others: list[FoundServer], socket) -> list[str]:
    """``judge server status``: the server this checkout uses here (its answer to ``status``, or None
    and the socket it would have), then every other server of this user."""
    starting = client.starting_pid(socket) if here is None else None
    if starting is not None:
        lines = [f"the judge server for this checkout is starting (pid {starting}): 'judge run' uses it once it "
                 f"answers (socket {socket})"]
    elif here is None:
        lines = [f"no judge server serves this checkout here (its socket would be {socket})"]
    else:
        lines = ["judge server for this checkout here:"] + ["  " + s for s in describe(FoundServer.answered(here))]
        if not here.get("fingerprint_ok"):
            lines.append("  out of date: the judge or its torch/triton changed; the next command stops it "
                         "('judge server start' starts a new one)")
    others = [server for server in others if server.pid != starting]
    if others:
        lines.append(f"other judge servers of yours ({len(others)}; 'judge server stop --all' stops every one):")
        lines += ["  " + line for server in others for line in describe(server)]
    return lines
