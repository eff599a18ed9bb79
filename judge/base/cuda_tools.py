"""Where the judge finds NVIDIA's programs (nvcc, compute-sanitizer, ncu): one search order for all.

``find_cuda_tool(name)`` returns the first of these that is an executable file:

1. ``$CUDA_HOME/bin/NAME``, then ``$CUDA_PATH/bin/NAME``: the toolkit the user named wins;
2. ``NAME`` on ``$PATH``;
3. the caller's ``beside`` candidates, in its order (compute-sanitizer: beside the nvcc this same order
   found, where a toolkit on PATH keeps it);
4. ``/usr/local/cuda/bin/NAME``: the toolkit's default install (``DEFAULT_TOOLKIT``);
5. the caller's ``after`` candidates (ncu: Nsight Compute's own install folders, newest first).

``environ`` (default ``os.environ``) gives CUDA_HOME, CUDA_PATH and PATH.  The path is returned as found,
made absolute but with its links kept: ncu's injection folders are read from the link in a toolkit's bin/
(tool_wrap.tool_folders), while nvcc's and compute-sanitizer's callers resolve it to the real program.
"""

from __future__ import annotations

import os
import shutil

__all__ = ["find_cuda_tool", "DEFAULT_TOOLKIT", "TOOLKIT_VARIABLES"]

DEFAULT_TOOLKIT = "/usr/local/cuda"  # where NVIDIA's installers put the toolkit (a link to cuda-<version>)
TOOLKIT_VARIABLES = ("CUDA_HOME", "CUDA_PATH")  # the toolkit's folder, as torch's cpp_extension reads them


def find_cuda_tool(name: str, environ=None, beside=(), after=()) -> str | None:
    """The absolute path of the executable ``name`` by the module's search order; None when none is one."""
    environ = os.environ if environ is None else environ
    candidates = [os.path.join(environ[v], "bin", name) for v in TOOLKIT_VARIABLES if environ.get(v)]
    on_path = shutil.which(name, path=environ.get("PATH"))
    candidates += [on_path] if on_path else []
    candidates += [*beside, os.path.join(DEFAULT_TOOLKIT, "bin", name), *after]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None
