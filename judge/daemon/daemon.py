"""The server: ``python -m judge.daemon.daemon SOCKET IDLE_S [--interpret] [--stop-with PID] [--auto --lock-fd FD]``
(``judge server start`` runs it, or a ``judge run`` that found none: judge/server/autostart.py).
With ``--stop-with``, it stops as soon as process PID ends (a test session that started it);
``--lock-fd`` is the start lock it was handed, let go once it listens.  ``--interpret``: it imports
Triton for its interpreter (``TRITON_INTERPRET=1``), the mode of a machine with no GPU (``compat.triton_mode``).

It imports what ``judge run`` and a worker import, then serves one Unix socket
in a single thread (forking is only safe from a process with one thread):

- ``command``: fork; the child takes the client's terminal (the descriptors
  sent with the request), folder, umask and environment, and runs the command
  line as ``judge`` would, ending with its exit status, which the server sends
  back.  A ``signal`` message from the client (its Ctrl-C) goes to the child's
  process group; a client that goes away gets the child interrupted, then killed.
- ``worker``: fork a solution's worker for a command (judge/worker/forked.py), only for the Triton
  mode the server imported (triton.language's own helpers are made for one mode when it is imported:
  a compiled-mode ``tl.sum`` in an interpreted kernel fails):
  the child becomes ``python -m judge.worker`` on the descriptors sent, in its
  own process group; its exit status goes back on the same connection, and a
  command that goes away takes its workers with it.
- ``status`` and ``stop``.

The server never touches the GPU (a CUDA context does not survive a fork) and
never judges: nothing a command computed (a secret seed, a reference's
outputs) is ever in the process that workers are forked from.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from judge.server import client, compat
from judge.base import wire
from judge.base.process import start_time
from judge.base.trace import mark

KILL_AFTER_S = 10.0  # a command whose client went away: interrupted, then killed this much later
TOLD_KILL_AFTER_S = 60.0  # a command that told its status and has not ended this much later is killed
READ_TIMEOUT_S = 2.0  # a request is sent whole: a connection that stalls mid-message is dropped


@dataclass
class Child:
    kind: str  # "command" or "worker"
    conn: socket.socket
    what: str
    started: float = field(default_factory=time.monotonic)
    kill_at: float | None = None
    status_r: int | None = None  # a command's: it writes its exit status here before its process ends
    told: bool = False  # the client has its exit status (from status_r): the reaping tells nothing


class Server:
    def __init__(self, path: Path, idle_s: float, stop_with: int | None = None, auto: bool = False,
                 interpret: bool = False):
        self.path, self.idle_s, self.auto = Path(path), idle_s, auto  # auto: a judge run started it
        self.interpret = interpret  # Triton imported for its interpreter: the only workers it forks
        # The process whose end stops this server (the test session that started it), as (pid, start time):
        # a pid given to a new process later is not the same process.
        self.stop_with = None if stop_with is None else (stop_with, start_time(stop_with))
        # What the imports saw, and nothing else of the environment it was started with
        # (judge server start passes no secret; a request's environment is never kept).
        self.environ = compat.import_environment(os.environ, with_path=True)
        self.fingerprint = compat.fingerprint()
        self.cgroup = compat.cgroup()
        self.children: dict[int, Child] = {}
        self.selector = selectors.DefaultSelector()
        self.listener: socket.socket | None = None
        self.wakeup: tuple[int, int] | None = None
        self.inode = 0
        self.stopping = False  # judge server stop, SIGTERM: running commands are interrupted
        self.retiring = False  # out of date: no new commands, running ones finish
        self.last_activity = time.monotonic()
        self.served = 0
        self.started_at = time.time()

    # -- life cycle ------------------------------------------------------------
    def prepare(self) -> None:
        """Import what a command and a worker import, Triton in the server's mode (its ``jit`` decides
        at import whether triton.language's helpers are interpreted), and in compiled mode let Triton
        hash its own sources (the key of its cache, 0.4 s per process); nothing here touches the GPU."""
        if self.interpret:
            os.environ["TRITON_INTERPRET"] = "1"
        else:
            os.environ.pop("TRITON_INTERPRET", None)
        # numpy's OpenBLAS fixes its pool when it loads: a worker's has none (one thread, judge/defence/sandbox.py),
        # and a forked worker must not inherit the server's (its threads are gone after the fork, and it started
        # a new pool at its first BLAS call where a spawned worker never has one).  Commands use no numpy BLAS.
        blas = os.environ.get("OPENBLAS_NUM_THREADS")
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        import judge.cli  # noqa: F401 - every command's module
        import judge.ranking.rank_runner  # noqa: F401
        import judge.judging.dispatch  # noqa: F401
        import judge.report.benchmark_table  # noqa: F401
        import judge.judging.benchmark_stage  # noqa: F401
        import judge.worker.__main__  # noqa: F401 - the worker's main and session (torch, its timing functions)
        import judge.worker.warm_kernel  # noqa: F401 - triton and triton.language
        from judge.watch import run_changes  # noqa: F401 - watch
        from judge.watch import file_watch  # noqa: F401

        if not self.interpret:
            judge.worker.warm_kernel.hash_triton()  # the forked workers inherit it
        os.environ.pop("TRITON_INTERPRET", None)  # read at import only; each child takes its client's environment
        if blas is None:
            os.environ.pop("OPENBLAS_NUM_THREADS", None)
        else:
            os.environ["OPENBLAS_NUM_THREADS"] = blas
        import gc

        gc.collect()
        gc.freeze()

    def listen(self) -> None:
        compat.private_folder(self.path.parent)
        if self.path.exists():
            if client.connect(self.path) is not None:
                raise SystemExit(f"another judge server already serves {self.path}")
            self.path.unlink()  # left by a server that is gone
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self.inode = os.stat(self.path).st_ino
        self.listener.listen(32)
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        read, write = os.pipe()
        os.set_blocking(read, False)
        os.set_blocking(write, False)
        self.wakeup = (read, write)
        signal.set_wakeup_fd(write)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the selector through the pipe
        signal.signal(signal.SIGTERM, self._stop_signal)
        signal.signal(signal.SIGINT, self._stop_signal)
        self.selector.register(read, selectors.EVENT_READ, "wakeup")

    def _stop_signal(self, *_):
        self.stopping = True

    def serve(self) -> None:
        log(f"serving {self.path} (pid {os.getpid()}, idle timeout {self.idle_s:.0f} s)")
        while True:
            for key, _ in self.selector.select(timeout=1.0):
                if key.data == "accept":
                    self._accept()
                elif key.data == "wakeup":
                    _drain(key.fd)
                elif key.data == "status":
                    self._on_status(key.fd)
                else:
                    self._on_message(key.fileobj)
            self.reap()
            self._kill_overdue()
            if self._should_exit():
                break
        self.close()

    def _should_exit(self) -> bool:
        if self.stop_with is not None and not self.stopping and start_time(self.stop_with[0]) != self.stop_with[1]:
            log(f"process {self.stop_with[0]}, which it was started for, ended: stopping")
            self.stopping = True  # what started it is gone: so are the commands it asked for
        if self.stopping or self.retiring:
            if self.listener is not None:
                self._close_listener()
                for pid, child in self.children.items():
                    if child.kind == "command" and self.stopping:
                        _signal_group(pid, signal.SIGINT)
                        child.kill_at = time.monotonic() + KILL_AFTER_S
            return not self.children
        idle = not self.children and time.monotonic() - self.last_activity > self.idle_s
        if idle or not self._socket_is_ours():
            log("idle: stopping" if idle else "the socket is no longer this server's: stopping")
            self.retiring = True
            return self._should_exit()
        return False

    def _socket_is_ours(self) -> bool:
        """Whether the socket file is still the one this server bound (not removed, not
        replaced by another server's): a server nobody can reach stops."""
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def _close_listener(self) -> None:
        ours = self._socket_is_ours()
        self.selector.unregister(self.listener)
        self.listener.close()
        self.listener = None
        if ours:  # never another server's
            try:
                self.path.unlink()
            except OSError:
                pass

    def close(self) -> None:
        if self.listener is not None:
            self._close_listener()
        log(f"stopped after serving {self.served} command(s)")

    # -- connections -------------------------------------------------------------
    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError as exc:  # out of descriptors...: this client waits or gives up, the server goes on
            log(f"accept failed: {exc}")
            return
        if not _same_user(conn):
            conn.close()
            return
        conn.settimeout(READ_TIMEOUT_S)  # a request arrives whole; a client that stalls is dropped
        self.selector.register(conn, selectors.EVENT_READ, "conn")

    def _on_message(self, conn: socket.socket) -> None:
        child = self._child_of(conn)
        try:
            message, fds = wire.receive(conn)
        except (wire.Closed, OSError, ValueError):
            self._drop(conn, child)
            return
        if not isinstance(message, dict):
            wire.close_all(fds)
            self._drop(conn, child)
            return
        if child is not None:  # a command's client forwards its signals
            wire.close_all(fds)
            pid, _ = child
            if message.get("signal") in _FORWARDED:
                _signal_group(pid, message["signal"])
            return
        self.last_activity = time.monotonic()
        handler = {"command": self._command, "worker": self._worker, "status": self._status,
                   "stop": self._stop}.get(message.get("op"))
        if handler is None:
            wire.close_all(fds)
            self._drop(conn, None)
            return
        try:
            handler(conn, message, fds)
        except (KeyError, TypeError, ValueError, OSError) as exc:  # a malformed request, a failed fork
            log(f"request {message.get('op')!r} failed: {type(exc).__name__}: {exc}")
            wire.close_all(fds)
            if self._child_of(conn) is None:
                self._refuse(conn, [], f"the server could not serve it ({type(exc).__name__}: {exc})")

    def _child_of(self, conn):
        for pid, child in self.children.items():
            if child.conn is conn:
                return pid, child
        return None

    def _let_go(self, conn: socket.socket) -> None:
        """Stop watching a connection and close it (it may have been let go already)."""
        try:
            self.selector.unregister(conn)
        except (KeyError, ValueError):
            pass
        conn.close()

    def _drop(self, conn: socket.socket, child) -> None:
        """A connection closed: a command's client went away (interrupt it, kill it later),
        or a command went away from its worker (kill the worker's group now)."""
        self._let_go(conn)
        if child is None:
            return
        pid, child = child
        if child.kind == "worker":
            _signal_group(pid, signal.SIGKILL)
        elif child.kill_at is None:
            _signal_group(pid, signal.SIGINT)
            child.kill_at = time.monotonic() + KILL_AFTER_S

    def _refuse(self, conn, fds, why: str) -> None:
        wire.close_all(fds)
        _reply(conn, {"refused": why})
        self._let_go(conn)

    # -- requests ------------------------------------------------------------------
    def _command(self, conn, request: dict, fds: list[int]) -> None:
        why = self._mismatch(request)
        if why is None and len(fds) != 3:
            why = "the request did not carry the terminal's three descriptors"
        if why is not None:
            log(f"refused {str(request.get('argv', [])[:1])}: {why}")
            self._refuse(conn, fds, why)
            return
        argv = [str(a) for a in request["argv"]]
        status_r, status_w = os.pipe()
        try:
            pid = self._fork(Become("command", self._plain(request, argv=argv, status_fds=(status_r, status_w)), fds),
                             fds)
        except OSError:
            wire.close_all([status_r, status_w])
            raise
        os.close(status_w)  # the command's alone: the pipe ends when it does
        self.children[pid] = Child("command", conn, " ".join(argv[:3]), status_r=status_r)
        self.selector.register(status_r, selectors.EVENT_READ, "status")
        self.served += 1
        log(f"command pid {pid}: judge {' '.join(argv)}")
        _reply(conn, {"started": pid})

    def _worker(self, conn, request: dict, fds: list[int]) -> None:
        why = self._mismatch(request, ignore_paths=(compat.PACKAGE_ROOT,), worker=True)
        if why is None:
            why = compat.triton_mode_mismatch(self.interpret, request["env"])
        if why is None and len(fds) != len(request.get("fds", ())) + 1:
            why = "the request did not carry its descriptors"
        if why is not None:
            log(f"refused a worker: {why}")
            self._refuse(conn, fds, why)
            return
        pid = self._fork(Become("worker", self._plain(request), fds), fds)
        self.children[pid] = Child("worker", conn, str(request.get("cwd", "")))
        log(f"worker pid {pid} in {request.get('cwd', '')}")
        _reply(conn, {"pid": pid})

    def _plain(self, request: dict, **extra) -> dict:
        """What a forked child needs of a request, as plain values (its own copy)."""
        env = request["env"]
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise TypeError("env must map names to strings")
        return dict(cwd=str(request["cwd"]), env=dict(env), umask=int(request.get("umask", 0o022)),
                    limits=request.get("limits") or {}, affinity=request.get("affinity"),
                    priority=request.get("priority"), path=str(self.path), fingerprint=self.fingerprint,
                    **extra)

    def _mismatch(self, request: dict, ignore_paths=(), worker: bool = False) -> str | None:
        if self.stopping or self.retiring:
            return "the server is stopping"
        env = request.get("env")
        if not isinstance(env, dict):
            return "the request carried no environment"
        key = (compat.worker_mismatch if worker else compat.environment_mismatch)(self.environ, env, ignore_paths)
        if key is not None:
            return f"{key} differs from the server's (judge server start read it)"
        if request.get("cgroup") not in (None, self.cgroup):
            return "it runs in another control group (a Slurm job, a container) than the server"
        if request.get("fingerprint") != self.fingerprint:
            self.retiring = True  # out of date: running commands finish, the next start loads the new code
            return "the judge's code or its torch/triton changed since the server started; it is retiring"
        return None

    def _fork(self, become: "Become", fds: list[int]) -> int:
        if threading.active_count() != 1:  # pragma: no cover - nothing here starts threads
            log(f"warning: forking with {threading.active_count()} threads")
        sys.stdout.flush()
        sys.stderr.flush()
        # A signal forwarded at once must reach the child's own handlers, not the server's.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _FORWARDED | {signal.SIGCHLD})
        try:
            pid = os.fork()
        except OSError:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            raise
        if pid == 0:
            become.mask = old
            raise become  # unwinds the server's frames: the child keeps none of its state (main)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        try:
            os.setpgid(pid, pid)  # also in the child: whichever runs first, the group exists at once
        except OSError:
            pass
        wire.close_all(fds)
        return pid

    def _status(self, conn, request, fds) -> None:
        wire.close_all(fds)
        import torch
        import triton

        running = [{"pid": pid, "kind": c.kind, "what": c.what, "for_s": round(time.monotonic() - c.started, 1)}
                   for pid, c in self.children.items()]
        _reply(conn, {"pid": os.getpid(), "socket": str(self.path), "python": sys.executable,
                      "judge": compat.PACKAGE_ROOT, "torch": torch.__version__, "triton": triton.__version__,
                      "triton_mode": "interpreter" if self.interpret else "compiled",
                      "started_at": self.started_at, "served": self.served, "idle_timeout_s": self.idle_s,
                      "stop_with": self.stop_with[0] if self.stop_with else None, "auto": self.auto,
                      "running": running, "fingerprint_ok": request.get("fingerprint") == self.fingerprint})
        self._let_go(conn)

    def _stop(self, conn, request, fds) -> None:  # noqa: D102
        wire.close_all(fds)
        log("asked to stop")
        self.stopping = True
        _reply(conn, {"stopping": os.getpid()})
        self._let_go(conn)

    # -- children ------------------------------------------------------------------
    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = self.children.pop(pid, None)
            if child is None:
                continue
            code = os.waitstatus_to_exitcode(status)  # as Popen.returncode: -N for signal N
            mark(f"reaped {child.kind} {pid}")
            if child.kind == "command":
                log(f"command pid {pid} ended: {code} after {time.monotonic() - child.started:.2f} s")
            self._close_status(child)
            if not child.told:
                _reply(child.conn, {"exit": code})
                self._let_go(child.conn)  # dropped already, if its client or command went away
            self.last_activity = time.monotonic()

    def _on_status(self, fd: int) -> None:
        """A command wrote its exit status as its last act (cli.entry): the client has it now, not after
        the process is torn down (a process with a CUDA context takes 0.1-0.2 s to end).  End of file
        without one: the command died; its reaping tells the status."""
        child = next((c for c in self.children.values() if c.status_r == fd), None)
        try:
            data = os.read(fd, 64)
        except OSError:
            data = b""
        if child is None:
            return
        self._close_status(child)
        text = data.decode("ascii", "replace").strip()
        if text.isdigit():
            _reply(child.conn, {"exit": int(text)})
            self._let_go(child.conn)  # its client leaves now: not a client that vanished
            child.told = True
            # Its last act was to tell: one still there a minute later is stuck (never idle, never reaped)
            deadline = time.monotonic() + TOLD_KILL_AFTER_S
            child.kill_at = deadline if child.kill_at is None else min(child.kill_at, deadline)

    def _close_status(self, child: Child) -> None:
        if child.status_r is None:
            return
        try:
            self.selector.unregister(child.status_r)
        except (KeyError, ValueError):
            pass
        os.close(child.status_r)
        child.status_r = None

    def _kill_overdue(self) -> None:
        now = time.monotonic()
        for pid, child in self.children.items():
            if child.kill_at is not None and now > child.kill_at:
                _signal_group(pid, signal.SIGKILL)

    def forget(self) -> None:
        """In a forked child: none of the server's sockets, pipes or signal handlers."""
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for key in list(self.selector.get_map().values()):
            if isinstance(key.fileobj, socket.socket):
                key.fileobj.close()
        self.selector.close()
        wire.close_all(self.wakeup or ())
        wire.close_all(c.status_r for c in self.children.values() if c.status_r is not None)
        self.children.clear()


_FORWARDED = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}


