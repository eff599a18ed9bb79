#!/usr/bin/env bash
# Reproduces: docs/ranking.md, "On a GPU" (rank, sweep, leaderboard).
# The ranking demo of issue 4 on a GPU machine: judge rank (table, JSON, bar chart),
# judge sweep (bandwidth against size), judge leaderboard, and the GPU tests of rank/sweep.
# Run from the repository root:  OUT=/tmp/out bash scripts/rank_demo.sh
# Everything it writes lands in $OUT (the history database too: $OUT/judge-data/history.db).
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export JUDGE_DATA_DIR="$OUT/judge-data"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
python3 -c "import torch, triton, matplotlib; print('torch', torch.__version__, 'triton', triton.__version__,
'matplotlib', matplotlib.__version__, torch.cuda.get_device_name())"

echo "== judge rank (naive, tiled, tuned and a wrong transpose)"
SECONDS=0
judge rank transpose solutions/transpose/naive_2d.py solutions/transpose/tiled.py \
    solutions/transpose/tuned.py tests/solutions/transpose_wrong_value.py \
    --seed 1 --plot "$OUT/rank.png" --json > "$OUT/rank.json"
echo "rank exit $? (1 expected: one solution is wrong), ${SECONDS} s"
# The table people read, drawn from the same JSON (ranking twice would cost the timing again).
python3 - "$OUT/rank.json" <<'PY' | tee "$OUT/rank.txt"
import json, sys
from judge.report.console import make_console
from judge.report.ranking_tables import render_rank
render_rank(make_console(plain=True), json.load(open(sys.argv[1])))
PY

echo "== judge sweep (tiled and tuned, a handful of sizes, short budget)"
SECONDS=0
judge sweep transpose solutions/transpose/tiled.py solutions/transpose/tuned.py \
    --sizes 512,1024,2048,4096,8192 --budget 8 --seed 1 --plot "$OUT/sweep.png" | tee "$OUT/sweep.txt"
echo "sweep exit ${PIPESTATUS[0]}, ${SECONDS} s"

echo "== judge run (recorded in the history too) and judge leaderboard"
judge run transpose solutions/transpose/tuned.py --seed 2 --bench-budget 1 > "$OUT/run_tuned.txt"; echo "run exit $?"
judge leaderboard transpose | tee "$OUT/leaderboard.txt"
judge leaderboard transpose --json > "$OUT/leaderboard.json"
judge history | tee "$OUT/history.txt"

echo "== GPU tests of rank and sweep"
python3 -m pytest -m gpu tests/test_rank_gpu.py -q -x -p no:cacheprovider 2>&1 | tee "$OUT/rank_gpu_tests.log" | tail -15
