#!/usr/bin/env bash
# Why does a matmul read slower in `judge rank` than in `judge run`?  (GPU only; issue 18)
# docs/results.md: tf32x3 read 7.07 ms in judge run and 9.08 ms in the rank; bf16x6 read
# faster in the rank (3.57 ms) than under do_bench (4.28 ms).  Suspected: clocks.
# This runs `judge run` of three matmuls one after the other, then `judge rank` of the same
# three, while nvidia-smi samples the SM clock, power, temperature and throttle reasons every
# 100 ms; research/rank_vs_run_summary.py then prints each run's medians beside the clocks
# seen while it ran.
#   OUT=/tmp/out bash research/rank_vs_run.sh          (RANK_ONLY=1: skip the single runs)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export JUDGE_DATA_DIR="$OUT/judge-data"
SOLS="solutions/matmul/bf16x6.py solutions/matmul/tf32x3.py solutions/matmul/grouped_autotuned.py"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader,nounits -lms 100 > "$OUT/rvr_clocks.csv" &
SAMPLER=$!
mark() { python3 -c "import time; print('$1', time.time())" >> "$OUT/rvr_marks.txt"; }
: > "$OUT/rvr_marks.txt"
[ -n "${RANK_ONLY:-}" ] && SOLS_RUN="" || SOLS_RUN=$SOLS  # RANK_ONLY=1: the rank alone
for s in $SOLS_RUN; do
  n=$(basename "$s" .py)
  mark "run_${n}_start"
  judge run matmul "$s" --seed 1 --json > "$OUT/rvr_run_$n.json" 2> "$OUT/rvr_run_$n.err"
  mark "run_${n}_end"
done
mark rank_start
judge rank matmul $SOLS --seed 1 --json > "$OUT/rvr_rank.json" 2> "$OUT/rvr_rank.err"
mark rank_end
kill $SAMPLER
python3 research/rank_vs_run_summary.py "$OUT"
