"""``judge profile``'s report from its records (pure): no I/O, no GPU, no clock.

Two sources, both read as data (the first is the solution's process's word, the second NVIDIA's tool's):

- **CUPTI**, through torch's profiler in the worker (judge/worker/kernel_trace.py): for each recorded call,
  the GPU's records (kernels, copies, fills: name, start and duration in microseconds, grid, block,
  registers, static shared memory, stream) and the host's launch calls, matched by correlation id.
  ``cupti_report`` groups them by kernel: launches per call, grid and block, time per call, share of the
  GPU's busy time, and the gaps where the GPU sat idle inside a call; the call's bytes (and flops) from the
  spec's cost formulas over the call's GPU time, against the measured copy peak (fp32 matmul peak for a
  compute-bound challenge), as ``judge run`` rates a median.
- **Nsight Compute** (``ncu --import REPORT --csv --page raw``): ``parse_ncu_csv`` reads its table and
  ``ncu_kernels`` picks the metrics that explain a kernel's speed: DRAM and SM throughput, achieved
  occupancy, L1 and L2 hit rates, the top three warp stall reasons, registers and shared memory per block.

Medians over the recorded calls throughout: one slow call (a clock ramping up) does not move them.
"""

from __future__ import annotations

import csv
import re

from judge.timing.speed import speed_of_light

__all__ = ["cupti_report", "short_kernel_name", "parse_ncu_csv", "ncu_kernels", "ncu_problem", "NCU_PERMISSION",
           "GPU_KINDS"]

GPU_KINDS = ("kernel", "memcpy", "memset")
LARGEST_GAPS = 3


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if value == value and abs(value) != float("inf") else None


def _triple(value) -> list[int] | None:
    """A grid or block as three ints ([x, y, z]); None when the record holds no such thing."""
    if isinstance(value, list) and 1 <= len(value) <= 3 and all(type(v) is int and v >= 0 for v in value):
        return list(value) + [1] * (3 - len(value))
    return None


def short_kernel_name(name: str) -> str:
    """A kernel's name without its template arguments, parameter list and return type:
    ``void transpose<cute::Tensor<...>>(cute::Tensor<...>)`` -> ``transpose``."""
    out, depth = [], 0
    for char in name:
        if char in "<(":
            depth += 1
        elif char in ">)" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    text = " ".join("".join(out).split())
    for prefix in ("void ", "static ", "__global__ "):
        while text.startswith(prefix):
            text = text[len(prefix):]
    return text.strip() or name[:80]


def _clean_call(call) -> tuple[list[dict], list[dict], float | None, int]:
    """(GPU records, launch records, host ms, records cut) of one recorded call; malformed entries dropped."""
    if not isinstance(call, dict):
        return [], [], None, 0
    gpu, launches = [], []
    for record in call.get("records") if isinstance(call.get("records"), list) else []:
        if not isinstance(record, dict):
            continue
        ts, dur = _number(record.get("ts")), _number(record.get("dur"))
        if ts is None or dur is None or dur < 0:
            continue
        entry = dict(record, ts=ts, dur=dur, name=str(record.get("name", "")))
        if record.get("kind") in GPU_KINDS:
            gpu.append(entry)
        elif record.get("kind") == "launch":
            launches.append(entry)
    cut = call.get("cut") if type(call.get("cut")) is int else 0
    return sorted(gpu, key=lambda r: r["ts"]), launches, _number(call.get("host_ms")), cut


