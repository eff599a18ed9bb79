#!/usr/bin/env bash
# Reproduces: docs/results.md, "The other built-in challenges" (their examples, and the transposes on the fp16/bf16
# and batched challenges, which `gpu_check.sh served` does not run).
# The new built-in challenges on the GPU: `judge validate` on every spec, then
# every example solution judged with `judge run` (tests + benchmarks), one JSON
# document per run in $OUT/<challenge>__<solution>.json and one verdict line each.
#
#   bash scripts/challenges_gpu.sh                 everything (about 15 runs)
#   bash scripts/challenges_gpu.sh part1           vector_add, reduce_sum, softmax, softmax_rows
#   bash scripts/challenges_gpu.sh part2           matvec, batched_transpose(_fp16), transpose_fp16/bf16
#
# Split into parts if one call must fit 10 minutes. CHALLENGE_ARGS adds options
# to every run [default: --seed 1 --bench-budget 1]; "--no-bench" makes it a
# correctness-only pass. Exit status: 0 when every spec validates and every
# solution is accepted, 1 otherwise.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
ARGS=${CHALLENGE_ARGS:---seed 1 --bench-budget 1}
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"

PART1="vector_add:vector_add/blocked reduce_sum:reduce_sum/atomic reduce_sum:reduce_sum/two_pass
softmax:softmax/single_program softmax:softmax/split softmax_rows:softmax_rows/row_per_program"
PART2="matvec:matvec/row_blocks batched_transpose:batched_transpose/tiled
batched_transpose_fp16:batched_transpose/tiled transpose_fp16:transpose/tiled transpose_fp16:transpose/tuned
transpose_bf16:transpose/tiled transpose_bf16:transpose/tuned"
case "${1:-all}" in
  part1) RUNS=$PART1 ;;
  part2) RUNS=$PART2 ;;
  *) RUNS="$PART1 $PART2" ;;
esac

status=0
echo "== judge validate (every built-in spec, CPU-side checks)"
judge validate --all > "$OUT/validate.txt"; rc=$?
tail -1 "$OUT/validate.txt"; grep "✗" "$OUT/validate.txt"
[ $rc -eq 0 ] || status=1

echo "== judge run"
for run in $RUNS; do
  challenge=${run%%:*}; solution=${run#*:}
  json="$OUT/${challenge}__$(echo "$solution" | tr / _).json"
  started=$(date +%s.%N)
  # shellcheck disable=SC2086
  judge run "$challenge" "solutions/$solution.py" $ARGS --json > "$json"; rc=$?
  [ $rc -eq 0 ] || status=1
  python3 - "$json" "$rc" "$started" <<'PY'
import json, sys, time
path, rc, started = sys.argv[1], sys.argv[2], float(sys.argv[3])
try:
    d = json.load(open(path))
except (OSError, ValueError) as exc:
    print(f"{path}: no JSON (exit {rc}): {exc}")
    sys.exit(0)
bench = "; ".join(f"{b['name']}: {b.get('median_ms') or 0:.4f} ms, {b.get('pct_of_peak') or 0:.0f}% of peak, "
                  f"vs torch {b.get('vs_torch', '-')}" for b in d["benchmarks"])
print(f"{d['challenge']:<24} {d['solution']:<44} {d['verdict'].upper():<14} {len(d['tests'])} tests "
      f"[{time.time() - started:.0f} s] {bench}")
if d["verdict"] != "accepted":
    print("   ", d["message"][:600])
PY
done
exit $status
