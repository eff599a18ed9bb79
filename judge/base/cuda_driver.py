"""How many CUDA devices this process sees, asked of the CUDA driver itself (``libcuda``),
without importing torch (1.5–2 s on the GPU machines we measure on).

``judge grade --cluster local`` needs only that number in the grading process: the
submissions are judged, and torch imported, in the cluster's workers, which start once the
number is known; importing torch first delayed every worker's start by that long.
``cuDeviceGetCount`` honours ``CUDA_VISIBLE_DEVICES`` as torch does.  ``cuInit`` makes no
context; the workers are new programs (spawned), not forks of this process.

The driver's count is torch's only where torch was built with CUDA: a CPU build of torch
(pip's ``+cpu`` wheels) beside the NVIDIA driver sees no GPU, and ``judge grade`` grades in
CPU mode there.  ``torch_has_cuda`` tells that from torch's ``version.py``, without importing it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import re
from pathlib import Path

__all__ = ["visible_device_count", "torch_has_cuda"]

_CUDA_SUCCESS = 0
_CUDA_ERROR_NO_DEVICE = 100


def visible_device_count() -> int | None:
    """The CUDA devices visible here (0 when the driver has none), or None when there is no
    usable CUDA driver (no libcuda, or it fails to start): then the caller asks torch."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    status = driver.cuInit(0)
    if status == _CUDA_ERROR_NO_DEVICE:
        return 0
    if status != _CUDA_SUCCESS:
        return None
    count = ctypes.c_int(0)
    if driver.cuDeviceGetCount(ctypes.byref(count)) != _CUDA_SUCCESS:
        return None
    return count.value


def torch_has_cuda() -> bool | None:
    """Whether the torch installed here was built with CUDA (or ROCm), read from its ``version.py``
    without importing torch; None when that cannot be told (no torch, an unreadable file)."""
    path = _torch_version_file()
    try:
        text = path.read_text() if path is not None else None
    except OSError:
        return None
    if text is None:
        return None
    built = [m.group(1).strip() for m in re.finditer(r"^(?:cuda|hip)\s*(?::[^=\n]*)?=\s*(.+?)\s*$", text, re.M)]
    if not built:
        return None
    return any(value != "None" for value in built)


def _torch_version_file() -> Path | None:
    try:
        spec = importlib.util.find_spec("torch")  # finds the package, runs none of it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "version.py"