def _timeline(gpu: list[dict], launches: list[dict]) -> dict:
    """One call's GPU time: span (first start to last end), busy (the union of the records' intervals:
    streams may overlap), the idle gaps between them, and the latency from the first launch call to the
    first record on the GPU (microseconds)."""
    if not gpu:
        return {"span_us": 0.0, "busy_us": 0.0, "gaps_us": [], "first_launch_us": None}
    start, busy, gaps = gpu[0]["ts"], 0.0, []
    covered = 0.0  # times from the first record's start: a trace's absolute microseconds (~5e12) lose digits
    for record in gpu:
        begin = record["ts"] - start
        end = begin + record["dur"]
        if begin > covered:
            gaps.append(begin - covered)
        busy += max(0.0, end - max(begin, covered))
        covered = max(covered, end)
    first_launch = min((r["ts"] for r in launches), default=None)
    latency = start - first_launch if first_launch is not None and first_launch <= start else None
    return {"span_us": covered, "busy_us": busy, "gaps_us": gaps, "first_launch_us": latency}


def _label(record: dict) -> str:
    if record.get("kind") == "kernel":
        return record["name"]
    return f"[{record.get('kind')}] {record['name']}"


def _kernel_groups(calls: list[list[dict]]) -> list[dict]:
    """Per name (kernels, and copies and fills apart): launches and time per call, and what one launch is."""
    names: dict[str, dict] = {}
    for index, gpu in enumerate(calls):
        for record in gpu:
            group = names.setdefault(_label(record), {"kind": record.get("kind"), "per_call": {}, "records": []})
            count, total = group["per_call"].get(index, (0, 0.0))
            group["per_call"][index] = (count + 1, total + record["dur"])
            group["records"].append(record)
    out = []
    for label, group in names.items():
        counts = [group["per_call"].get(i, (0, 0.0))[0] for i in range(len(calls))]
        totals = [group["per_call"].get(i, (0, 0.0))[1] for i in range(len(calls))]
        first = group["records"][0]
        out.append({"name": label, "short_name": short_kernel_name(first["name"]) if group["kind"] == "kernel"
                    else label, "kind": group["kind"], "launches": _median(counts), "time_us": _median(totals),
                    "mean_us": sum(r["dur"] for r in group["records"]) / len(group["records"]),
                    "grid": _most_common([_triple(r.get("grid")) for r in group["records"]]),
                    "block": _most_common([_triple(r.get("block")) for r in group["records"]]),
                    "registers": _count(first.get("registers")), "shared_memory": _count(first.get("shared_memory")),
                    "bytes": _count(first.get("bytes"))})
    return sorted(out, key=lambda k: -k["time_us"])


def _count(value) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _most_common(values: list) -> list | None:
    seen = [v for v in values if v is not None]
    return max(seen, key=seen.count) if seen else None


def cupti_report(calls: list, nbytes: float, flops: float, bound: str, peaks: dict | None) -> dict:
    """The CUPTI part of the report: the call, its kernels, its gaps (see the module's docstring).

    ``calls``: the worker's ``calls`` list; ``nbytes``/``flops``/``bound``: the case's cost (the spec's
    formulas); ``peaks``: the device's measured peaks (timing/peaks.py), or None."""
    cleaned = [_clean_call(call) for call in calls if isinstance(call, dict)]
    lines = [_timeline(gpu, launches) for gpu, launches, _, _ in cleaned]
    span_us = _median([t["span_us"] for t in lines])
    busy_us = _median([t["busy_us"] for t in lines])
    host = [h for _, _, h, _ in cleaned if h is not None]
    kernels = _kernel_groups([gpu for gpu, _, _, _ in cleaned])
    for kernel in kernels:
        kernel["share"] = kernel["time_us"] / busy_us if busy_us > 0 else None
    rates = speed_of_light(span_us / 1e3, nbytes, flops, bound, peaks) if span_us > 0 else {}
    own = [k for k in kernels if k["kind"] == "kernel"]
    if len(kernels) == 1 and own and own[0]["time_us"] > 0:  # one kernel moved all of the call's bytes
        own[0].update(_kernel_rates(own[0]["time_us"], nbytes, flops, bound, peaks))
    ranked = [sorted(t["gaps_us"], reverse=True) for t in lines]  # the k-th largest gap of the median call
    largest = [_median([g[k] for g in ranked if len(g) > k]) for k in range(min(LARGEST_GAPS, max(map(len, ranked),
                                                                                                default=0)))]
    latency = [t["first_launch_us"] for t in lines if t["first_launch_us"] is not None]
    return {
        "calls": len(cleaned),
        "call": {"span_us": span_us, "busy_us": busy_us, "idle_us": max(0.0, span_us - busy_us),
                 "host_us": _median(host) * 1e3 if host else None, "bytes": nbytes or None, "flops": flops or None,
                 "gbps": rates.get("gbps"), "tflops": rates.get("tflops"), "peak_kind": rates.get("peak_kind"),
                 "pct_of_peak": rates.get("pct_of_peak")},
        "kernels": kernels,
        "gaps": {"per_call": _median([len(t["gaps_us"]) for t in lines]) if lines else 0,
                 "idle_us": _median([sum(t["gaps_us"]) for t in lines]) if lines else 0.0,
                 "largest_us": largest,
                 "first_launch_us": _median(latency) if latency else None},
        "records_cut": sum(cut for _, _, _, cut in cleaned),
    }


