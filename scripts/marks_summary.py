# Used by scripts/served_trace.sh (docs/benchmarks.md, "The served run's last tenths").
"""scripts/served_trace.sh's time marks (JUDGE_TRACE), each run's from its shell's start."""
import sys

t0 = None
for line in open(sys.argv[1]).read().splitlines():
    if line.startswith("----"):
        _, t, what, label = line.split()
        if what == "start":
            t0 = float(t)
            print(f"---- {label}")
        print(f"{float(t) - t0:7.3f} shell {what}")
        continue
    t, pid, label = line.split(" ", 2)
    if t0 is not None:
        print(f"{float(t) - t0:7.3f} {pid:>7} {label}")
