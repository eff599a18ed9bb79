"""Building a CUDA C++ solution with nvcc into a shared library, cached.

The judge builds, before the solution's worker loads anything: each nvcc step
runs in a process confined as a worker is (judge/defence/confined_exec.py:
Landlock, seccomp, an address-space limit), so nvcc reads only the toolkit,
the system and the solution's folder and writes only its build folder; a
``#include`` of anything else fails like a missing header.  The worker only
reads the finished library: no solution can write the cache another is
judged from (the red team planted a library in a cache the worker could write).

The cache (``<cache>/<key>/<headers>/solution.so``): ``key`` hashes the source,
the flags, the compiler (its path, size and modification time), the GPU's
architecture, the solution's folder and every header-like file in it (so the
same source beside other headers, or a header that appears later for
``__has_include``, builds again); under it, one folder per set of the other
local headers the build read (``deps.json``: path -> sha256).  A build happens
in a temporary folder and is renamed into place: two judges building the same
source never see half a library.  The pure parts (command lines, key,
diagnostics) are in judge/worker/nvcc.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from judge.base.cuda_tools import find_cuda_tool
from judge.challenge.c_signature import UnsupportedCType, argument_types, prototype
from judge.worker import nvcc as commands

__all__ = ["CompileFailed", "CudaUnavailable", "Build", "build", "find_nvcc", "toolkit_root", "toolkit_nvcc",
           "cuda_settings", "cuda_unavailable", "direct_runner", "NVCC_HINT", "FLAGS_ENV", "find_cutlass",
           "CUTLASS_ENV", "missing_cutlass_message"]

NVCC_HINT = ("install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads; with conda: "
             "conda install -c nvidia cuda-nvcc cuda-cudart-dev) and put its bin/ on PATH or set CUDA_HOME")
FLAGS_ENV = "JUDGE_NVCC_FLAGS"  # more nvcc flags for every build (e.g. "-DDEBUG --use_fast_math"): in the cache key
CUTLASS_ENV = "CUTLASS_PATH"  # a CUTLASS checkout (its include/ holds cute/ and cutlass/), before the wheel's
CUTLASS_HINT = ("pip install 'judge[cutlass]' (NVIDIA's nvidia-cutlass wheel, which ships the CUTLASS and CuTe "
                "headers), or set CUTLASS_PATH to a CUTLASS checkout (the folder that holds include/cute)")
CPU_MODE = ("CUDA C++ solutions (.cu) run on an NVIDIA GPU, and this run is in CPU mode (--interpret, or no GPU "
            "that torch can use): CPU mode judges Triton and PyTorch solutions (.py) only. Judge the .cu file on "
            "a machine with an NVIDIA GPU, a CUDA build of torch and the CUDA toolkit (nvcc).")


class CompileFailed(Exception):
    """nvcc rejected the solution (the message is its diagnostics, cut to the user's file)."""


class CudaUnavailable(Exception):
    """A CUDA C++ solution that cannot be judged here (CPU mode, no nvcc, a signature C cannot take)."""


def cuda_unavailable(cpu_mode: bool) -> str | None:
    """Why a CUDA C++ solution cannot be judged in this run; None when it can."""
    if cpu_mode:
        return CPU_MODE
    nvcc = find_nvcc()
    if nvcc is None:
        return ("CUDA C++ solutions (.cu) are compiled with nvcc, which is not on this machine (looked in "
                f"$CUDA_HOME/bin, $CUDA_PATH/bin, PATH and /usr/local/cuda/bin): {NVCC_HINT}.")
    if toolkit_root(nvcc) is None:
        return (f"nvcc is at {nvcc}, but no CUDA toolkit was found beside it (include/cuda_runtime.h above its "
                "bin/, in $CUDA_HOME, $CUDA_PATH or /usr/local/cuda): set CUDA_HOME to the toolkit's folder.")
    return None


def cuda_settings(spec, cpu_mode: bool, cache: str, timeout: float) -> dict:
    """The ``cuda`` part of the worker's init message; raises CudaUnavailable."""
    problem = cuda_unavailable(cpu_mode)
    if problem:
        raise CudaUnavailable(problem)
    try:
        types, declared = argument_types(spec.parameters), prototype(spec.parameters)
    except UnsupportedCType as exc:
        raise CudaUnavailable(f"challenge '{spec.name}' cannot be solved in CUDA C++: {exc}") from None
    nvcc = toolkit_nvcc(find_nvcc())
    return {"nvcc": nvcc, "toolkit": toolkit_root(nvcc), "cache": cache, "argtypes": types, "prototype": declared,
            "flags": shlex.split(os.environ.get(FLAGS_ENV, "")), "timeout": timeout, "cutlass": find_cutlass()}


def find_cutlass(environ=None) -> dict | None:
    """The CUTLASS and CuTe headers, for ``#include <cute/tensor.hpp>``: from ``$CUTLASS_PATH`` (a checkout:
    its include/, or the folder itself when it holds cute/), else the nvidia-cutlass wheel
    (``cutlass_library/source/include``, found without importing the package).  ``{"include": [folders],
    "version": "4.2.0", "from": where, "identity": for the cache key}``; None when there are none.  The
    folders include CUTLASS's tools/util/include where it exists (``cutlass/util/*.hpp``)."""
    environ = os.environ if environ is None else environ
    candidates = []
    if environ.get(CUTLASS_ENV):
        root = environ[CUTLASS_ENV]
        candidates += [(os.path.join(root, "include"), root, "$" + CUTLASS_ENV), (root, root, "$" + CUTLASS_ENV)]
    wheel = _wheel_source()
    if wheel:
        candidates.append((os.path.join(wheel, "include"), wheel, "the nvidia-cutlass wheel"))
    for include, root, where in candidates:
        if os.path.isfile(os.path.join(include, "cute", "tensor.hpp")):
            folders = [os.path.realpath(include)]
            util = os.path.join(root, "tools", "util", "include")
            if os.path.isdir(os.path.join(util, "cutlass")):
                folders.append(os.path.realpath(util))
            version_h = os.path.join(include, "cutlass", "version.h")
            text = Path(version_h).read_text(errors="replace") if os.path.isfile(version_h) else ""
            version = commands.cutlass_version(text)
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
            return {"include": folders, "version": version, "from": where,
                    "identity": commands.cutlass_identity(folders, version, digest)}
    return None


def _wheel_source() -> str | None:
    """``cutlass_library/source`` of an installed nvidia-cutlass wheel (importing the package would load
    its Python generators: only its location is wanted)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("cutlass_library")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if os.path.isdir(os.path.join(folder, "source", "include")):
            return os.path.join(folder, "source")
    return None


def missing_cutlass_message(header: str, environ=None) -> str:
    """The paragraph after nvcc's diagnostics when a CUTLASS or CuTe header it needed is not installed."""
    environ = os.environ if environ is None else environ
    where = environ.get(CUTLASS_ENV)
    looked = (f" (CUTLASS_PATH is {where}, which holds no include/cute/tensor.hpp)" if where else "")
    return (f"The solution includes {header}, a header of NVIDIA's CUTLASS/CuTe library, which is not installed "
            f"here{looked}: {CUTLASS_HINT}. The judge then passes its headers to nvcc.")


@dataclass(frozen=True)
class Build:
    library: str  # the shared library to load
    cached: bool  # found in the cache, not built now
    seconds: float  # time spent finding or building it
    arch: str  # the -gencode flag's architecture, e.g. sm_90a


def find_nvcc(environ=None) -> str | None:
    """The real nvcc (links resolved; a wrapper script stays itself) from $CUDA_HOME/bin, $CUDA_PATH/bin,
    PATH, then /usr/local/cuda/bin (base/cuda_tools.py's order); None when there is none."""
    found = find_cuda_tool("nvcc", environ)
    return os.path.realpath(found) if found else None


def toolkit_root(nvcc: str, environ=None) -> str | None:
    """The toolkit's folder: the one above nvcc's bin/ when it holds the toolkit (include/cuda_runtime.h),
    else $CUDA_HOME, $CUDA_PATH or /usr/local/cuda that does; None when none does.  A wrapper script on
    PATH (``exec /usr/local/cuda-13.0/bin/nvcc "$@"`` in ~/bin) must not make its folder's parent, the
    home folder, readable to the sandboxed build and the worker (the red team's finding)."""
    environ = os.environ if environ is None else environ
    candidates = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))]
    candidates += [environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if environ.get(v)] + ["/usr/local/cuda"]
    for candidate in candidates:
        root = os.path.realpath(candidate)
        if os.path.isfile(os.path.join(root, "include", "cuda_runtime.h")) and root not in ("/", ""):
            return root
    return None


