"""Rates, % of peak, the copy bound and speedups: pure arithmetic on medians.

``bytes`` and ``flops`` come from the spec's cost formulas, peaks from
peaks.py.  Memory-bound challenges are compared with the copy bandwidth,
compute-bound ones with the measured fp32 matmul rate (cuBLAS, TF32 off).
"""

from __future__ import annotations

__all__ = ["speed_of_light", "speedup_text"]


def speed_of_light(median_ms: float, nbytes: float, flops: float, bound: str, peaks: dict | None) -> dict:
    """GB/s, TFLOP/s, % of the relevant peak and (memory-bound) the copy-bound time."""
    seconds = median_ms * 1e-3
    out = {
        "gbps": nbytes / seconds / 1e9 if nbytes and seconds > 0 else None,
        "tflops": flops / seconds / 1e12 if flops and seconds > 0 else None,
        "peak_kind": None, "pct_of_peak": None, "copy_bound_ms": None,
    }
    if not peaks:
        return out
    if bound == "memory" and out["gbps"] is not None and peaks.get("copy_gbps"):
        out["peak_kind"] = "copy bandwidth"
        out["pct_of_peak"] = 100.0 * out["gbps"] / peaks["copy_gbps"]
        out["copy_bound_ms"] = nbytes / (peaks["copy_gbps"] * 1e9) * 1e3
    elif bound == "compute" and out["tflops"] is not None and peaks.get("fp32_tflops"):
        out["peak_kind"] = "fp32 matmul (cuBLAS)"
        out["pct_of_peak"] = 100.0 * out["tflops"] / peaks["fp32_tflops"]
    return out


def speedup_text(solution_ms: float | None, torch_ms: float | None) -> str:
    """``3.50× torch`` (faster than torch when above 1)."""
    if not solution_ms or not torch_ms:
        return "-"
    return f"{torch_ms / solution_ms:.2f}× torch"
