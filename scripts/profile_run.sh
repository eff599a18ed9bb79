#!/usr/bin/env bash
# Reproduces: docs/benchmarks.md, "GPU, later the same day: where a warm run's seconds went" (the user of
# JUDGE_PROFILE_DIR, judge/base/profiling.py).
# Where the seconds of a `judge run` go (issue 16), on a GPU machine: the first run on
# fresh caches and two warm ones, each under cProfile in the judge and in every worker
# (JUDGE_PROFILE_DIR, judge/base/profiling.py), then the same warm run unprofiled with the
# wall clock and -X importtime.  scripts/profile_summary.py prints the top functions.
#   OUT=/tmp/out bash scripts/profile_run.sh [CHALLENGE SOLUTION]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
CH=${1:-transpose}; SOL=${2:-solutions/transpose/tuned.py}
WORK=$(mktemp -d)
export JUDGE_CACHE_DIR=$WORK/cache JUDGE_DATA_DIR=$WORK/data TRITON_CACHE_DIR=$WORK/triton NO_COLOR=1
now() { python3 -c 'import time; print(time.time())'; }
for run in cold warm1 warm2; do
  start=$(now)
  JUDGE_PROFILE_DIR=$WORK/prof/$run python3 -m judge run "$CH" "$SOL" --seed 1 --json > "$WORK/$run.json"
  echo "$run (profiled): exit $?, wall $(python3 -c "print(round($(now) - $start, 2))") s, phases" \
    "$(python3 -c "import json; print(json.load(open('$WORK/$run.json'))['phases_s'])")"
done
for run in plain1 plain2; do
  start=$(now)
  python3 -X importtime -m judge run "$CH" "$SOL" --seed 1 --json > "$WORK/$run.json" 2> "$WORK/$run.imports"
  echo "$run: wall $(python3 -c "print(round($(now) - $start, 2))") s, phases" \
    "$(python3 -c "import json; print(json.load(open('$WORK/$run.json'))['phases_s'])")"
done
sort -t'|' -k2 -n -r "$WORK/plain2.imports" | head -25 > "$OUT/imports_top.txt"
python3 scripts/profile_summary.py "$WORK/prof" > "$OUT/profile_summary.txt"
echo "summaries: $OUT/profile_summary.txt, $OUT/imports_top.txt"
