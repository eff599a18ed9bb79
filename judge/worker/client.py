"""The judge's side of the worker: spawn it, place each call's arguments in the memory both processes map
(judge/worker/arguments.py), send requests with deadlines the judge decides, freeze the solution's process
whenever a reply has arrived, read the results from its own mapping, and turn crashes and hangs into exceptions
the runner can give verdicts to (docs/security.md, "The harness").
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from judge.base import signals
from judge.base.bytecode import worker_bytecode_env
from judge.base.environment import (CLAIMABLE_MODULES, ENVIRONMENT_MARK, ENVIRONMENT_STATUS, JudgeEnvironmentError,
                                    check_worker_modules, environment_message)
from judge.base.languages import is_cuda_source
from judge.defence.folders import ScratchFolder, remove_tree
from judge.defence import sandbox, tree
from judge.defence.policy import worker_policy
from judge.worker import protocol
from judge.worker import cuda_build
from judge.worker.cuda_build import CudaUnavailable, cuda_settings
from judge.worker.arguments import ArgumentsError, ArgumentsOutOfMemory, CallArguments, JudgeArguments
from judge.worker.deadline import CallDeadline
from judge.defence.limits import MAX_PROCESSES, Limits, MemoryWatchdog

__all__ = ["Worker", "WorkerCrashed", "WorkerTimeout", "SubmissionInvalid", "spawn_early", "gpu_likely"]

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
# What a failure's message shows of the solution's output: its last lines, short (issue 29: a solution
# printing 10 MB put 55 KB on the terminal, 4000 bytes per failed case).
OUTPUT_TAIL_BYTES = 2000
OUTPUT_TAIL_LINES = 20
OUTPUT_LINE_CHARS = 240  # a longer line is cut
OUTPUT_MARK = "--- solution output"  # judging/failures.py leaves what follows it out of a failure's cause


def judge_triton_cache() -> str:
    """Triton's cache of the judge's own kernels (the launch guard's, the warm-up's): workers compile them
    before the solution loads, and no solution may write there (docs/security.md)."""
    from judge.base.paths import cache_dir

    path = cache_dir() / "triton-judge"
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


SOLUTION_CACHES_KEPT = 64  # the per-solution Triton caches kept (the least recently used go)


def solution_triton_cache(solution: str, private: str | None = None) -> str:
    """Where a solution's kernels compile: ``private`` (a grade's worker's own folder), else a folder of the
    judge's cache for this one solution file (its path and bytes): a later run of the same file finds its
    kernels compiled, and no run of another file can plant kernels it would load (a Triton cache shared by
    every run was writable by each, and its size was not counted against the disk limit)."""
    if private is not None:
        return private
    import hashlib

    from judge.base.paths import cache_dir

    path = Path(solution).resolve()
    try:
        content = path.read_bytes()
    except OSError:
        content = b""
    key = hashlib.sha256(str(path).encode() + b"\0" + content).hexdigest()[:32]
    root = cache_dir() / "triton-solutions"
    folder = root / key
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)  # most recently used
    _prune(root, keep=SOLUTION_CACHES_KEPT)
    return str(folder)


def _prune(root: Path, keep: int) -> None:
    try:
        folders = sorted((entry for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)),
                         key=lambda entry: entry.stat(follow_symlinks=False).st_mtime, reverse=True)
    except OSError:
        return
    for entry in folders[keep:]:
        remove_tree(entry.path)


class WorkerCrashed(RuntimeError):
    """The worker died (segfault, os._exit, killed) or broke the protocol."""


class WorkerTimeout(RuntimeError):
    """The worker did not answer before the deadline; it has been killed."""


class SubmissionInvalid(RuntimeError):
    """The solution file could not be loaded (the message says why): ``verdict`` is invalid_submission,
    or compile_error for a CUDA C++ solution nvcc rejected."""

    def __init__(self, message: str, verdict: str = "invalid_submission"):
        super().__init__(message)
        self.verdict = verdict if verdict in ("invalid_submission", "compile_error") else "invalid_submission"


def _widen_pipe(fd: int) -> None:
    """Ask for a 1 MiB pipe buffer (Linux): outputs of hundreds of MB cross it."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (OSError, ImportError):
        pass  # the default buffer works, only slower