def toolkit_nvcc(nvcc: str) -> str:
    """The toolkit's own nvcc (not a wrapper in front of it), which the build runs."""
    root = toolkit_root(nvcc)
    own = os.path.join(root, "bin", "nvcc") if root else ""
    return own if own and os.access(own, os.X_OK) else nvcc


def _runtime_dir(root: str) -> str:
    for candidate in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
        if os.path.isdir(os.path.join(root, candidate)):
            return os.path.join(root, candidate)
    return ""


def _identity(nvcc: str) -> str:
    stat = os.stat(nvcc)
    return f"{nvcc}:{stat.st_size}:{stat.st_mtime_ns}"


def build(source_path: str, nvcc: str, capability: tuple[int, int], cache: str, extra: list[str],
          timeout: float, runner=None, cutlass: dict | None = None) -> Build:
    """The solution's shared library: from the cache when source, flags, compiler, GPU, folder, local
    headers and CUTLASS headers (``cutlass``: find_cutlass's, None: none) are unchanged, else built now.
    ``runner(command, cwd, timeout) -> (status, output)`` runs each nvcc step (None: directly; the judge
    gives ``confined_runner``'s).  Raises CompileFailed."""
    started = time.monotonic()
    source = Path(source_path).read_bytes()
    arch = commands.arch_flags(capability)[0].rpartition("=")[2]
    folder = str(Path(source_path).resolve().parent)
    key = commands.cache_key(source, _identity(nvcc), capability, extra, _folder_context(folder),
                             cutlass["identity"] if cutlass else "")
    entry = Path(cache) / key
    found = _cached(entry)
    if found:
        return Build(found, True, time.monotonic() - started, arch)
    entry.mkdir(parents=True, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-", dir=entry)
    try:
        headers = _compile_and_link(source_path, source, nvcc, capability, work, extra, started + timeout,
                                    runner or direct_runner, cutlass)
        final = entry / hashlib.sha256(json.dumps(headers, sort_keys=True).encode()).hexdigest()[:16]
        try:
            os.rename(work, final)
        except OSError:  # another worker built the same thing first: its library is as good
            shutil.rmtree(work, ignore_errors=True)
        return Build(str(final / "solution.so"), False, time.monotonic() - started, arch)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".hxx", ".inl", ".inc", ".cu")
