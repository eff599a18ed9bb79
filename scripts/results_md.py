# Used by scripts/results.sh: renders docs/results.md's rank tables.
"""Render `judge rank --json` documents as the Markdown of docs/results.md.

    python scripts/results_md.py rank_transpose.json rank_copy.json ... > results.md

One section per challenge: the device, date and versions, then a row per
solution with its score, ratio to the best, each case's median and % of the
physical limit, and the speedups over torch and over the slowest (naive)
solution; torch and the copy bound as reference rows.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def fmt_ms(ms) -> str:
    if ms is None:
        return "-"
    return f"{ms * 1e3:.1f} µs" if ms < 0.1 else f"{ms:.3f} ms"


def case_cell(case: dict) -> str:
    parts = [fmt_ms(case.get("median_ms"))]
    if case.get("pct_of_peak") is not None:
        limit = "copy" if case.get("peak_kind") == "copy bandwidth" else "fp32 cuBLAS"
        parts.append(f"{case['pct_of_peak']:.1f} % of {limit}")
    if case.get("tflops"):
        parts.append(f"{case['tflops']:.1f} TFLOP/s")
    elif case.get("gbps"):
        parts.append(f"{case['gbps']:.0f} GB/s")
    return ", ".join(parts)


def section(doc: dict) -> str:
    env = doc.get("environment", {})
    names = [c["name"] for c in doc["cases"]]
    ranked = [s for s in doc["ranking"] if s["rank"] is not None]
    slowest = max((s["score_ms"] for s in ranked if s["score_ms"]), default=None)
    lines = [f"## {doc['challenge']}", "",
             f"{doc['device']}, {time.strftime('%Y-%m-%d')}, torch {env.get('torch')}, triton {env.get('triton')}, "
             f"driver {env.get('driver')}; seed {doc['seed']}; "
             f"{(doc.get('method') or {}).get('rounds', '?')} interleaved rounds.", "",
             "| rank | solution | score | vs best | " + " | ".join(names) + " | vs torch | vs naive |",
             "|---|---|---|---|" + "---|" * len(names) + "---|---|"]
    for s in ranked:
        cases = {c["name"]: c for c in s.get("cases") or []}
        vs_torch = "; ".join(c.get("vs_torch") or "-" for c in cases.values())
        vs_naive = f"{slowest / s['score_ms']:.1f}×" if slowest and s["score_ms"] else "-"
        lines.append(f"| {s['rank']} | `{Path(s['solution']).name}` | {fmt_ms(s['score_ms'])} | "
                     f"{s['vs_best'] or 'best'} | " + " | ".join(case_cell(cases.get(n, {})) for n in names)
                     + f" | {vs_torch} | {vs_naive} |")
    for ref in doc.get("references", []):
        cases = {c["name"]: c for c in ref.get("cases") or []}
        lines.append(f"| – | *{ref['name']}* | {fmt_ms(ref['score_ms'])} | {ref.get('vs_best') or '-'} | "
                     + " | ".join(fmt_ms(cases.get(n, {}).get("median_ms")) for n in names) + " | | |")
    rejected = [s for s in doc["ranking"] if s["rank"] is None]
    for s in rejected:
        lines.append(f"\nRejected: `{Path(s['solution']).name}` — {s['verdict']}: {s['reason'][:160]}")
    return "\n".join(lines) + "\n"


def main(paths: list[str]) -> None:
    docs = [json.loads(Path(p).read_text()) for p in paths]
    print("\n".join(section(doc) for doc in docs))


if __name__ == "__main__":
    main(sys.argv[1:])