def _kernel_rates(time_us: float, nbytes: float, flops: float, bound: str, peaks: dict | None) -> dict:
    rates = speed_of_light(time_us / 1e3, nbytes, flops, bound, peaks)
    return {"gbps": rates.get("gbps"), "tflops": rates.get("tflops"), "pct_of_peak": rates.get("pct_of_peak")}


# -- Nsight Compute -------------------------------------------------------------------------------------------
NCU_PERMISSION = (
    "Nsight Compute could not read the GPU's performance counters: the NVIDIA driver lets only administrators "
    "read them here (ERR_NVGPUCTRPERM). Run judge profile as root (sudo), or have an administrator allow every "
    "user: the driver option NVreg_RestrictProfilingToAdminUsers=0 (a line 'options nvidia "
    "NVreg_RestrictProfilingToAdminUsers=0' in a file under /etc/modprobe.d/, then reload the driver or "
    "reboot; https://developer.nvidia.com/ERR_NVGPUCTRPERM). The CUPTI part above needs no such rights.")

# ncu's own lines in the profiled program's output: ==ERROR== / ==WARNING== / ==PROF==
_NCU_LINE = re.compile(r"^==(ERROR|WARNING)== (.+)$", re.MULTILINE)


def ncu_problem(output: str) -> str | None:
    """Why Nsight Compute measured nothing, from its lines in the output; None when it said no error."""
    if "ERR_NVGPUCTRPERM" in output:
        return NCU_PERMISSION
    errors = [text.strip() for kind, text in _NCU_LINE.findall(output) if kind == "ERROR"]
    if errors:
        return "Nsight Compute failed: " + "; ".join(dict.fromkeys(errors))[:600]
    if "No kernels were profiled" in output:
        return "Nsight Compute profiled no kernel: solve() launched none inside the profiled call"
    return None


def parse_ncu_csv(text: str) -> list[dict]:
    """The rows of ``ncu --import R --csv --page raw``: one dict per profiled launch, ``{column: (value,
    unit)}`` with numbers as floats (thousands separators dropped) and the units row's unit ("" if none)."""
    rows = list(csv.reader(line for line in text.splitlines() if line.startswith('"')))
    start = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
    if start is None:
        return []
    header, body = rows[start], rows[start + 1:]
    units = [""] * len(header)
    if body and body[0] and body[0][0] == "":  # the units row: its ID column is empty
        units, body = body[0] + [""] * (len(header) - len(body[0])), body[1:]
    return [{name: (_ncu_value(cell), unit) for name, unit, cell in zip(header, units, row)} for row in body]


def _ncu_value(cell: str):
    text = cell.strip()
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return text


_TIME_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_STALL = re.compile(r"^smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$")
_STALL_SAMPLED = re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+)$")
NOT_STALLS = {"selected", "not_issued"}

