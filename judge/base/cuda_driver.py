"""How many CUDA devices this process sees, asked of the CUDA driver itself (``libcuda``),
without importing torch (1.5–2 s on the GPU machines we measure on).

``judge grade --cluster local`` needs only that number in the grading process: the
submissions are judged, and torch imported, in the cluster's workers, which start once the
number is known; importing torch first delayed every worker's start by that long.
``cuDeviceGetCount`` honours ``CUDA_VISIBLE_DEVICES`` as torch does.  ``cuInit`` makes no
context; the workers are new programs (spawned), not forks of this process.
"""

from __future__ import annotations

import ctypes

__all__ = ["visible_device_count"]

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
