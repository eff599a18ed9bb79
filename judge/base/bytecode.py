"""Where Python keeps the bytecode of the judge's processes.

Importing torch compiles about a thousand modules.  Python caches their bytecode
in ``__pycache__`` beside the sources, unless it may not write there
(``PYTHONDONTWRITEBYTECODE=1``, ``python -B``, common in container images) and
the installer wrote none (``uv pip install`` and ``pip --no-compile`` write
none): then every process compiles them all again.  On the H100 machine we test
on, that was 2.2–2.9 s of each judge process and each worker (docs/benchmarks.md).

In that case the judge keeps the bytecode under ``<cache dir>/pycache``
(``sys.pycache_prefix``), outside the source tree, and its workers do the same;
only if that folder is the user's own and no one else may write in it (Python
trusts a ``.pyc`` there on the source's size and time stamp alone).
``JUDGE_BYTECODE_CACHE=0`` leaves Python's setting alone.  The solution file
itself is never read from bytecode (judge/worker/loader.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["keep_bytecode", "worker_bytecode_env", "OPT_OUT_ENV"]

OPT_OUT_ENV = "JUDGE_BYTECODE_CACHE"


def keep_bytecode(cache: Path | None = None) -> bool:
    """If this process may not write bytecode and has no prefix for it, keep it under
    ``cache`` (the judge's cache dir) from now on; whether it did."""
    if not sys.dont_write_bytecode or sys.pycache_prefix or os.environ.get(OPT_OUT_ENV, "1") == "0":
        return False
    if cache is None:
        from judge.base.paths import cache_dir

        cache = cache_dir()
    from judge.base.paths import private_folder

    folder = Path(cache) / "pycache"
    if not private_folder(folder):  # bytecode there is trusted: no one else may be able to plant it
        return False
    sys.pycache_prefix = str(folder)
    sys.dont_write_bytecode = False
    return True


def worker_bytecode_env(env: dict) -> dict:
    """A worker's environment with the judge's bytecode policy: a prefix if the judge
    has one, and writing allowed (the worker stops writing before the solution loads,
    so nothing lands beside the user's files)."""
    env = dict(env)
    if sys.dont_write_bytecode:  # JUDGE_BYTECODE_CACHE=0 kept Python's setting: so does the worker
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    if sys.pycache_prefix:
        env["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
    return env
