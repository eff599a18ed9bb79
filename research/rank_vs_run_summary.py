"""Summarise research/rank_vs_run.sh: each run's benchmark medians beside the
SM clock, power and throttle reasons sampled while it ran.
    python3 research/rank_vs_run_summary.py OUT_DIR
"""

from __future__ import annotations

import json
import statistics
import sys
from datetime import datetime
from pathlib import Path


def clocks(out: Path) -> list[tuple[float, float, float, str]]:
    rows = []
    for line in (out / "rvr_clocks.csv").read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        try:
            stamp = datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            rows.append((stamp, float(parts[1]), float(parts[3]), parts[5]))
        except (ValueError, IndexError):
            continue
    return rows


def window(samples, start: float, end: float) -> str:
    inside = [s for s in samples if start <= s[0] <= end]
    if not inside:
        return "no samples"
    sm = [s[1] for s in inside]
    power = [s[2] for s in inside]
    reasons = sorted({s[3] for s in inside})
    return (f"SM clock median {statistics.median(sm):.0f} MHz (min {min(sm):.0f}), power median "
            f"{statistics.median(power):.0f} W (max {max(power):.0f}), reasons {reasons}")


def main(out: Path) -> None:
    marks = dict(line.split() for line in (out / "rvr_marks.txt").read_text().splitlines())
    marks = {k: float(v) for k, v in marks.items()}
    samples = clocks(out)
    print("| what | case | median (ms) | CI (ms) | calls | clocks while it ran |")
    print("|---|---|---|---|---|---|")
    for path in sorted(out.glob("rvr_run_*.json")):
        name = path.stem.removeprefix("rvr_run_")
        if f"run_{name}_start" not in marks:
            continue
        doc = json.loads(path.read_text() or "{}")
        for b in doc.get("benchmarks", []):
            print(f"| judge run {name} | {b['name']} | {b['median_ms']:.4f} | {b['ci_low_ms']:.4f}–{b['ci_high_ms']:.4f} "
                  f"| {b['calls']} | {window(samples, marks[f'run_{name}_start'], marks[f'run_{name}_end'])} |")
    doc = json.loads((out / "rvr_rank.json").read_text() or "{}")
    rank_window = window(samples, marks["rank_start"], marks["rank_end"])
    for standing in doc.get("ranking", []):
        for b in standing.get("cases", []):
            print(f"| judge rank {Path(standing['solution']).stem} | {b['name']} | {b['median_ms']:.4f} "
                  f"| {b['ci_low_ms']:.4f}–{b['ci_high_ms']:.4f} | {b['calls']} | {rank_window} |")
    print("method:", json.dumps(doc.get("method")))
    for result in doc.get("results", []):  # every timed call in order: drift within the rank shows here
        for b in result.get("benchmarks", []):
            samples = b.get("samples_ms") or []
            print(f"samples {Path(result['solution']).stem} {b['name']}: " + " ".join(f"{s:.3f}" for s in samples[:60]))

if __name__ == "__main__":
    main(Path(sys.argv[1]))
