#!/usr/bin/env bash
# Reproduces: docs/results.md's rank tables and docs/ranking.md, "On a GPU".
# Issue 7's results: `judge rank` of each challenge's progression on the GPU,
# rendered into docs/results.md by scripts/results_md.py.
#   OUT=/tmp/out bash scripts/results.sh
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export JUDGE_DATA_DIR="$OUT/judge-data"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
rank() {  # name challenge solutions...
  local name=$1 challenge=$2; shift 2
  SECONDS=0
  # shellcheck disable=SC2086
  judge rank "$challenge" "$@" --seed 1 --json ${RANK_EXTRA:-} > "$OUT/rank_$name.json"
  echo "rank $name exit $? in ${SECONDS} s"
}
# The transpose ranking doubles as issue 4's demo: a wrong solution rides along, and a plot.
RANK_EXTRA="--plot $OUT/rank_transpose.png" rank transpose transpose solutions/transpose/naive_1d.py \
  solutions/transpose/naive_2d.py solutions/transpose/tiled.py solutions/transpose/tuned.py \
  tests/solutions/transpose_wrong_value.py
rank copy copy solutions/copy/naive.py solutions/copy/tuned.py
rank matmul matmul solutions/matmul/tiled.py solutions/matmul/grouped_autotuned.py \
  solutions/matmul/tf32x3.py solutions/matmul/bf16x6.py
python3 scripts/results_md.py "$OUT"/rank_transpose.json "$OUT"/rank_copy.json "$OUT"/rank_matmul.json \
  > "$OUT/results.md"
cat "$OUT/results.md"
