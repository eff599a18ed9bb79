"""A CUDA C++ solution in the worker: build it (judge/worker/cuda_build.py), load
the library and wrap its ``extern "C" solve`` as the Python ``solve(*args)``
every other part of the worker calls.

The wrapper passes each tensor's device pointer and each scalar as the C type
the signature gives (judge/challenge/c_signature.py), and after ``solve``
returns asks the CUDA runtime for a launch error (a bad configuration, too
much shared memory): a kernel that never ran is a runtime error with CUDA's
message, not a wrong answer.  Faults inside a kernel surface at the timer's
device-wide synchronize, as for any other solution.
"""

from __future__ import annotations

import ctypes

import torch

from judge.challenge.c_signature import POINTER, fits
from judge.worker import cuda_build
from judge.worker.loader import SubmissionError

__all__ = ["CudaSolve", "load", "CudaLaunchError"]

_SCALARS = {name: getattr(ctypes, name) for name in (
    "c_int", "c_int32", "c_uint", "c_uint32", "c_int64", "c_long", "c_longlong", "c_uint64", "c_ulong",
    "c_ulonglong", "c_size_t", "c_int16", "c_short", "c_int8", "c_uint8", "c_bool", "c_float", "c_double")}


class CudaLaunchError(RuntimeError):
    """The CUDA runtime reported an error after solve() returned."""


class CudaSolve:
    """``solve(*args)`` over the library's C function."""

    def __init__(self, library_path: str, argtypes: list[str], prototype: str, shown: str):
        try:
            self.library = ctypes.CDLL(library_path)
        except OSError as exc:
            raise SubmissionError(f"the library built from {shown} cannot be loaded: {exc}") from None
        try:
            function = self.library.solve
        except AttributeError:
            raise SubmissionError(f"{shown} defines no function named 'solve' with C linkage; expected\n"
                                  f"  {prototype}\n(a C++ function without extern \"C\" has a mangled name)") from None
        function.argtypes = [ctypes.c_void_p if kind == POINTER else _SCALARS[kind] for kind in argtypes]
        function.restype = None
        self.function, self.kinds = function, argtypes
        # The runtime the library was linked against (torch's, already loaded): its error state is the solution's.
        self.last_error = self.library.cudaGetLastError
        self.last_error.restype, self.last_error.argtypes = ctypes.c_int, []
        self.error_name = self.library.cudaGetErrorName
        self.error_string = self.library.cudaGetErrorString
        for query in (self.error_name, self.error_string):
            query.restype, query.argtypes = ctypes.c_char_p, [ctypes.c_int]

    def __call__(self, *args):
        values = [arg.data_ptr() if isinstance(arg, torch.Tensor) else arg for arg in args]
        for kind, value in zip(self.kinds, values):
            if kind != POINTER and isinstance(value, int) and not fits(kind, value):
                raise OverflowError(f"the scalar {value} does not fit the C type of its parameter ({kind})")
        self.function(*values)
        code = self.last_error()
        if code:
            name = (self.error_name(code) or b"?").decode(errors="replace")
            text = (self.error_string(code) or b"").decode(errors="replace")
            raise CudaLaunchError(f"CUDA error {code} ({name}) after solve() returned: {text} (a kernel launch "
                                  "failed, or a CUDA call in solve(): check the grid and block sizes, at most 1024 "
                                  "threads a block, and the shared memory asked for)")


def load(solution: str, settings: dict, device: str) -> tuple[CudaSolve, dict]:
    """Build (or find in the cache) and load the solution; returns the wrapper and what the build did.
    Raises cuda_build.CompileFailed (the verdict compile_error) or SubmissionError."""
    if not device.startswith("cuda"):
        raise SubmissionError("CUDA C++ solutions run on an NVIDIA GPU; this run is in CPU mode")
    capability = torch.cuda.get_device_capability(torch.device(device))
    build = cuda_build.build(solution, settings["nvcc"], capability, settings["cache"],
                             list(settings.get("flags", [])), float(settings.get("timeout", 120.0)))
    shown = solution.rsplit("/", 1)[-1]
    solve = CudaSolve(build.library, list(settings["argtypes"]), settings["prototype"], shown)
    return solve, {"cached": build.cached, "seconds": round(build.seconds, 3), "arch": build.arch}
