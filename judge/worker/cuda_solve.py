"""A CUDA C++ solution in the worker: load the library the judge built
(judge/worker/cuda_build.py) and wrap its ``extern "C" solve`` as the Python
``solve(*args)`` every other part of the worker calls.

The wrapper passes each tensor's device pointer and each scalar as the C type
the signature gives (judge/challenge/c_signature.py).  After ``solve`` returns
it asks the CUDA runtime itself (not a ``cudaGetLastError`` the solution may
export: the red team's library answered 0 for its own failed launch) for a
launch error: a kernel that never ran is a runtime error with CUDA's message,
not a wrong answer.  Faults inside a kernel surface at the timer's
device-wide synchronize, as for any other solution.

Native threads: a thread of the library's that outlives ``solve()`` is frozen with this process as soon as
its reply arrives, before the judge reads the outputs (judge/worker/client.py); work it does between the return
and the reply is inside the judge's own clock (docs/security.md).
"""

from __future__ import annotations

import ctypes
from struct import error as struct_error

import torch

from judge.challenge.c_signature import POINTER, fits
from judge.worker import launches
from judge.worker.loader import SubmissionError

__all__ = ["CudaSolve", "load", "CudaLaunchError"]

_SCALARS = {name: getattr(ctypes, name) for name in (
    "c_int", "c_int32", "c_uint", "c_uint32", "c_int64", "c_long", "c_longlong", "c_uint64", "c_ulong",
    "c_ulonglong", "c_size_t", "c_int16", "c_short", "c_int8", "c_uint8", "c_bool", "c_float", "c_double")}


class CudaLaunchError(RuntimeError):
    """The CUDA runtime reported an error after solve() returned."""


def _runtime_library() -> str | None:
    """The CUDA runtime this process has loaded (torch's, which the solution's library was linked to by
    its soname), from /proc/self/maps."""
    try:
        with open("/proc/self/maps") as maps:
            paths = [line.split(None, 5)[-1].strip() for line in maps if "libcudart.so" in line]
    except OSError:
        return None
    return paths[0] if paths else None


class CudaSolve:
    """``solve(*args)`` over the library's C function."""

    def __init__(self, library_path: str, argtypes: list[str], prototype: str, shown: str):
        self.linkage = "C"
        try:
            self.library = ctypes.CDLL(library_path)
        except OSError as exc:
            raise SubmissionError(f"the library built from {shown} cannot be loaded: {exc}") from None
        function = self._solve_function(library_path, prototype, shown)
        function.argtypes = [ctypes.c_void_p if kind == POINTER else _SCALARS[kind] for kind in argtypes]
        function.restype = None
        self.function, self.kinds = function, argtypes
        self._bind_runtime(_runtime_library())

    def _solve_function(self, library_path: str, prototype: str, shown: str):
        """``solve`` with C linkage; else the one global ``solve`` with C++ linkage (LeetGPU's older starters
        had no ``extern "C"``), called through its mangled name."""
        try:
            return self.library.solve
        except AttributeError:
            pass
        from judge.worker.elf_symbols import mangled_solves

        try:
            found = mangled_solves(library_path)
        except (OSError, ValueError, IndexError, struct_error):
            found = []
        if len(found) == 1:
            self.linkage = "C++"
            return getattr(self.library, found[0])
        several = f" ({len(found)} overloads of solve: which one is meant?)" if found else ""
        raise SubmissionError(f"{shown} defines no function named 'solve' with C linkage{several}; expected\n"
                              f"  {prototype}")

    def _bind_runtime(self, path: str | None) -> None:
        """cudaGetLastError and its names from the runtime's own library, never through the solution's."""
        if path is None:
            raise SubmissionError("the CUDA runtime (libcudart) is not loaded in the solution's process; the "
                                  "library cannot be checked for launch errors")
        runtime = ctypes.CDLL(path)
        self.last_error = runtime.cudaGetLastError
        self.last_error.restype, self.last_error.argtypes = ctypes.c_int, []
        self.error_name, self.error_string = runtime.cudaGetErrorName, runtime.cudaGetErrorString
        for query in (self.error_name, self.error_string):
            query.restype, query.argtypes = ctypes.c_char_p, [ctypes.c_int]

    def __call__(self, *args):
        values = [arg.data_ptr() if isinstance(arg, torch.Tensor) else arg for arg in args]
        for kind, value in zip(self.kinds, values):
            if kind != POINTER and isinstance(value, int) and not fits(kind, value):
                raise OverflowError(f"the scalar {value} does not fit the C type of its parameter ({kind})")
        self.function(*values)
        launches.LAUNCHES.note()  # a CUDA C++ solution's kernels are its own (--require-kernel)
        code = self.last_error()
        if code:
            name = (self.error_name(code) or b"?").decode(errors="replace")
            text = (self.error_string(code) or b"").decode(errors="replace")
            raise CudaLaunchError(f"CUDA error {code} ({name}) after solve() returned: {text} (a kernel launch "
                                  "failed, or a CUDA call in solve(): check the grid and block sizes, at most 1024 "
                                  "threads a block, and the shared memory asked for)")


def load(solution: str, settings: dict, device: str) -> CudaSolve:
    """Load the library the judge built (``settings["library"]``).  Raises SubmissionError."""
    if not device.startswith("cuda"):
        raise SubmissionError("CUDA C++ solutions run on an NVIDIA GPU; this run is in CPU mode")
    shown = solution.rsplit("/", 1)[-1]
    return CudaSolve(settings["library"], list(settings["argtypes"]), settings["prototype"], shown)