class Become(BaseException):
    """Raised in a forked child to leave the server's loop: ``main`` catches it with the
    server's frames gone, drops the server, and the child becomes a command or a worker.
    A BaseException, so that no handler of the loop can catch it."""

    def __init__(self, kind: str, request: dict, fds: list[int]):
        super().__init__(kind)
        self.kind, self.request, self.fds = kind, request, fds
        self.mask: set = set()


def _become_command(request: dict, fds: list[int]) -> None:
    """The forked child becomes ``judge ARGV`` on the client's terminal; never returns."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    wire.close_all(fd for fd in fds if fd > 2)
    _take_client_context(request)
    _standard_streams(terminal=True)
    from judge.base.bytecode import keep_bytecode

    _bytecode_as_environment()
    keep_bytecode()
    sys.argv = ["judge", *request["argv"]]
    mark("command starts")
    from judge.worker import forked

    forked.SERVER = forked.ServerLink(request["path"], request["fingerprint"])
    from judge.cli import entry

    argv, (status_r, status_w) = request["argv"], request["status_fds"]
    os.close(status_r)
    del request
    entry(argv, status_fd=status_w)  # ends the process


def _become_worker(request: dict, fds: list[int]) -> None:
    """The forked child becomes ``python -m judge.worker FDS`` in the worker's folder; never returns."""
    *protocol_fds, output = fds
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    wire.close_all([devnull, output])
    os.closerange(3, min(protocol_fds))
    for low, high in zip(sorted(protocol_fds), sorted(protocol_fds)[1:] + [65536]):
        os.closerange(low + 1, high)
    _take_client_context(request)
    from judge.defence import namespaces

    namespaces.enter()  # as a spawned worker does: this process waits outside as the worker ends
    _bytecode_as_environment()
    _threads_as_environment()
    # as for `python -m judge.worker` with the judge's folder on PYTHONPATH (client.py), and
    # the judge still importable where it is not installed (the server's first entry was it)
    sys.path[0:1] = [request["cwd"], compat.PACKAGE_ROOT]
    _standard_streams(terminal=False)
    argv = [str(fd) for fd in protocol_fds]
    sys.argv = [str(Path(compat.PACKAGE_ROOT, "judge", "worker", "__main__.py")), *argv]
    del request
    from judge.base.profiling import profiled
    from judge.worker.__main__ import main as worker_main
    mark("worker starts")

    code = profiled("worker", worker_main, argv)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def _take_client_context(request: dict) -> None:
    """The client's folder, umask, environment, limits, CPUs and priority (best effort for the last three)."""
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    import resource

    for name, (soft, hard) in request["limits"].items():
        try:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        except (AttributeError, ValueError, OSError):
            pass  # a hard limit above the server's cannot be raised: the lower one stays
    try:
        if request["affinity"]:
            os.sched_setaffinity(0, request["affinity"])
        if request["priority"] is not None:
            os.setpriority(os.PRIO_PROCESS, 0, int(request["priority"]))
    except (AttributeError, OSError):
        pass


