"""The benchmark table: my time, torch's time, the physical limit."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from judge.report.console import table_box

__all__ = ["render_benchmarks", "format_time", "format_interval"]


def format_time(ms: float | None) -> str:
    if ms is None:
        return "-"
    if ms < 0.1:
        return f"{ms * 1e3:.2f} µs"
    return f"{ms:.4f} ms" if ms < 10 else f"{ms:.2f} ms"


def format_interval(median: float, low: float, high: float) -> str:
    """``0.1402 ± 0.0007 ms``: the larger half-width of the median's 95 % CI."""
    half = max(median - low, high - median)
    if median < 0.1:
        return f"{median * 1e3:.2f} ± {half * 1e3:.2f} µs"
    return f"{median:.4f} ± {half:.4f} ms"


def _num(value, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def render_benchmarks(console, result) -> None:
    table = Table(box=table_box(console), title="benchmarks (GPU, L2 flushed, CUDA events)",
                  show_edge=not console.no_color)
    for header in ("case", "sizes", "time (median ± 95% CI)", "range (min … max)", "calls",
                   "GB/s", "TFLOP/s", "% of peak", "torch", "vs torch", "copy bound"):
        table.add_column(header, no_wrap=True)
    for b in result.benchmarks:
        sizes = ", ".join(f"{k}={v}" for k, v in b["params"].items())
        if b.get("verdict", "accepted") != "accepted":
            table.add_row(escape(b["name"]), sizes, f"[red]{b['verdict']}[/]", "", "", "", "", "", "", "", "")
            continue
        table.add_row(
            escape(b["name"]), sizes, format_interval(b["median_ms"], b["ci_low_ms"], b["ci_high_ms"]),
            f"{format_time(b['min_ms'])} … {format_time(b['max_ms'])}", str(b["calls"]),
            _num(b.get("gbps"), ".0f"), _num(b.get("tflops"), ".1f"),
            "-" if b.get("pct_of_peak") is None else f"{b['pct_of_peak']:.1f}% {_peak_short(b)}",
            format_time(b.get("torch_median_ms")), b.get("vs_torch", "-"), format_time(b.get("copy_bound_ms")))
    console.print(table)
    for b in result.benchmarks:
        for note in b.get("notes", []):
            console.print(f"[yellow]{escape(b['name'])}: {escape(note)}[/]")
    peaks = result.environment.get("peaks")
    if peaks:
        origin = "cached" if peaks.get("cached") else "measured now"
        console.print(f"[dim]peaks ({origin}; --remeasure-peaks to redo): copy {peaks['copy_gbps']:.0f} GB/s, "
                      f"fp32 matmul {peaks['fp32_tflops']:.1f} TFLOP/s, tf32 {peaks['tf32_tflops']:.1f} TFLOP/s[/]")


def _peak_short(entry: dict) -> str:
    return {"copy bandwidth": "copy", "fp32 matmul (cuBLAS)": "fp32"}.get(entry.get("peak_kind"), "")
