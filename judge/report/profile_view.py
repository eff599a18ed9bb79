"""``judge profile``'s report on a console: the call, its kernels (CUPTI), then Nsight Compute's metrics."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from judge.report.console import table_box

__all__ = ["render_profile", "format_us"]


def format_us(us: float | None) -> str:
    if us is None:
        return "-"
    if us >= 1000:
        return f"{us / 1e3:.3f} ms"
    return f"{us:.1f} µs" if us >= 10 else f"{us:.2f} µs"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def _dims(value) -> str:
    return "-" if not value else "×".join(str(v) for v in value)


def _bytes(value) -> str:
    if value is None:
        return "-"
    return f"{value / 1024:.1f} KiB" if value >= 1024 else f"{int(value)} B"


def _rate(gbps: float | None, tflops: float | None) -> str:
    parts = [f"{gbps:.0f} GB/s" if gbps is not None else "", f"{tflops:.1f} TFLOP/s" if tflops is not None else ""]
    return ", ".join(p for p in parts if p) or "-"


def render_profile(console, report: dict) -> None:
    """The whole report: heading, the call line, the kernels, the gaps, Nsight Compute, notes."""
    case = report["case"]
    sizes = ", ".join(f"{k}={v}" for k, v in case["params"].items())
    console.print(f"[bold]{escape(report['challenge'])}[/] · {escape(report['solution'])} · case "
                  f"{escape(case['name'])} ({sizes}) · seed {report['seed']} · {escape(str(report.get('device')))}")
    check = report.get("check", "")
    console.print(f"answer of the profiled call: {'[green]correct[/]' if check == 'correct' else '[red]' + escape(check) + '[/]'}")
    cupti = report["cupti"]
    _render_call(console, cupti, report.get("peaks") or {})
    _render_kernels(console, cupti)
    ncu = report.get("ncu") or {}
    if ncu.get("status") == "measured":
        _render_ncu(console, ncu)
    elif ncu.get("problem"):
        console.print(f"[yellow]Nsight Compute: {escape(ncu['problem'])}[/]")
    for note in report.get("notes", []):
        console.print(f"[yellow]note: {escape(note)}[/]")


def _render_call(console, cupti: dict, peaks: dict) -> None:
    call = cupti["call"]
    peak = (f" = {call['pct_of_peak']:.1f}% of the {call['peak_kind']} ({peaks.get('copy_gbps') or 0:.0f} GB/s)"
            if call.get("pct_of_peak") is not None and call.get("peak_kind") == "copy bandwidth" else
            f" = {call['pct_of_peak']:.1f}% of the {call['peak_kind']}" if call.get("pct_of_peak") is not None else "")
    console.print(f"one call (median of {cupti['calls']} recorded by CUPTI, L2 flushed before each): GPU "
                  f"{format_us(call['span_us'])} from its first kernel's start to its last one's end, busy "
                  f"{format_us(call['busy_us'])}, host {format_us(call.get('host_us'))} in solve(); "
                  f"{_rate(call.get('gbps'), call.get('tflops'))}{peak}")
    gaps = cupti["gaps"]
    if gaps.get("per_call"):
        largest = ", ".join(format_us(g) for g in gaps["largest_us"])
        console.print(f"launch gaps: {gaps['per_call']:g} a call, {format_us(gaps['idle_us'])} idle in all "
                      f"(largest {largest})")
    if gaps.get("first_launch_us") is not None:
        console.print(f"first launch to first kernel: {format_us(gaps['first_launch_us'])}")


def _render_kernels(console, cupti: dict) -> None:
    table = Table(box=table_box(console), title="kernels (CUPTI)", show_edge=not console.no_color)
    for header in ("kernel", "launches", "grid", "block", "regs", "smem", "time / call", "mean", "share",
                   "achieved"):
        table.add_column(header, no_wrap=header != "kernel", overflow="fold")
    for kernel in cupti["kernels"]:
        table.add_row(escape(kernel["short_name"]), f"{kernel['launches']:g}", _dims(kernel.get("grid")),
                      _dims(kernel.get("block")), "-" if kernel.get("registers") is None else str(kernel["registers"]),
                      _bytes(kernel.get("shared_memory")), format_us(kernel["time_us"]), format_us(kernel["mean_us"]),
                      _pct(None if kernel.get("share") is None else 100 * kernel["share"]),
                      _rate(kernel.get("gbps"), kernel.get("tflops")) + (
                          f" ({kernel['pct_of_peak']:.1f}%)" if kernel.get("pct_of_peak") is not None else ""))
    console.print(table)
    if not cupti["kernels"]:
        console.print("[yellow]CUPTI recorded no kernel, copy or fill in the profiled calls[/]")
    if cupti.get("records_cut"):
        console.print(f"[yellow]{cupti['records_cut']} records past the first {4096} of a call were left out[/]")


def _render_ncu(console, ncu: dict) -> None:
    table = Table(box=table_box(console), title="Nsight Compute (one call; clocks as they are, caches flushed)",
                  show_edge=not console.no_color)
    for header in ("kernel", "time", "DRAM", "DRAM GB/s", "SM", "occupancy", "L1 hit", "L2 hit", "regs",
                   "smem/block", "top stalls"):
        table.add_column(header, no_wrap=header not in ("kernel", "top stalls"), overflow="fold")
    for kernel in ncu["kernels"]:
        stalls = ", ".join(f"{s['reason']}" + (f" {100 * s['share']:.0f}%" if s.get("share") is not None else "")
                           for s in kernel.get("top_stalls", []))
        table.add_row(escape(kernel["short_name"]) + (f" ×{kernel['launches']}" if kernel["launches"] > 1 else ""),
                      format_us(kernel.get("duration_us")), _pct(kernel.get("dram_pct")),
                      "-" if kernel.get("dram_bytes_per_s") is None else f"{kernel['dram_bytes_per_s'] / 1e9:.0f}",
                      _pct(kernel.get("sm_pct")), _pct(kernel.get("occupancy_pct")), _pct(kernel.get("l1_hit_pct")),
                      _pct(kernel.get("l2_hit_pct")),
                      "-" if kernel.get("registers") is None else f"{kernel['registers']:.0f}",
                      _bytes(kernel.get("shared_memory_per_block")), escape(stalls) or "-")
    console.print(table)
    console.print(f"full report for the Nsight Compute GUI (ncu-ui): {escape(ncu['report'])}")