def _bytecode_as_environment() -> None:
    """Python's bytecode settings as the environment now says (a fresh interpreter reads them at start)."""
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    sys.pycache_prefix = os.environ.get("PYTHONPYCACHEPREFIX") or None


def _threads_as_environment() -> None:
    """Torch's CPU thread pool as a fresh interpreter sizes it from the environment: a worker's sets
    OMP_NUM_THREADS=1 (judge/worker/client.py), but the pool was sized by the server's, once per CPU,
    when it imported torch.  With the server's pool, a forked worker ran torch's CPU work on every CPU
    (a served CPU-mode run's tests took up to 10x longer on a busy 2-CPU machine than with one thread)."""
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if threads.isdigit() and int(threads) > 0:
        import torch

        torch.set_num_threads(int(threads))


def _standard_streams(terminal: bool) -> None:
    """New sys.stdin/stdout/stderr on descriptors 0-2, buffered as a fresh Python would buffer them."""
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    encoding, _, errors = os.environ.get("PYTHONIOENCODING", "").partition(":")
    encoding = encoding or sys.stdout.encoding or "utf-8"  # the server's: its locale matched the client's
    sys.stdin = open(0, "r", closefd=False, encoding=encoding, errors=errors or "surrogateescape")
    for fd, name in ((1, "stdout"), (2, "stderr")):
        line = fd == 2 or (terminal and os.isatty(fd)) or unbuffered
        stream = open(fd, "w", buffering=1 if line else -1, closefd=False, encoding=encoding,
                      errors=errors or ("backslashreplace" if fd == 2 else "strict"))
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _reply(conn: socket.socket, message: dict) -> None:
    try:
        wire.send(conn, message)
    except OSError:
        pass  # the other end went away: what it would have been told no longer matters


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _set_dumpable(dumpable: bool) -> None:
    from judge.defence.sandbox import set_dumpable

    set_dumpable(dumpable)