def gpu_likely() -> bool:
    """Whether torch will find a GPU, guessed without importing torch (which takes
    seconds): a GPU device node exists and CUDA_VISIBLE_DEVICES hides none of it."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return False
    return any(os.path.exists(node) for node in ("/dev/nvidiactl", "/dev/kfd"))


def spawn_early(solution: str, spec, interpret: bool, device: str | None) -> "Worker | None":
    """Spawn the solution's worker before the judge imports torch, for the mode the
    judge will most likely pick, so that the two processes' imports overlap.

    The runner takes it only if the guess was right (``Runner.take_early_worker``);
    the caller stops it in any case (``stop`` is idempotent).
    """
    interpret = interpret or not gpu_likely()
    worker = Worker(solution, spec, "cpu" if interpret else device or "cuda:0", interpret)
    try:
        worker.spawn()
    except OSError:
        worker.stop()
        return None
    return worker


# The live workers of each thread (a judgement runs in one thread), so that a cancelled
# grade can stop a thread's judgement now, not when its blocked call times out.
_LIVE: dict[int, set] = {}
_LIVE_LOCK = threading.Lock()


@atexit.register
def _stop_live_workers() -> None:
    """No worker outlives the process that spawned it, whatever way that ended (a SIGTERM raised
    between a worker's spawn and the code that stops it): the judge's exit runs this
    (judge/cli/__init__.py)."""
    with _LIVE_LOCK:
        workers = [worker for owned in _LIVE.values() for worker in owned]
    for worker in workers:
        try:
            worker.stop()
        except Exception:  # noqa: BLE001 - the others are still stopped
            worker._kill_tree()


def kill_workers_of(thread_id: int) -> int:
    """Kill the process group of every live worker that thread ``thread_id`` spawned; how many.
    Their pending calls then fail at once (WorkerCrashed)."""
    with _LIVE_LOCK:
        workers = list(_LIVE.get(thread_id, ()))
    for worker in workers:
        worker._kill_tree()
    return len(workers)


class Worker:
    """One spawned worker process for one solution file."""

    def __init__(self, solution: str, spec, device: str, interpret: bool,
                 extra_env: dict | None = None, limits: Limits | None = None, untrusted: bool = False,
                 readable: tuple[str, ...] = ()):
        """``untrusted`` (``judge grade``): the strict sandbox (no folder of $PYTHONPATH) and a Triton
        cache of this worker's own, so no submission's kernels reach another's.  ``readable``: more
        folders its sandbox lets it read (the torch baseline's: a LeetGPU checkout it imports)."""
        self.solution, self.spec = str(Path(solution).resolve()), spec
        self.device, self.interpret = device, interpret
        self.extra_env = dict(extra_env or {})
        self.limits = limits or Limits()
        self.untrusted, self.readable = untrusted, tuple(readable)
        # More folders its sandbox lets it write, and variables set for the solution: a KernelBench solution's
        # load_inline build folder and CUDA toolkit (judging/kernelbench_runner.py).
        self.writable: tuple[str, ...] = ()
        self.solution_extra_env: dict = {}
        self.protections: dict = {}  # the sandbox's layers as the worker applied them (its ready message)
        self.kernel: dict = {}  # the same as the kernel shows them to the judge (tree.kernel_view)
        self.cuda: dict | None = None  # a CUDA C++ solution's build settings (start)
        self.build: dict = {}  # what its build did: cached, seconds, arch (the ready message)
        self.watchdog: MemoryWatchdog | None = None
        self.arguments: JudgeArguments | None = None  # every call's arguments, shared with the worker (arguments.py)
        self._signatures: set = set()  # the sizes and scalars calls have had: a new one may compile (_compiles)
        self._initialized = False  # spawned but never started: still importing, it cannot hear "exit"
        self.process = None  # subprocess.Popen, or forked.ForkedProcess in a command the server runs
        self.workdir: ScratchFolder | None = None
        self.output_path: Path | None = None
        self._output_fd: int | None = None  # the capture file, held open from spawn (output_tail)
        self._owner: int | None = None  # the thread that spawned it (kill_workers_of)
        self.wrap = None  # tool_wrap.Wrap: started under an NVIDIA tool (judge profile's ncu); set before spawn
        self.frozen_between_calls = True  # False: under a tool of its own start (SanitizedWorker), see _check_reply
        self.init_extra: dict = {}  # more of the init message (judge profile: {"profile": "cupti"})
        self._triton_cache: str | None = None  # where its solution's kernels compile (_solution_env)
        self._root: int | None = None  # the worker's own process, below its supervisor (tree.worker_root)
        self._frozen = False  # stopped since its last reply, until the next request (_check_reply)

    # -- life cycle ------------------------------------------------------------
    def start(self, timeout: float) -> None:
        """Spawn the worker (unless ``spawn`` did) and wait until it has imported the solution."""
        if self.process is None:
            self.spawn()
        self._initialized = True  # from here it reads its requests: stop() may ask it to exit
        if self.watchdog is not None:
            self.watchdog.folders = self._writable()  # those set after an early spawn (writable) counted too
        if is_cuda_source(self.solution):
            started = time.monotonic()
            self.cuda = self._built_cuda(timeout)
            timeout = max(1.0, timeout - (time.monotonic() - started))
        try:
            self._send({"op": "init", "solution": self.solution, "spec": protocol.spec_message(self.spec),
                        "device": self.device,
                        "gpu_memory_fraction": self.limits.gpu_memory_fraction,
                        "file_bytes": max(self.limits.file_bytes, self.limits.output_bytes),
                        "solution_env": self._solution_env(), "sandbox": self._policy(), "seal": self._seal(),
                        **({"cuda": self.cuda} if self.cuda else {}), **self.init_extra},
                       deadline=time.monotonic() + timeout, what="loading the solution")
            header, _ = self._receive(timeout, "loading the solution")
        except WorkerCrashed:
            self._raise_if_broken_environment()
            raise
        if not header.get("ok"):
            self.stop()
            raise SubmissionInvalid(header.get("message", "the solution could not be loaded"),
                                    str(header.get("verdict", "invalid_submission")))
        self.protections = header.get("protections") if isinstance(header.get("protections"), dict) else {}
        self.kernel = self._kernel_view()  # what /proc says of it: namespaces, capabilities, no_new_privs, seccomp

    def _raise_if_broken_environment(self) -> None:
        """A worker that ended with ``ENVIRONMENT_STATUS`` before the solution loaded said which of the
        judge's own modules it could not import: believed (``JudgeEnvironmentError``, exit 3) only if it
        names one of them (``CLAIMABLE_MODULES``) and that module fails to import here too, in a fresh Python with the worker's environment; else the
        solution's code forged the status, and its crash stays a verdict."""
        if self.process is None or self.process.poll() != ENVIRONMENT_STATUS:
            return
        claim = next((line.split(ENVIRONMENT_MARK, 1)[1].strip() for line in self.output_tail().splitlines()
                      if ENVIRONMENT_MARK in line), "")
        module, _, detail = claim.partition(":")
        parts = module.strip().split(".")
        if not all(part.isidentifier() for part in parts) or parts[0] not in CLAIMABLE_MODULES:
            return  # not a module of the judge's: the solution's own failure, whatever it printed
        try:
            done = subprocess.run([sys.executable, "-c", f"import {module.strip()}"], env=self._environment(),
                                  capture_output=True, timeout=120, cwd=self.workdir.name if self.workdir else None)
        except (OSError, subprocess.TimeoutExpired):
            return
        if done.returncode != 0:
            raise JudgeEnvironmentError(environment_message(module.strip(), detail.strip() or "it fails"))

    def _cuda_settings(self, timeout: float) -> dict:
        """What it takes to build and call a CUDA C++ solution (judge/worker/cuda_solve.py): nvcc and its
        toolkit, the judge's build cache (only the judge writes it), the C argument types."""
        from judge.base.paths import cache_dir

        cache = str(cache_dir() / "cuda")
        os.makedirs(cache, exist_ok=True)
        return cuda_settings(self.spec, self.interpret or not self.device.startswith("cuda"), cache,
                             max(10.0, timeout - 10.0))

    def _built_cuda(self, timeout: float) -> dict:
        """The CUDA settings with the library built (or found in the cache) for this GPU, before the worker
        loads anything: each nvcc step confined by a policy as strict as a grade's worker's, reading the
        toolkit and the solution's folder, writing its build folder only (cuda_build.confined_runner)."""
        import torch

        try:
            settings = self._cuda_settings(timeout)
            capability = torch.cuda.get_device_capability(torch.device(self.device))
            runner = cuda_build.confined_runner(lambda folder: self._build_policy(settings, folder),
                                                self.limits.host_memory())
            built = cuda_build.build(self.solution, settings["nvcc"], capability, settings["cache"], settings["flags"],
                                     settings["timeout"], runner, settings.get("cutlass"))
        except CudaUnavailable as exc:
            self.stop()
            raise SubmissionInvalid(str(exc)) from None
        except cuda_build.CompileFailed as exc:
            self.stop()
            raise SubmissionInvalid(str(exc), "compile_error") from None
        self.build = {"cached": built.cached, "seconds": round(built.seconds, 3), "arch": built.arch,
                      **({"cutlass": settings["cutlass"]["version"]} if settings.get("cutlass") else {})}
        return dict(settings, library=built.library)

    def _build_policy(self, settings: dict, build_folder: str) -> dict | None:
        """The sandbox of one nvcc step: it reads the toolkit, the solution's folder and the CUTLASS headers
        (if any); it writes its build folder, nothing else.  None with JUDGE_SANDBOX=0."""
        reads = (settings["toolkit"], *((settings.get("cutlass") or {}).get("include") or ()))
        return worker_policy(str(Path(self.solution).parent), build_folder, (), reads, strict=True,
                             hidden=(_PACKAGE_ROOT,))

    def _scratch(self, name: str) -> str:
        path = Path(self.workdir.name) / name
        path.mkdir(exist_ok=True)
        return str(path)

    def _solution_env(self) -> dict:
        """The variables the worker sets just before the solution loads (session.confine): its
        kernels compile into a cache of their own, not the one the judge's kernels came from, and so do
        torch.compile's (inductor's cache inside it: a second run of the file does not compile again)."""
        if self._triton_cache is None:
            self._triton_cache = solution_triton_cache(self.solution, self._scratch("triton") if self.untrusted else None)
        return {"TRITON_CACHE_DIR": self._triton_cache, "TMPDIR": self._scratch("tmp"),
                "TORCHINDUCTOR_CACHE_DIR": os.path.join(self._triton_cache, "inductor"), **self.solution_extra_env}

    def _writable(self) -> list[str]:
        """Every folder the worker may write once the solution loads, each counted by the disk watchdog."""
        folders = [self.workdir.name, self._solution_env()["TRITON_CACHE_DIR"], *self.writable,
                   *(self.wrap.writable if self.wrap is not None else ())]  # a tool's (ncu's lock folder)
        profiles = os.environ.get("JUDGE_PROFILE_DIR")  # judge/base/profiling.py: the worker writes its profile there
        if profiles:
            os.makedirs(profiles, exist_ok=True)
            folders.append(profiles)
        return folders

    def _seal(self) -> dict:
        """The worker's mounts before the solution loads (judge/defence/namespaces.py), whatever the sandbox:
        read-only but for its own folders; the judge server's socket folders hidden."""
        from judge.base.paths import cache_dir

        hidden = [str(cache_dir() / "server"), os.path.join(tempfile.gettempdir(), f"judge-{os.getuid()}")]
        return {"writable": self._writable(), "hidden": hidden}

    def _policy(self) -> dict | None:
        """The sandbox's policy as sent to the worker (judge/defence/policy.py); None with JUDGE_SANDBOX=0."""
        from judge.base.paths import cache_dir

        readable = [judge_triton_cache(), str(cache_dir() / "pycache"), *self.readable,
                    *(self.wrap.readable if self.wrap is not None else ())]
        writable = self._writable()[1:]
        if self.cuda and self.cuda.get("library"):  # the library the judge built, and the toolkit's runtime
            readable += [os.path.dirname(self.cuda["library"]), self.cuda["toolkit"]]
        return worker_policy(str(Path(self.solution).parent), self.workdir.name, tuple(writable), tuple(readable),
                             strict=self.untrusted, hidden=(_PACKAGE_ROOT,))

    def spawn(self) -> None:
        """Start the process.  It imports torch at once (seconds) and then waits for
        ``start``'s init message, so spawning early overlaps that with the judge's own work.
        A SIGTERM or Ctrl-C is raised once the process is known (``_LIVE``), not between fork and exec."""
        check_worker_modules(self.interpret)  # the judge's own imports: an internal error, never a verdict
        with signals.held():
            self._spawn()

    def _spawn(self) -> None:
        self.workdir = ScratchFolder("judge-worker-")
        self.output_path = Path(self.workdir.name) / "output.txt"
        request_r, self._request_w = os.pipe()
        os.set_blocking(self._request_w, False)  # writes with a deadline (protocol.send): a worker may stop reading
        self._response_r, response_w = os.pipe()
        _widen_pipe(response_w)
        _widen_pipe(self._request_w)  # shipped inputs (LeetGPU tests) cross it
        try:
            self.arguments = JudgeArguments(self.device)
        except ArgumentsError as exc:
            raise JudgeEnvironmentError(str(exc)) from None
        fds = (request_r, response_w) + ((self.arguments.fd,) if self.arguments.fd is not None else ())
        try:
            # Appending: emptied at every request (new_output), the file counts one call's output against
            # RLIMIT_FSIZE, not all calls' together.
            with open(self.output_path, "ab") as output:
                # Read through this descriptor only: the solution may replace the path (a folder, a
                # link to another file), never the file the judge opened.
                self._output_fd = os.open(self.output_path, os.O_RDWR | os.O_CLOEXEC)
                self.process = self._start_process(list(fds), output)
        finally:  # the child has its copies; on failure the judge keeps none
            os.close(request_r)
            os.close(response_w)
            if self.process is None:
                for fd in (self._request_w, self._response_r):
                    os.close(fd)
                self.arguments.close()
                self.arguments = None
        self.watchdog = MemoryWatchdog(self.process.pid, self.limits.host_memory(), self._kill_tree,
                                       scratch=self._writable(), scratch_limit=self.limits.scratch_bytes,
                                       output_fd=self._output_fd, output_limit=self.limits.output_bytes,
                                       shared_fd=self.arguments.fd if self.arguments is not None else None)
        self.watchdog.start()
        self._owner = threading.get_ident()
        with _LIVE_LOCK:
            _LIVE.setdefault(self._owner, set()).add(self)

    def _start_process(self, fds: list[int], output):
        """``python -m judge.worker FDS``, or the same forked by the judge server when this
        command runs in one (judge/worker/forked.py: no second import of torch)."""
        env = self._environment()
        from judge.worker import forked

        if forked.SERVER is not None and self.wrap is None:
            process = forked.fork_worker(fds, output.fileno(), self.workdir.name, env)
            if process is not None:
                return process
        tool = list(self.wrap.argv) if self.wrap is not None else []  # tool_wrap.py: the tool passes the fds on
        return subprocess.Popen(
            [*tool, sys.executable, "-m", "judge.worker", *map(str, fds)],
            pass_fds=fds, stdin=subprocess.DEVNULL, stdout=output,
            stderr=subprocess.STDOUT, cwd=self.workdir.name, env=env,
            start_new_session=True,  # its own process group: a kill reaches its children too
        )

    @property
    def spawned_for(self) -> tuple:
        """What the process depends on from the moment it is spawned (device and spec come with init)."""
        return self.solution, self.interpret, self.limits, sorted(self.extra_env.items())

    def _environment(self) -> dict:
        """What the worker's process starts with: the allowed variables only (sandbox.allowed_environment),
        the judge's package first on its path, and until the solution loads, Triton's cache of the
        judge's own kernels (the launch guard's, the warm-up's) that no solution can write to."""
        env = sandbox.allowed_environment(os.environ)
        env.update(sandbox.ONE_THREAD)  # no BLAS or OpenMP pool started before the sandbox (sandbox._other_threads)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        env = worker_bytecode_env(env)  # the judge's bytecode cache; none beside the user's files (session.py)
        env["TRITON_CACHE_DIR"] = judge_triton_cache()
        if self.interpret:
            env["TRITON_INTERPRET"] = "1"
            env.pop("JUDGE_WORKER_WARM_DEVICE", None)
        else:
            env.pop("TRITON_INTERPRET", None)
            env["JUDGE_WORKER_WARM_DEVICE"] = self.device  # judge/worker/__main__.py: context made early
        env.update(self.extra_env)
        if self.wrap is not None:
            env.update(self.wrap.env)
        return env

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Ask the worker to exit, kill it if it does not, and clean up."""
        if self.process is not None:
            # Stopped by a signal: killed at once (it may be in a call that never returns, deaf to "exit").
            if self.process.poll() is None and self._initialized and signals.received() is None:
                self._thaw()
                try:
                    protocol.send(self._request_w, {"op": "exit"}, deadline=time.monotonic() + 0.5)
                    self.process.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired, protocol.Timeout):
                    pass
            self._kill()
            if self.watchdog is not None:
                self.watchdog.stop()
            for fd in (self._request_w, self._response_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.process = None
            if self._output_fd is not None:
                os.close(self._output_fd)
                self._output_fd = None
            with _LIVE_LOCK:
                _LIVE.get(self._owner, set()).discard(self)
                if not _LIVE.get(self._owner, True):
                    del _LIVE[self._owner]
        if self.arguments is not None:
            self.arguments.close()
            self.arguments = None
        if self.workdir is not None:
            finalizer = getattr(self.workdir, "_finalizer", None)  # a TemporaryDirectory's own rmtree: never run
            if finalizer is not None:
                finalizer.detach()
            remove_tree(self.workdir.name)  # by descriptors, at any depth, no link followed (folders.py)
            self.workdir = None

    def end_wrapped(self, timeout: float) -> str:
        """A worker under a tool (``wrap``): ask it to exit, give the tool up to ``timeout`` seconds to finish
        (ncu writes its report after the program ends) and return the last 64 KiB of what the tool and the
        worker printed; ``stop`` then cleans up."""
        if self.process is not None and self.process.poll() is None:
            self._thaw()  # stopped while the judge read its last reply (_check_reply)
            try:
                protocol.send(self._request_w, {"op": "exit"}, deadline=time.monotonic() + 5)
                self.process.wait(timeout=timeout)
            except (OSError, subprocess.TimeoutExpired, protocol.Timeout):
                pass
        return self.output_tail(65536, 400)

    def _kill_tree(self) -> list[int]:
        """Kill every process of the worker's: all stopped first, then killed (tree.stop_tree), its process
        group too; the processes it stopped."""
        stopped = tree.stop_tree(self.process.pid)  # first: the dead supervisor's child is re-parented
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        tree.kill_all(stopped)
        return stopped

    def _kill(self) -> None:
        """Kill the worker's tree and wait until every process of it has ended: the process the judge
        started (a supervisor, namespaces.py) dies at once, the worker below it only once the kernel has
        torn its memory down (tens of milliseconds for a torch process), and a judge that returned
        before then left it running behind its exit."""
        stopped = self._kill_tree()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - an unkillable process
            pass
        tree.wait_ended(stopped, timeout=10)

    # -- requests ------------------------------------------------------------------
    def place(self, parameters, call: CallArguments, zoned: bool = True) -> dict:
        """Write a call's arguments (in ``parameters``' order, as the judge drew them; out tensors poisoned)
        into the shared memory, while the solution's process is frozen; the request fields that name them: the
        memory, each tensor's slot (a model's tensors too), the scalars, a model's description, the out tensors
        that start from values (``call.kept``), and ``call.extra``.  ``zoned`` False: no guard zones
        (``--sanitize``)."""
        from judge.challenge import shipped_module
        from judge.challenge.spec_model import Module, Scalar

        tensors, scalars, modules = [], {}, {}
        for p, value in zip(parameters, call.values):
            if isinstance(p, Scalar):
                scalars[p.name] = value
            elif isinstance(p, Module):
                description, values = shipped_module.describe(value, p.name)
                names = [f"{p.name}.{inner}" for inner, _ in shipped_module.tensors(value)]
                modules[p.name] = {"description": description, "slots": names}
                tensors += [(name, _dtype_name(v), tuple(v.shape), v.detach()) for name, v in zip(names, values)]
            else:
                tensors.append((p.name, _dtype_name(value), tuple(value.shape), value))
        if self.arguments is None:
            self.arguments = JudgeArguments(self.device)
        try:
            slots = self.arguments.place(tensors, zoned)
        except ArgumentsOutOfMemory as exc:  # the solution's process holds the GPU's memory: its runtime error
            raise WorkerCrashed(f"the GPU had no memory left for the call's arguments ({exc}): the solution's "
                                "process holds it") from None
        except ArgumentsError as exc:
            raise JudgeEnvironmentError(f"the judge could not place a call's arguments: {exc}") from None
        return {"memory": self.arguments.handle(), "slots": [slot.message() for slot in slots], "scalars": scalars,
                "modules": modules, "kept": sorted(call.kept), **call.extra}

    def results(self, names=None) -> dict:
        """Copies of the last call's tensors as the judge's own mapping holds them (``names``: only these)."""
        return self.arguments.read(names)

    def stores_outside(self) -> list[str]:
        """A message for every tensor of the last call whose guard zones changed (an out-of-bounds store)."""
        return [v.message() for v in self.arguments.violations()]

    def request(self, header: dict, timeout: float, what: str = "the call",
                cap: float | None = None) -> tuple[dict, list]:
        """Send a request and wait at most ``timeout`` seconds for its answer.

        With ``cap``, the first request on each new set of arguments (sizes and scalars: where Triton compiles
        and autotunes again) may take up to ``cap`` seconds, the time the worker says it spent compiling not
        counting against ``timeout`` (judge/worker/deadline.py); every other request has ``timeout`` alone,
        whatever the worker says (a worker that forged compile events had a 65 s call accepted against 60 s).
        The solution's process is thawed for the request and frozen again as soon as its answer arrives."""
        if cap is not None and not self._compiles(header):
            cap = None
        self.new_output()
        self._send(header, time.monotonic() + timeout, what)
        return self._receive(timeout, what, cap)

    def _compiles(self, header: dict) -> bool:
        """Whether a request may compile: a warm-up or profile, or a call on sizes and scalars not seen before."""
        if header.get("op") in ("bench", "profile"):
            return True
        key = (tuple((slot[1], tuple(slot[2])) for slot in header.get("slots") or ()),
               tuple(sorted((header.get("scalars") or {}).items())))
        if key in self._signatures:
            return False
        self._signatures.add(key)
        return True

    def new_output(self) -> None:
        """Empty the output capture before a request: the output limit (``Limits.output_bytes``, which the
        watchdog holds it to) is then what one call may print, and a failure's tail is its own call's.
        The worker writes in append mode, so it writes at the start again (a solution that clears
        O_APPEND on its stdout writes on at its offset, and its calls' output counts together again)."""
        if self._output_fd is not None:
            try:
                os.ftruncate(self._output_fd, 0)
            except OSError:
                pass

    def receive(self, timeout: float, what: str) -> tuple[dict, list]:
        """Wait for the next message of a multi-message reply."""
        return self._receive(timeout, what)

    def _send(self, header: dict, deadline: float | None = None, what: str = "the call") -> None:
        try:
            self._thaw()
            protocol.send(self._request_w, header, (), deadline)
        except OSError:
            raise WorkerCrashed(self._death_message("before the request could be sent")) from None
        except protocol.Timeout:
            self._kill()
            raise WorkerTimeout(f"the solution's process stopped reading the judge's requests before {what} "
                                "(it answered for itself and never returned?); the worker was killed") from None

    def _thaw(self) -> None:
        if self._frozen:
            self._frozen = False
            tree.thaw(self._worker_root())

    def _worker_root(self) -> int:
        """The worker's own process: the first of its PID namespace, below the supervisor the judge started."""
        if self._root is None:
            started = self.process.pid if self.wrap is None else _below_tool(self.process.pid)
            self._root = tree.worker_root(started)
            if self.watchdog is not None:
                self.watchdog.root = self._root  # the supervisor runs nothing of the solution's (limits.py)
        return self._root

    def _check_reply(self, what: str) -> None:
        """After each reply, before the judge reads anything: the solution's process frozen (every thread stopped,
        until the judge's next request: nothing of the solution's runs while the judge writes the next call's
        arguments or reads this one's), and no other process of the solution's left running (a helper forked at
        import kept the shared memory mapped and rewrote the results after the call: the red team's).  A worker
        under an NVIDIA tool (``wrap``, ``frozen_between_calls`` False) is not frozen: the tool's launcher, its
        parent, takes a stopped child for an ended one (ncu on the H200: "The application returned an error code
        (19)", SIGSTOP's number), and what such a worker gives is a profile or a sanitizer's findings, no verdict."""
        if self.process is None or not sys.platform.startswith("linux"):
            return
        root = self._worker_root()
        if self._freezes() and not self._frozen:
            self._freeze(root, what)
        left = tree.left_running(root)
        if left:
            self._kill()
            who = "the solution's import" if what == "loading the solution" else "solve()"
            more = f" and {len(left) - 4} more" if len(left) > 4 else ""
            raise WorkerCrashed(
                f"{who} left a process running (pid {', '.join(left[:4])}{more}), found when {what} ended: every "
                "process the solution starts must end before it returns (one left behind could rewrite the results "
                "or work untimed); the worker was stopped")
        if self.arguments is not None:
            outgrown = self.arguments.replied()
            if outgrown:
                self._kill()
                raise WorkerCrashed(f"{outgrown} (it may write the arguments, never grow them); it was stopped")

    def _freeze(self, root: int, what: str) -> None:
        """Stop every thread of the worker; a worker that cannot be stopped is killed.  One that has ended is left
        to the read that follows, which finds its pipe closed and says how it ended."""
        self._frozen = True
        if tree.freeze(root):
            return
        if self.process.poll() is not None or not os.path.exists(f"/proc/{root}"):
            return
        self._kill()
        raise WorkerCrashed(f"the solution's process could not be stopped after {what}; it was killed")

    def _ask_for_stacks(self, wait_s: float = 0.5) -> None:
        """Before a worker past its deadline is killed: its threads' stacks written into its output (session.py's
        STACKS_SIGNAL), which the failure's message then shows; at most ``wait_s`` for them to appear."""
        if self.process is None or self._frozen or not sys.platform.startswith("linux") or self._output_fd is None:
            return
        try:
            before = os.fstat(self._output_fd).st_size
            os.kill(self._worker_root(), signal.SIGUSR2)
        except OSError:
            return
        deadline = time.monotonic() + wait_s
        size = before
        while time.monotonic() < deadline:
            time.sleep(0.02)
            grown = os.fstat(self._output_fd).st_size
            if grown > before and grown == size:  # written, and no longer growing
                return
            size = grown

    def _kernel_view(self) -> dict:
        """What the kernel says of the worker's process (tree.kernel_view): namespaces, capabilities,
        no_new_privs and seccomp's mode, which no reply of the worker's can change."""
        if self.process is None or not sys.platform.startswith("linux"):
            return {}
        return tree.kernel_view(self._worker_root())

    def _receive(self, timeout: float, what: str, cap: float | None = None) -> tuple[dict, list]:
        clock = CallDeadline(time.monotonic(), timeout, cap)
        try:
            header = self._next_reply(clock, what)
            self._check_reply(what)
            return header, []
        except OSError:
            raise WorkerCrashed(self._death_message(f"during {what}")) from None
        except protocol.Timeout:
            self._ask_for_stacks()
            self._kill()
            raise WorkerTimeout(clock.explain(what, time.monotonic())) from None
        except protocol.ProtocolError as exc:
            if not isinstance(exc, protocol.Closed):  # it is talking nonsense, not dead
                self._kill()
                raise WorkerCrashed(f"malformed reply from the solution's process during {what}: {exc}; "
                                    "it was stopped") from None
            raise WorkerCrashed(self._death_message(f"during {what}", str(exc))) from None

    def _next_reply(self, clock: CallDeadline, what: str) -> dict:
        """The next message that is not a ``progress`` report; a report moves the deadline of a request that may
        compile (``request``'s ``cap``), and no other's.  No reply carries data: the results are in the shared
        memory, read by the judge.  A reply other than a profile's that was still being written when the worker
        was frozen is malformed: every other reply fits a pipe's buffer whole, and a long one kept the worker
        running while the judge read it (a reply padded to 8 MB: the red team of issue 46, idea 9)."""
        while True:
            header, whole = self._frozen_message(clock, what)
            header = protocol.clean(header)  # no lone surrogate or terminal escape reaches a report
            if not whole and header.get("ok") and header.get("op") not in _LONG_REPLIES:
                raise protocol.ProtocolError("a reply longer than a pipe holds, still being written when the judge "
                                             "stopped the process (no reply of a call is that long)")
            if header.get("op") != "progress":
                return header
            self._thaw()
            clock.note(header, time.monotonic())

    def _frozen_message(self, clock: CallDeadline, what: str) -> tuple[dict, bool]:
        """The next message, the worker frozen as soon as its first bytes are there (before the judge reads and
        parses it); whether it was whole then.  A message still being written is read with the worker thawed."""
        fd = self._response_r
        protocol.wait_readable(fd, clock.deadline())
        if not self._freezes():
            return protocol.read_message(fd, protocol.read_length(fd, clock.deadline()), clock.deadline(),
                                         protocol.MAX_BLOB, 0, 0)[0], True
        root = self._worker_root()
        self._freeze(root, what)
        whole = protocol.available(fd) >= 8
        if not whole:
            self._thaw()
        length = protocol.read_length(fd, clock.deadline())
        whole = whole and protocol.available(fd) >= length
        if not whole:
            self._thaw()
        header, _ = protocol.read_message(fd, length, clock.deadline(), protocol.MAX_BLOB, 0, 0)
        if not whole:
            self._freeze(root, what)
        return header, whole

    def _freezes(self) -> bool:
        """Whether this worker is frozen between calls (_check_reply)."""
        return (self.process is not None and sys.platform.startswith("linux") and self.frozen_between_calls
                and self.wrap is None)

    def _death_message(self, when: str, detail: str = "") -> str:
        code = None
        if self.process is not None:
            try:
                code = self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill()
                code = self.process.returncode
        if self.watchdog is not None and self.watchdog.tripped:
            cause = (f"used {self.watchdog.tripped / 1024**3:.1f} GiB of host memory, over the limit of "
                     f"{self.limits.host_memory() / 1024**3:.1f} GiB, and was killed")
        elif self.watchdog is not None and self.watchdog.tripped_disk:
            cause = (f"wrote {self.watchdog.tripped_disk / 1024**3:.1f} GiB of files into its folders (its scratch "
                     f"folder and its Triton cache), over the limit of {self.limits.scratch_bytes / 1024**3:.1f} GiB, "
                     "and was killed")
        elif self.watchdog is not None and self.watchdog.tripped_processes:
            cause = (f"started {self.watchdog.tripped_processes} processes, more than {MAX_PROCESSES}, "
                     "and was killed")
        elif self.watchdog is not None and self.watchdog.tripped_output:
            cause = (f"wrote more than {self.limits.output_bytes // 1024**2} MiB in one call (printed output), "
                     "and was killed")
        elif code == -signal.SIGXFSZ:
            cause = f"wrote more than {self.limits.file_bytes // 1024**2} MiB into one file, and was killed"
        elif code is not None and code < 0:
            try:
                cause = f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                cause = f"was killed by signal {-code}"
        elif code is not None:
            cause = f"exited with status {code}"
        else:
            cause = detail or "stopped answering"
        return f"the solution's process {cause} {when}"

    def output_tail(self, limit: int = OUTPUT_TAIL_BYTES, lines: int = OUTPUT_TAIL_LINES) -> str:
        """What the solution printed (stdout and stderr) since the last request began, or while it loaded,
        as clean text under a line that says how much of it this is: at most its last ``lines`` lines and
        ``limit`` bytes; "" when it printed nothing.  Never raises."""
        if self._output_fd is None:
            return ""
        try:
            size = os.fstat(self._output_fd).st_size
            data = os.pread(self._output_fd, limit, max(0, size - limit))
        except OSError:
            return ""
        text = protocol.clean_text(data.decode("utf-8", "replace")).rstrip()
        if not text.strip():
            return ""
        every = text.splitlines()
        kept = [line if len(line) <= OUTPUT_LINE_CHARS else line[:OUTPUT_LINE_CHARS - 1] + "…"
                for line in every[-lines:]]
        if size <= limit and len(kept) == len(every):
            return f"{OUTPUT_MARK} ---\n{text}"
        if size > limit and len(kept) == len(every):
            kept[0] = "..." + kept[0]  # the first line shown is cut at its start
        return f"{OUTPUT_MARK}: its last {len(kept)} line(s), of {_amount(size)} printed ---\n" + "\n".join(kept)


