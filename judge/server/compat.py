"""Which requests a server may serve: the same judge code, the same Python, and
the same environment where the imports read it.  A request that differs in any
of these is refused and runs as if there were no server.

The server forks copies of a process that imported torch, triton and the judge
with its own environment; a copy then runs with the client's.  Variables read
while importing (PYTHON*, LD_*, TORCH*, PYTORCH*) must therefore agree; those
read later (JUDGE_*, TRITON_*, CUDA_VISIBLE_DEVICES, NO_COLOR...) may differ.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from judge.base.paths import cache_dir, private_folder
from judge.base.process import cgroup, process_context

__all__ = ["SERVED_COMMANDS", "served_command", "import_environment", "environment_mismatch",
           "fingerprint", "socket_path", "log_path", "private_folder", "cgroup", "process_context", "PACKAGE_ROOT", "SECRET_NAMES",
           "interpreter_identity", "machine_interprets", "triton_mode_mismatch"]

SERVED_COMMANDS = ("run", "watch", "rank")  # not grade: its secret must never sit in a process workers fork from
_GLOBAL_OPTIONS_WITH_VALUE = ("--challenges-dir",)
_IMPORT_PREFIXES = ("PYTHON", "LD_", "TORCH", "PYTORCH", "OMP_", "MKL_", "KMP_", "OPENBLAS_", "MALLOC_",
                    "LANG", "LC_")
SECRET_NAMES = ("JUDGE_SECRET_SEED",)  # never sent to a server nor kept by one (grading/records.py)
_NOT_IMPORT_TIME = {"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH"}
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding judge/


def served_command(argv: list[str]) -> str | None:
    """The command ``argv`` runs if the server serves it (not for --help or --version), else None."""
    if any(a in ("-h", "--help", "--version") for a in argv):
        return None
    args = iter(argv)
    for arg in args:
        if arg in _GLOBAL_OPTIONS_WITH_VALUE:
            next(args, None)
        elif arg.startswith("--challenges-dir="):
            continue
        elif not arg.startswith("-"):
            return arg if arg in SERVED_COMMANDS else None
    return None


def import_environment(env: dict, with_path: bool = False) -> dict:
    """The variables that imports (or the interpreter's start) read; PYTHONPATH only ``with_path``
    (environment_mismatch compares it entry by entry)."""
    kept = {k: v for k, v in env.items() if k.startswith(_IMPORT_PREFIXES) and k not in _NOT_IMPORT_TIME}
    if with_path and "PYTHONPATH" in env:
        kept["PYTHONPATH"] = env["PYTHONPATH"]
    return kept


def _path_entries(env: dict, ignore: tuple[str, ...]) -> list[str]:
    entries = [os.path.normpath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    return [p for p in entries if p not in ignore]


def environment_mismatch(server_env: dict, env: dict, ignore_paths: tuple[str, ...] = ()) -> str | None:
    """The first variable whose value would have changed the server's imports, or None.
    ``ignore_paths``: PYTHONPATH entries the server can import from anyway (the judge's own)."""
    ignore = tuple(os.path.normpath(p) for p in ignore_paths)
    entries = _path_entries(env, ignore)
    if _path_entries(server_env, ignore) != entries or not all(os.path.isabs(p) for p in entries):
        return "PYTHONPATH"  # a relative entry would resolve against another folder in the server
    ours, theirs = import_environment(server_env), import_environment(env)
    for key in sorted(set(ours) | set(theirs)):
        if ours.get(key) != theirs.get(key):
            return key
    return None


def worker_mismatch(server_env: dict, env: dict, ignore_paths: tuple[str, ...] = ()) -> str | None:
    """``environment_mismatch`` for a worker's environment, which is allow-listed and sets thread pools to
    one thread (judge/defence/sandbox.py): what it leaves out or sets for that reason is no mismatch (a
    forked worker starts with one thread whatever the server's settings)."""
    from judge.defence.sandbox import ONE_THREAD, allowed_environment

    server = {k: v for k, v in allowed_environment(server_env).items() if k not in ONE_THREAD}
    worker = {k: v for k, v in env.items() if k not in ONE_THREAD}
    return environment_mismatch(server, worker, ignore_paths)


def machine_interprets() -> bool:
    """Whether ``judge run`` here judges in CPU mode unless told otherwise (no CUDA device torch can use):
    the Triton mode a server of this machine imports for.  Asked in the process that starts the server,
    never in the server (a CUDA driver initialised there would not survive its forks)."""
    import torch

    return not torch.cuda.is_available()


def triton_mode_mismatch(server_interprets: bool, env: dict) -> str | None:
    """Why a server that imported Triton in one mode cannot fork a worker whose environment asks for
    the other, or None.  ``triton.jit`` decides at decoration whether a function is interpreted, and
    triton.language's own helpers (``tl.sum``, ``tl.dot``, ``tl.cdiv``...) were decorated when the
    server imported it: an interpreted kernel calling a compiled-mode helper fails ("Cannot call
    @triton.jit'd outside of the scope of a kernel"), so such a worker is spawned instead."""
    wants = env.get("TRITON_INTERPRET", "").strip().lower() in ("1", "true", "on", "yes")
    if wants == server_interprets:
        return None
    mode = {True: "Triton's interpreter", False: "compiled Triton"}
    return f"the worker runs {mode[wants]}; this server imported {mode[server_interprets]}"


def interpreter_identity() -> str:
    """This Python, whatever name started it: ``judge`` (its script's ``#!.../python3``) and
    ``python -m judge`` (``.../python``) of one environment are one interpreter, and so one server."""
    return f"{os.path.realpath(sys.executable)}|{sys.prefix}"


def fingerprint() -> str:
    """The judge's code, Python and the installed torch and triton, as a short hash of
    paths, sizes and modification times (stat only: a few milliseconds)."""
    parts = [interpreter_identity(), sys.version, PACKAGE_ROOT]
    for path in sorted(Path(PACKAGE_ROOT, "judge").rglob("*.py")):
        parts.append(_stamp(path))
    for name in ("torch", "triton"):
        parts.append(_stamp(_origin(name)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def _origin(name: str) -> Path | None:
    from importlib.util import find_spec

    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


def _stamp(path: Path | None) -> str:
    try:
        st = path.stat()
        return f"{path}:{st.st_size}:{st.st_mtime_ns}"
    except (OSError, AttributeError):
        return f"{path}:missing"


def log_path() -> Path:
    """The server's log, ``<cache dir>/server/<hash>.log``: one per user, Python, judge checkout, cache dir
    and control group.  A server serves only clients of its own control group (a Slurm job's or a
    container's limits must hold for the commands it forks), so a terminal in another one (another
    ssh login, a desktop's terminal tab) has a server of its own instead of being refused by this one."""
    key = f"{os.getuid()}|{interpreter_identity()}|{PACKAGE_ROOT}|{cache_dir()}|{cgroup()}"
    tag = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir() / "server" / f"{tag}.log"


def socket_path() -> Path:
    """Beside the log, ``<cache dir>/server/<hash>.sock``, or under the temporary folder when
    that path is too long for a Unix socket."""
    path = log_path().with_suffix(".sock")
    if len(str(path)) < 100:
        return path
    tag = path.stem
    import tempfile

    return Path(tempfile.gettempdir()) / f"judge-{os.getuid()}" / f"{tag}.sock"