# (report key, ncu metric names in order of preference, what it converts to)
_METRICS = (
    ("duration_us", ("gpu__time_duration.sum",), "time"),
    ("dram_pct", ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
                  "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), "plain"),
    ("memory_pct", ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",), "plain"),
    ("dram_bytes_per_s", ("dram__bytes.sum.per_second",), "rate"),
    ("sm_pct", ("sm__throughput.avg.pct_of_peak_sustained_elapsed",), "plain"),
    ("occupancy_pct", ("sm__warps_active.avg.pct_of_peak_sustained_active",), "plain"),
    ("theoretical_occupancy_pct", ("sm__maximum_warps_per_active_cycle_pct",), "plain"),
    ("l1_hit_pct", ("l1tex__t_sector_hit_rate.pct",), "plain"),
    ("l2_hit_pct", ("lts__t_sector_hit_rate.pct",), "plain"),
    ("registers", ("launch__registers_per_thread",), "plain"),
    ("static_shared_bytes", ("launch__shared_mem_per_block_static",), "bytes"),
    ("dynamic_shared_bytes", ("launch__shared_mem_per_block_dynamic",), "bytes"),
    ("grid_size", ("launch__grid_size",), "plain"),
    ("block_size", ("launch__block_size",), "plain"),
)


def _convert(value: float, unit: str, how: str) -> float | None:
    if how == "time":
        scale = _TIME_US.get(unit)
        return value * scale if scale is not None else None
    if how in ("rate", "bytes"):  # byte, Kbyte, Mbyte/second, Gbyte/s ...: to bytes (per second)
        found = re.match(r"^([KMGT]?)(?:byte|B)(?:/\w+)?$", unit)  # per second, per block
        return value * _SCALE[found.group(1)] if found else (value if unit == "" else None)
    return value


def _launch_metrics(row: dict) -> dict:
    """The report's metrics of one profiled launch."""
    out = {"name": str(row.get("Kernel Name", ("", ""))[0])}
    for key, names, how in _METRICS:
        for name in names:
            value, unit = row.get(name, (None, ""))
            if isinstance(value, float):
                out[key] = _convert(value, unit, how)
                break
    stalls = {}
    for column, (value, _) in row.items():
        found = _STALL.match(column) or _STALL_SAMPLED.match(column)
        if found and isinstance(value, float) and found.group(1) not in NOT_STALLS:
            stalls[found.group(1)] = stalls.get(found.group(1), 0.0) + value
    out["stalls"] = stalls
    return out


def ncu_kernels(rows: list[dict]) -> list[dict]:
    """Per kernel name (in the order first launched): launches, the mean of each metric over them, shared
    memory per block (static + dynamic), the top three stall reasons (each with its share of all stalls)."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        launch = _launch_metrics(row)
        groups.setdefault(launch["name"], []).append(launch)
    out = []
    for name, launches in groups.items():
        kernel = {"name": name, "short_name": short_kernel_name(name), "launches": len(launches)}
        for key, _, _ in _METRICS:
            values = [launch[key] for launch in launches if launch.get(key) is not None]
            kernel[key] = sum(values) / len(values) if values else None
        shared = [kernel.pop("static_shared_bytes"), kernel.pop("dynamic_shared_bytes")]
        kernel["shared_memory_per_block"] = sum(v for v in shared if v is not None) if any(
            v is not None for v in shared) else None
        stalls: dict[str, float] = {}
        for launch in launches:
            for reason, value in launch["stalls"].items():
                stalls[reason] = stalls.get(reason, 0.0) + value / len(launches)
        total = sum(stalls.values())
        kernel["top_stalls"] = [{"reason": reason, "value": value, "share": value / total if total > 0 else None}
                                for reason, value in sorted(stalls.items(), key=lambda kv: -kv[1])[:3]]
        out.append(kernel)
    return out
