"""Rates, % of peak, the copy bound and speedups: pure arithmetic on medians.

``bytes`` and ``flops`` come from the spec's cost formulas, peaks from
peaks.py.  Memory-bound challenges are compared with the copy bandwidth,
compute-bound ones with the measured fp32 matmul rate (cuBLAS, TF32 off).
"""

from __future__ import annotations

__all__ = ["speed_of_light", "speedup_text", "physical_floor_ms", "below_floor", "FLOOR_MARGIN"]

# A measured median may be this much faster than the floor before it is refused: the copy peak is
# a torch copy's (a tuned kernel reaches a few % more) and the fastest dense peak cuBLAS's.
FLOOR_MARGIN = 0.8


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


def physical_floor_ms(nbytes: float, flops: float, peaks: dict | None, l2_bytes: int = 0) -> tuple[float, str]:
    """The least time the hardware allows for moving ``nbytes`` and doing ``flops`` (ms), and why.

    Bytes at the measured copy peak, less the L2 cache's size (the L2 is flushed before every
    timed call, so inputs come from memory, but up to its size of outputs may still sit in it
    when the end event fires); flops at the fastest dense matmul rate measured on the device
    (bf16 tensor cores, else TF32, else fp32).  Either alone is a floor; the larger is returned.
    """
    if not peaks:
        return 0.0, ""
    floors = []
    copy_gbps = peaks.get("copy_gbps")
    if nbytes and copy_gbps:
        moved = max(0.0, nbytes - l2_bytes)
        floors.append((moved / (copy_gbps * 1e9) * 1e3,
                       f"moving its {moved / 1024**2:.1f} MiB at the measured {copy_gbps:.0f} GB/s copy peak"))
    fastest = max((peaks.get(k) or 0.0) for k in ("bf16_tflops", "tf32_tflops", "fp32_tflops"))
    if flops and fastest:
        floors.append((flops / (fastest * 1e12) * 1e3,
                       f"its {flops / 1e9:.1f} GFLOP at the fastest dense rate measured here, {fastest:.0f} TFLOP/s"))
    return max(floors, default=(0.0, ""))


def below_floor(median_ms: float, nbytes: float, flops: float, peaks: dict | None, l2_bytes: int = 0) -> str:
    """Why ``median_ms`` is physically impossible ("" when it is not): under FLOOR_MARGIN of the floor."""
    floor_ms, why = physical_floor_ms(nbytes, flops, peaks, l2_bytes)
    if floor_ms <= 0 or median_ms >= FLOOR_MARGIN * floor_ms:
        return ""
    return (f"its median, {median_ms:.4f} ms, is faster than this GPU can go: {why} takes at least "
            f"{floor_ms:.4f} ms.  The timer did not see the work (a stream of its own, a thread, work "
            "done outside solve(), or a tampered timer)")
