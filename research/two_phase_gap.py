"""Why does the two-phase cheat read ~5 % under its honest twin?  (GPU only; issue 18)

The cheat (tests/solutions/cheat_two_phase_guard.py) differs from its honest
twin (tests/solutions/transpose_honest_20x.py: 20 x ``output.copy_(input.T)``)
in four ways at once; each variant below adds one of them to the honest twin,
so the one that carries the gap shows:

    honest          the twin
    honest_sleep    + a 1 ms host sleep inside solve() (the guard grows to cover it)
    scratch         + the 20 copies go into a persistent scratch tensor, then one
                    copy to the output (on the current stream, no sleep)
    scratch_sleep   scratch + the sleep (the cheat without its side stream)
    cheat           the cheat: scratch on an unjoined side stream, sleep, join, copy

Each is judged on a 2048 x 2048 transpose benchmark (bench budget 2 s), in two
rounds in rotating order so that drift does not favour one.  One JSON line
per judgement, then a table: median, CI, calls, guard length, timer trusted.
    python3 research/two_phase_gap.py [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

HEAD = "import time\nimport torch\n_side = None\n_scratch = {}\n\n"
SCRATCH = ("    scratch = _scratch.get(tuple(output.shape))\n    if scratch is None:\n"
           "        scratch = _scratch[tuple(output.shape)] = torch.empty_like(output)\n")
VARIANTS = {
    "honest": HEAD + "def solve(input, output, rows, cols):\n    for _ in range(20):\n        output.copy_(input.T)\n",
    "honest_sleep": HEAD + "def solve(input, output, rows, cols):\n    time.sleep(0.001)\n"
                           "    for _ in range(20):\n        output.copy_(input.T)\n",
    "scratch": HEAD + "def solve(input, output, rows, cols):\n" + SCRATCH +
                      "    for _ in range(20):\n        scratch.copy_(input.T)\n    output.copy_(scratch)\n",
    "scratch_sleep": HEAD + "def solve(input, output, rows, cols):\n" + SCRATCH +
                            "    for _ in range(20):\n        scratch.copy_(input.T)\n"
                            "    time.sleep(0.001)\n    output.copy_(scratch)\n",
    "cheat": (ROOT / "tests" / "solutions" / "cheat_two_phase_guard.py").read_text(),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from judge.judging.runner import Options
    from judge.judging.dispatch import judge_solution
    from test_gpu import small_bench_spec

    spec = small_bench_spec("transpose", "  - {name: b2048, rows: 2048, cols: 2048}\n")
    folder = Path(tempfile.mkdtemp(prefix="two-phase-"))
    rows, names = [], list(VARIANTS)
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            path = folder / f"{name}.py"
            path.write_text(VARIANTS[name])
            result = judge_solution(spec, str(path), Options(seed=1 + r, bench_budget_s=2.0))
            bench = result.benchmarks[0] if result.benchmarks else {}
            row = {"variant": name, "round": r, "verdict": result.verdict.value,
                   **{k: bench.get(k) for k in ("median_ms", "ci_low_ms", "ci_high_ms", "calls", "launch_guard_us",
                                                "timer_trusted", "notes")}}
            print(json.dumps(row), flush=True)
            rows.append(row)
    print("\n| variant | round | verdict | median (ms) | 95% CI (ms) | calls | guard (µs) | timer trusted |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        ci = f"{row['ci_low_ms']:.4f}–{row['ci_high_ms']:.4f}" if row["ci_low_ms"] else "-"
        median = f"{row['median_ms']:.4f}" if row["median_ms"] else "-"
        print(f"| {row['variant']} | {row['round']} | {row['verdict']} | {median} | {ci} | {row['calls']} | "
              f"{row['launch_guard_us']} | {row['timer_trusted']} |")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
