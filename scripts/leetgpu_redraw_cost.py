# Reproduces: docs/leetgpu.md, "What the judge does with a challenge.py" (the cost of drawing again, CPU).
"""What fresh values per timed call cost on LeetGPU challenges (issue 27): for every
challenge under FOLDER, build its performance test on DEVICE, then draw it again
(``ShippedCase.redraw``) with other seeds, as the benchmark does before every timed
call, and time each draw and its payload (the bytes the judge ships to the worker).
Says where a draw changes the test's shapes or scalars (the judge handles it; this
shows which challenges do it).

    python scripts/leetgpu_redraw_cost.py .leetgpu/challenges [--device cuda:0] [--draws 3] [--max-mb 600]

Performance tests above --max-mb (tensor bytes) are skipped (on the CPU: memory and time).
Prints one line per challenge and a summary; exit status 0.
"""

from __future__ import annotations

import argparse
import time

import torch

from judge.challenge.leetgpu import LeetGpuError, build_performance_test, list_folder
from judge.challenge.shipped import request_payload


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)


def measure(spec, device: str, draws: int) -> dict:
    """Seconds of the first build, of each draw, of each draw's payload; whether shapes or scalars moved."""
    started = time.perf_counter()
    first = build_performance_test(spec, device, 1)
    _sync(device)
    out = {"build_s": time.perf_counter() - started, "draw_s": [], "payload_s": [], "changes": False,
           "bytes": 0}
    shapes = {n: tuple(v.shape) for n, v in first.arguments.items() if isinstance(v, torch.Tensor)}
    for seed in range(2, 2 + draws):
        started = time.perf_counter()
        drawn = first.redraw(seed)
        out["draw_s"].append(time.perf_counter() - started)
        started = time.perf_counter()
        _, blobs = request_payload(drawn)
        out["payload_s"].append(time.perf_counter() - started)
        out["bytes"] = sum(len(b) for b in blobs)
        moved = {n: tuple(v.shape) for n, v in drawn.arguments.items() if isinstance(v, torch.Tensor)}
        out["changes"] |= moved != shapes or drawn.params != first.params
        del drawn, blobs
    del first
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--device", default="cuda:0" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--max-mb", type=float, default=600.0)
    args = parser.parse_args()
    rows, skipped = [], []
    for item in list_folder(args.folder):
        if item.spec is None or item.problem:
            skipped.append(f"{item.folder.name} (cannot run)")
            continue
        if item.performance_bytes is not None and item.performance_bytes > args.max_mb * 1e6:
            skipped.append(f"{item.folder.name} ({item.performance_bytes / 1e6:.0f} MB)")
            continue
        try:
            m = measure(item.spec, args.device, args.draws)
        except (LeetGpuError, RuntimeError) as exc:
            skipped.append(f"{item.folder.name} ({type(exc).__name__}: {str(exc).splitlines()[-1][:80]})")
            continue
        draw, payload = sorted(m["draw_s"])[len(m["draw_s"]) // 2], sorted(m["payload_s"])[len(m["payload_s"]) // 2]
        rows.append((item.folder.name, m["bytes"], m["build_s"], draw, payload, m["changes"]))
        print(f"{item.folder.name:48s} shipped {m['bytes'] / 1e6:9.1f} MB  build {m['build_s'] * 1e3:9.1f} ms  "
              f"draw {draw * 1e3:9.1f} ms  payload {payload * 1e3:8.1f} ms"
              + ("  (shapes or scalars change)" if m["changes"] else ""), flush=True)
    per_call = sorted(r[3] + r[4] for r in rows)
    if per_call:
        print(f"\n{len(rows)} measured on {args.device}; draw + payload per timed call: median "
              f"{per_call[len(per_call) // 2] * 1e3:.1f} ms, max {per_call[-1] * 1e3:.1f} ms "
              f"({max(rows, key=lambda r: r[3] + r[4])[0]})")
    print(f"shapes or scalars change between draws: {', '.join(r[0] for r in rows if r[5]) or 'none'}")
    if skipped:
        print(f"skipped {len(skipped)}: {'; '.join(skipped)}")


if __name__ == "__main__":
    main()
