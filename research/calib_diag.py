"""Honest transpose 4096² judged 4 times in one process: the calibration and each call's audit (issue 25 check)."""
import json, os, sys
sys.path.insert(0, os.getcwd()); sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
from test_gpu import small_bench_spec  # noqa: E402
try:
    from judge.judging.runner import Options
    from judge.judging.dispatch import judge_solution
except ImportError:
    from judge.judging.runner import Options
    from judge.judging.dispatch import judge_solution
spec = small_bench_spec("transpose", "  - {name: b4096, rows: 4096, cols: 4096}\n")
for i in range(4):
    r = judge_solution(spec, "solutions/transpose/tuned.py", Options(seed=1, bench_budget_s=0.5))
    b = r.benchmarks[0]
    p = r.environment.get("peaks", {})
    rows = b.get("audits_ms") or []
    flagged = sum(1 for a in rows if a[-1])
    ex = sorted(round((a[0] - a[1]) * 1e3, 1) for a in rows)
    print(json.dumps({"run": i, "verdict": r.verdict.value, "median_ms": round(b["median_ms"], 5), "calls": b["calls"],
                      "flagged": flagged, "trusted": b.get("timer_trusted"),
                      "host_over": p.get("host_overhead_us"), "seen_over": p.get("seen_overhead_us"),
                      "host_minus_event_us(sorted)": ex[:5] + ["..."] + ex[-5:],
                      "tail_minus_event_us": sorted(round((a[2] - a[1]) * 1e3, 1) for a in rows)[len(rows)//2] if rows else None}))
