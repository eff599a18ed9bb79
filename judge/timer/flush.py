"""The L2 flush buffer shared by the timed loop (timed_loop.py) and the timer-floor
measurement (peaks.py), so both time a call after exactly the same flush."""

from __future__ import annotations

import torch

__all__ = ["FLUSH_MIN_BYTES", "flush_buffer"]

FLUSH_MIN_BYTES = 256 * 1024**2  # triton.testing.do_bench flushes 256 MB too


def flush_buffer(device) -> torch.Tensor:
    """A buffer at least twice the device's L2 cache (and at least 256 MiB)."""
    props = torch.cuda.get_device_properties(torch.device(device))
    l2 = int(getattr(props, "L2_cache_size", 0) or 0)
    size = max(2 * l2, FLUSH_MIN_BYTES)
    return torch.empty(size // 4, dtype=torch.int32, device=device)
