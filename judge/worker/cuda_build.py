"""Building a CUDA C++ solution with nvcc into a shared library, cached.

Runs in the worker after its sandbox is on (judge/worker/sandbox.py), so nvcc
reads and writes only what the solution's process may: a ``#include`` of a
file outside the allowed folders fails like any other missing header.

The cache (``<cache>/<key>/<headers>/solution.so``): ``key`` hashes the source,
the flags, the compiler (its path, size and modification time) and the GPU's
architecture; under it, one folder per set of local headers the build read
(``deps.json``: path -> sha256), so an edited header builds again and an
unchanged one does not.  A build happens in a temporary folder and is renamed
into place: two workers building the same source never see half a library.
The pure parts (command lines, key, diagnostics) are in judge/worker/nvcc.py.
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

from judge.challenge.c_signature import UnsupportedCType, argument_types, prototype
from judge.worker import nvcc as commands

__all__ = ["CompileFailed", "CudaUnavailable", "Build", "build", "find_nvcc", "toolkit_root", "cuda_settings",
           "cuda_unavailable", "NVCC_HINT", "FLAGS_ENV"]

NVCC_HINT = ("install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads; with conda: "
             "conda install -c nvidia cuda-nvcc cuda-cudart-dev) and put its bin/ on PATH or set CUDA_HOME")
FLAGS_ENV = "JUDGE_NVCC_FLAGS"  # more nvcc flags for every build (e.g. "-DDEBUG --use_fast_math"): in the cache key
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
    if find_nvcc() is None:
        return ("CUDA C++ solutions (.cu) are compiled with nvcc, which is not on this machine (looked in "
                f"$CUDA_HOME/bin, $CUDA_PATH/bin, PATH and /usr/local/cuda/bin): {NVCC_HINT}.")
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
    return {"nvcc": find_nvcc(), "cache": cache, "argtypes": types, "prototype": declared,
            "flags": shlex.split(os.environ.get(FLAGS_ENV, "")), "timeout": timeout}


@dataclass(frozen=True)
class Build:
    library: str  # the shared library to load
    cached: bool  # found in the cache, not built now
    seconds: float  # time spent finding or building it
    arch: str  # the -gencode flag's architecture, e.g. sm_90a


def find_nvcc(environ=None) -> str | None:
    """nvcc from $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, then /usr/local/cuda/bin; None when there is none."""
    environ = os.environ if environ is None else environ
    candidates = [os.path.join(environ[v], "bin", "nvcc") for v in ("CUDA_HOME", "CUDA_PATH") if environ.get(v)]
    on_path = shutil.which("nvcc", path=environ.get("PATH"))
    candidates += [on_path] if on_path else []
    candidates.append("/usr/local/cuda/bin/nvcc")
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    return None


def toolkit_root(nvcc: str) -> str:
    """The toolkit's folder: the one above nvcc's bin/."""
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


def _runtime_dir(root: str) -> str:
    for candidate in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
        if os.path.isdir(os.path.join(root, candidate)):
            return os.path.join(root, candidate)
    return ""


def _identity(nvcc: str) -> str:
    stat = os.stat(nvcc)
    return f"{nvcc}:{stat.st_size}:{stat.st_mtime_ns}"


def build(source_path: str, nvcc: str, capability: tuple[int, int], cache: str, extra: list[str],
          timeout: float) -> Build:
    """The solution's shared library: from the cache when source, flags, compiler, GPU and local headers
    are unchanged, else built now.  Raises CompileFailed with nvcc's diagnostics."""
    started = time.monotonic()
    source = Path(source_path).read_bytes()
    arch = commands.arch_flags(capability)[0].rpartition("=")[2]
    entry = Path(cache) / commands.cache_key(source, _identity(nvcc), capability, extra)
    found = _cached(entry)
    if found:
        return Build(found, True, time.monotonic() - started, arch)
    entry.mkdir(parents=True, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-", dir=entry)
    try:
        headers = _compile_and_link(source_path, source, nvcc, capability, work, extra, started + timeout)
        final = entry / hashlib.sha256(json.dumps(headers, sort_keys=True).encode()).hexdigest()[:16]
        try:
            os.rename(work, final)
        except OSError:  # another worker built the same thing first: its library is as good
            shutil.rmtree(work, ignore_errors=True)
        return Build(str(final / "solution.so"), False, time.monotonic() - started, arch)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


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
                      deadline: float) -> dict:
    """Compile the source's bytes as read (a copy in ``work``: what was hashed is what is built; the
    solution's folder is on the include path for its headers), link, and return the local headers read."""
    name = Path(source_path).name
    copy = os.path.join(work, name if name.endswith(".cu") else name + ".cu")
    Path(copy).write_bytes(source)
    obj, deps, library = (os.path.join(work, f) for f in ("solution.o", "solution.d", "solution.so"))
    folder = str(Path(source_path).resolve().parent)
    root = toolkit_root(nvcc)
    where = (copy, name, work, folder)
    _run(commands.compile_command(nvcc, copy, obj, deps, capability, [folder], extra), where, deadline)
    _run(commands.link_command(nvcc, obj, library, capability, _runtime_dir(root), extra), where, deadline)
    read = commands.parse_dependencies(Path(deps).read_text(errors="replace")) if os.path.exists(deps) else []
    local = commands.local_dependencies([os.path.realpath(d) for d in read], os.path.realpath(copy),
                                        [root, "/usr", "/lib", "/lib64", "/opt"])
    headers = {path: _sha256(path) for path in local}
    Path(work, "deps.json").write_text(json.dumps(headers, sort_keys=True))
    return headers


def _run(command: list[str], where: tuple, deadline: float) -> None:
    """Run one nvcc step; ``where``: (the source's copy, its name as shown, the build folder, the solution's)."""
    timeout = max(1.0, deadline - time.monotonic())
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, cwd=where[2])
    except subprocess.TimeoutExpired:
        raise CompileFailed(f"nvcc did not finish within {timeout:.0f} s") from None
    except OSError as exc:
        raise CompileFailed(f"nvcc could not be run: {exc}") from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr).decode(errors="replace")
        diagnostics = commands.user_diagnostics(output, *where)
        raise CompileFailed(diagnostics or f"nvcc failed with exit status {done.returncode} and said nothing")
