#!/usr/bin/env python3
# Used by scripts/profile_run.sh (docs/benchmarks.md, "GPU, later the same day").
"""Print the top functions of each cProfile that scripts/profile_run.sh left: by
cumulative time (where the wall clock goes) and by own time (what is hot)."""

import pstats
import sys
from pathlib import Path

TOP = 28

for run in sorted(Path(sys.argv[1]).iterdir()):
    for prof in sorted(run.glob("*.prof")):
        stats = pstats.Stats(str(prof))
        print(f"\n===== {run.name} / {prof.name}: {stats.total_tt:.3f} s =====")
        stats.sort_stats("cumulative").print_stats(TOP)
        stats.sort_stats("tottime").print_stats(12)