MAX_FOLDER_HEADERS = 256


def _folder_context(folder: str) -> str:
    """The solution's folder and the digest of every header-like file in it, for the key: a build made
    beside other headers, or before a header appeared, is not this one."""
    lines = [folder]
    try:
        names = sorted(n for n in os.listdir(folder) if n.lower().endswith(HEADER_SUFFIXES))
    except OSError:
        names = []
    for name in names[:MAX_FOLDER_HEADERS]:
        lines.append(f"{name} {_sha256(os.path.join(folder, name))}")
    return "\n".join(lines)


def _cached(entry: Path) -> str | None:
    """A finished build under ``entry`` whose local headers are all as they were."""
    if not entry.is_dir():
        return None
    for candidate in sorted(entry.iterdir()):
        manifest = candidate / "deps.json"
        library = candidate / "solution.so"
        if candidate.name.startswith(".") or not (manifest.is_file() and library.is_file()):
            continue
        try:
            headers = json.loads(manifest.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(headers, dict) and all(_sha256(path) == digest for path, digest in headers.items()):
            return str(library)
    return None


def _sha256(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _compile_and_link(source_path: str, source: bytes, nvcc: str, capability, work: str, extra: list[str],
                      deadline: float, runner, cutlass: dict | None = None) -> dict:
    """Compile the source's bytes as read (a copy in ``work``: what was hashed is what is built; the
    solution's folder is on the include path for its headers, then CUTLASS's), link, and return the local
    headers read (the CUTLASS headers are not the user's: their identity is in the key)."""
    name = Path(source_path).name
    copy = os.path.join(work, name if name.endswith(".cu") else name + ".cu")
    Path(copy).write_bytes(source)
    obj, deps, library = (os.path.join(work, f) for f in ("solution.o", "solution.d", "solution.so"))
    folder = str(Path(source_path).resolve().parent)
    root = toolkit_root(nvcc) or os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    where = (copy, name, work, folder)
    libraries = list(cutlass["include"]) if cutlass else []
    try:
        _run(runner, commands.compile_command(nvcc, copy, obj, deps, capability, [folder], extra, libraries), where,
             deadline)
    except CompileFailed as failed:
        header = None if cutlass else commands.missing_cutlass_header(str(failed))
        if header:
            raise CompileFailed(f"{failed}\n\n{missing_cutlass_message(header)}") from None
        raise
    _run(runner, commands.link_command(nvcc, obj, library, capability, _runtime_dir(root), extra), where, deadline)
    read = commands.parse_dependencies(Path(deps).read_text(errors="replace")) if os.path.exists(deps) else []
    local = commands.local_dependencies([os.path.realpath(d) for d in read], os.path.realpath(copy),
                                        [root, "/usr", "/lib", "/lib64", "/opt", *libraries])
    headers = {path: _sha256(path) for path in local}
    Path(work, "deps.json").write_text(json.dumps(headers, sort_keys=True))
    return headers


MAX_OUTPUT = 1 << 20  # of nvcc's output read back: a flood of diagnostics is cut to its start


def direct_runner(command: list[str], cwd: str, timeout: float) -> tuple[int, str]:
    """Run one step as it is (tests with a stand-in nvcc; JUDGE_SANDBOX=0 goes through confined_runner)."""
    return _run_step(command, cwd, timeout)


def _run_step(argv: list[str], cwd: str, timeout: float, job: bytes | None = None, env: dict | None = None,
              resident_bytes: int | None = None) -> tuple[int, str]:
    """``argv`` in a session of its own, ``job`` on its stdin (None: none), its output in a file in ``cwd``:
    (exit status, the output's first MAX_OUTPUT bytes).  Its processes together may hold ``resident_bytes``
    (limits.MemoryWatchdog, as over a worker) and take ``timeout`` seconds; past either it is CompileFailed."""
    from judge.defence.limits import MemoryWatchdog

    with tempfile.TemporaryFile(dir=cwd) as log, tempfile.TemporaryFile() as stdin:
        stdin.write(job or b"")
        stdin.seek(0)
        process = subprocess.Popen(argv, stdin=stdin if job is not None else subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True, env=env)
        watchdog = MemoryWatchdog(process.pid, resident_bytes, lambda: _kill_group(process.pid)) if resident_bytes \
            else None
        if watchdog is not None:
            watchdog.start()
        try:
            status = _wait(process, timeout)
        finally:
            if watchdog is not None:
                watchdog.stop()
        if watchdog is not None and watchdog.tripped:
            raise CompileFailed(f"the compiler used {watchdog.tripped / 1024**3:.1f} GiB of memory, more than "
                                f"the {resident_bytes / 1024**3:.1f} GiB a solution's processes may hold")
        log.seek(0)
        return status, log.read(MAX_OUTPUT).decode(errors="replace")


def _wait(process: subprocess.Popen, timeout: float) -> int:
    """The step's exit status; on time-out its whole process group (nvcc and its cicc, ptxas) is killed."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        process.wait()
        raise CompileFailed(f"nvcc did not finish within {timeout:.0f} s") from None


BUILD_MEMORY_BYTES = 8 << 30  # address space of each compiler process: cicc and cudafe++ of a template bomb stop
BUILD_FILE_BYTES = 512 << 20  # any file a step writes (objects, the library, the log)


def confined_runner(policy, resident_bytes: int | None = None, memory_bytes: int = BUILD_MEMORY_BYTES):
    """A runner for ``build`` whose steps run confined (judge/defence/confined_exec.py): ``policy(build_folder)``
    gives the sandbox's policy message (None: JUDGE_SANDBOX=0, limits only), at most ``memory_bytes`` of
    address space each process, and at most ``resident_bytes`` resident for the step's processes together
    (the worker's host-memory limit, watched as the worker's is: limits.MemoryWatchdog)."""
    import sys

    def run(command: list[str], cwd: str, timeout: float) -> tuple[int, str]:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": cwd, "TMPDIR": cwd, "LANG": "C.UTF-8"}
        job = {"command": command, "env": env, "policy": policy(cwd), "memory_bytes": memory_bytes,
               "file_bytes": BUILD_FILE_BYTES}
        inherited = filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))
        python_path = os.pathsep.join([_PACKAGE_ROOT, *inherited])
        return _run_step([sys.executable, "-I", "-c", _CONFINED_MAIN], cwd, timeout, json.dumps(job).encode(),
                         {"PYTHONPATH": python_path, "PATH": env["PATH"], "LANG": "C.UTF-8"}, resident_bytes)

    return run


def _kill_group(pid: int) -> None:
    """Kill the step's processes: its group, and every process below it whatever group it made (tree.stop_tree:
    the sandbox lets a process make a group of its own, as ninja does for each compiler)."""
    from judge.defence import tree

    stopped = tree.stop_tree(pid)
    try:
        os.killpg(pid, 9)
    except ProcessLookupError:
        pass
    tree.kill_all(stopped)


_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
# -I keeps the user's site and PYTHON* variables out; the judge's package and the sandbox's bindings come
# from the path given, as the worker's do.
_CONFINED_MAIN = ("import os, sys; "
                  "sys.path[:0] = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]; "
                  "from judge.defence.confined_exec import main; main()")


def _run(runner, command: list[str], where: tuple, deadline: float) -> None:
    """Run one nvcc step; ``where``: (the source's copy, its name as shown, the build folder, the solution's)."""
    timeout = max(1.0, deadline - time.monotonic())
    try:
        status, output = runner(command, where[2], timeout)
    except OSError as exc:
        raise CompileFailed(f"nvcc could not be run: {exc}") from None
    if status != 0:
        diagnostics = commands.user_diagnostics(output, *where)
        raise CompileFailed(diagnostics or f"nvcc failed with exit status {status} and said nothing")