# Replies that may be longer than a pipe holds: a profile's records of every launch (kernel_trace.py).
_LONG_REPLIES = frozenset({"profiled"})


def _below_tool(pid: int) -> int:
    """The worker's process that a tool (``wrap``: ncu) started below itself: the shallowest descendant of
    ``pid`` whose command line is the judge's own, ``PYTHON -m judge.worker FDS`` with this interpreter (what
    the solution starts lies deeper, below the worker).  ncu's launcher, which stays between ncu and the worker,
    has the worker's arguments in its own command line (on the H200: ``./TreeLauncherSubreaper -m judge.worker
    26 30 32 /opt/torch/.venv/bin/python3``) and was taken for the worker, so that the worker itself became "a
    process the solution's import left running"."""
    python = os.path.realpath(sys.executable)
    for child in tree.descendants(pid, most=256):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv[1:3] == [b"-m", b"judge.worker"] and os.path.realpath(os.fsdecode(argv[0])) == python:
            return child
    return pid


def _dtype_name(tensor) -> str:
    """``float32`` for a float32 tensor: the names the spec and the shared memory's slots use."""
    return str(tensor.dtype).removeprefix("torch.")


def _amount(size: int) -> str:
    """``312 bytes``, ``4.9 KB``, ``10.0 MB``: a size of printed output."""
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"