def _same_user(conn: socket.socket) -> bool:
    import struct

    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):  # pragma: no cover - not Linux: the socket's 0600 mode stands alone
        return True
    _, uid, _ = struct.unpack("3i", creds)
    return uid == os.getuid()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def log(message: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    from judge.base.bytecode import keep_bytecode

    keep_bytecode()
    args = _arguments(argv)
    server = Server(Path(args.socket), args.idle_s, stop_with=args.stop_with, auto=args.auto,
                    interpret=args.interpret)
    server.prepare()
    _set_dumpable(False)  # another process of this user cannot read its memory or environment
    server.listen()
    if args.lock_fd is not None:
        os.close(args.lock_fd)  # the start lock a judge run handed over: another start now finds this server
    print("ready", flush=True)  # judge server start waits for this line, then closes the pipe
    os.dup2(2, 1)  # from here on, stdout is the log too
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    try:
        server.serve()
    except Become as become:  # in a forked child, with the loop's frames gone
        _leave_server(server, become)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # at once: tearing down an interpreter that imported torch takes a second, and a
    # server that said it stopped (its socket gone) must be gone too (census.stop_all waits for the pid)


def _arguments(argv: list[str]):
    import argparse

    parser = argparse.ArgumentParser(prog="python -m judge.daemon.daemon")
    parser.add_argument("socket")
    parser.add_argument("idle_s", type=float)
    parser.add_argument("--stop-with", type=int, help="stop when this process ends")
    parser.add_argument("--interpret", action="store_true", help="import Triton for its interpreter (no GPU)")
    parser.add_argument("--auto", action="store_true", help="started by a judge run, not by judge server start")
    parser.add_argument("--lock-fd", type=int, help="the start lock, inherited: let go once listening")
    return parser.parse_args(argv)


def _leave_server(server: Server, become: Become) -> None:
    """In a forked child: drop the server's sockets, handlers and state, then become what was asked."""
    import gc

    kind, request, fds, mask = become.kind, become.request, become.fds, become.mask
    os.setpgid(0, 0)
    if kind != "command":  # a command is a judge: it stays non-dumpable, as the server is (sandbox.set_dumpable)
        _set_dumpable(True)  # a worker as a spawned process is (the judge's watchdog reads its /proc entries)
    server.forget()
    del server, become
    gc.collect()
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # signals blocked around the fork reach the new handlers
    try:
        (_become_command if kind == "command" else _become_worker)(request, fds)
    except BaseException:  # noqa: BLE001 - the child must never return into the server's code
        import traceback

        traceback.print_exc()  # to the client's terminal or the worker's output file
        sys.stderr.flush()
    os._exit(70)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
