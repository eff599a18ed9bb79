"""Every reference runs in exact float32 arithmetic: no TF32, no reduced-precision reductions.

torch's defaults let cuDNN compute float32 convolutions in TF32 (``torch.backends.cudnn.allow_tf32``
is True) on Ampere and later GPUs: a 10-bit mantissa.  An H200 judging LeetGPU's
``medium/10_2d_convolution`` (``F.conv2d``, atol = rtol = 1e-5) rejected a plain fp32 CUDA
convolution with "max abs err 0.00726": the reference was the inexact one (issue 39).  So
``exact_math()`` holds, while a reference runs in the judge's process:

- ``torch.backends.cuda.matmul.allow_tf32 = False`` and ``torch.set_float32_matmul_precision("highest")``
  (cuBLAS in IEEE fp32), ``torch.backends.cudnn.allow_tf32 = False`` (cuDNN convolutions and RNNs);
  and, where this torch has them (2.9 and later), the same through the newer ``fp32_precision``
  switches, set to ``"ieee"``, so that neither API reads the other as a mix;
- ``allow_fp16_reduced_precision_reduction`` and ``allow_bf16_reduced_precision_reduction`` False and
  ``allow_fp16_accumulation`` False: a half-precision GEMM's reference accumulates in fp32 throughout.

Everything is put back as it was when the last holder leaves (a count under a lock: the switches
are the process's, and ``judge grade`` and ``judge ui`` judge in several threads at once, every one
of which wants them exact while its references run).  The solution never runs under this: it runs in
its own worker process, under torch's defaults and whatever it sets itself.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import torch

__all__ = ["exact_math", "precision_flags", "EXACT_FLAGS", "exact_statements"]

# The switch's name as docs and tests name it -> the value it holds while a reference runs.
EXACT_FLAGS = {
    "cuda.matmul.allow_tf32": False,
    "cudnn.allow_tf32": False,
    "float32_matmul_precision": "highest",
    "cuda.matmul.allow_fp16_reduced_precision_reduction": False,
    "cuda.matmul.allow_bf16_reduced_precision_reduction": False,
    "cuda.matmul.allow_fp16_accumulation": False,
    "cuda.matmul.fp32_precision": "ieee",
    "cudnn.conv.fp32_precision": "ieee",
    "cudnn.rnn.fp32_precision": "ieee",
}
# The older switches first: setting one of them also sets the newer one it stands for, never the reverse.
_LEGACY = ("cuda.matmul.allow_tf32", "float32_matmul_precision", "cudnn.allow_tf32")

_lock = threading.Lock()
_holders = 0
_saved: dict = {}


def _owner(name: str):
    """(object, attribute) of a switch; None where this torch has no such switch."""
    if name == "float32_matmul_precision":
        return None
    node = torch.backends
    *path, attr = name.split(".")
    for part in path:
        node = getattr(node, part, None)
        if node is None:
            return None
    return (node, attr) if hasattr(node, attr) else None


def _read(name: str):
    """A switch's value; None where this torch has none, or where reading it raises (torch 2.9+ refuses to
    read an older switch after the newer one was set to what the older cannot say)."""
    try:
        if name == "float32_matmul_precision":
            return torch.get_float32_matmul_precision()
        owner = _owner(name)
        return getattr(*owner) if owner is not None else None
    except (RuntimeError, AttributeError):
        return None


def _write(name: str, value) -> None:
    try:
        if name == "float32_matmul_precision":
            torch.set_float32_matmul_precision(value)
            return
        owner = _owner(name)
        if owner is not None:
            setattr(*owner, value)
    except (RuntimeError, AttributeError, TypeError, ValueError):
        pass  # a switch this build refuses (a CPU-only torch has them all; a ROCm build may not)


def precision_flags() -> dict:
    """Every switch ``exact_math`` sets, as it reads now (None: not in this torch, or not readable)."""
    return {name: _read(name) for name in EXACT_FLAGS}


def _apply(values: dict) -> None:
    for name in _LEGACY:
        if values.get(name) is not None:
            _write(name, values[name])
    for name, value in values.items():
        if name not in _LEGACY and value is not None:
            _write(name, value)


@contextmanager
def exact_math():
    """The block runs with every precision switch exact (EXACT_FLAGS); they are put back afterwards."""
    global _holders, _saved
    with _lock:
        if _holders == 0:
            _saved = precision_flags()
            _apply(EXACT_FLAGS)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                _apply(_saved)


def exact_statements(indent: str = "    ") -> str:
    """The switches set exact, as the lines of Python the torch baseline runs at the start of every call in
    its worker (benchmark_stage.baseline_file, leetgpu._baseline_code): the baseline is timed computing the
    answer the judge accepts, not cuDNN's TF32 one.  The worker puts torch's switches back after every call
    (worker/process_state.ProcessState), and nothing else runs in the baseline's worker."""
    lines = ["torch.backends.cuda.matmul.allow_tf32 = False", "torch.backends.cudnn.allow_tf32 = False",
             "torch.set_float32_matmul_precision('highest')",
             "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False",
             "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False"]
    return "".join(f"{indent}{line}\n" for line in lines)
