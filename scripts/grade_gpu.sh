#!/usr/bin/env bash
# Reproduces: docs/grading.md, "Parallel grading" and "Measured" (16 submissions, serial against every GPU).
# judge grade on the GPU machine: 16 submissions (the example solutions and some
# of tests/solutions, correct and not), graded serially on GPU 0 and in parallel
# on every GPU, with wall times and a check that the verdicts are identical.
#
#   bash scripts/grade_gpu.sh serial     one part per call (each must fit a 10-minute call;
#   bash scripts/grade_gpu.sh parallel   the machine keeps $GRADE_WORK between calls while warm)
#   bash scripts/grade_gpu.sh compare    wall times, per-submission times, verdicts identical?
#   bash scripts/grade_gpu.sh            all three in one go (when there is no time limit)
#
# Each run gets an empty Triton cache, so neither profits from the other's
# compiled kernels; the device's peaks are measured once, before both.
# GRADE_ARGS adds options to both runs [default: --bench-budget 1; --no-bench
# for a quicker, correctness-only grade].  A run still going after GRADE_LIMIT
# seconds [default 540] is stopped with SIGTERM: judge grade then writes what it
# graded (exit 130), and the wall time printed is of that part.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=${GRADE_WORK:-/tmp/judge-grade-gpu}; mkdir -p "$WORK"
ARGS=${GRADE_ARGS:---bench-budget 1}
export JUDGE_CACHE_DIR="$WORK/judge-cache" JUDGE_DATA_DIR="$WORK/judge-data"

setup() {
  python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
  python3 -c "import torch; print('GPUs visible:', torch.cuda.device_count())"
  python3 scripts/grade_manifest.py "$WORK" \
    "transpose=solutions/transpose/naive_1d.py,solutions/transpose/naive_2d.py,solutions/transpose/tiled.py,solutions/transpose/tuned.py,tests/solutions/transpose_ok.py,tests/solutions/transpose_autotuned.py,tests/solutions/transpose_wrong_value.py,tests/solutions/transpose_crash.py,tests/solutions/transpose_illegal_address.py" \
    "copy=solutions/copy/naive.py,solutions/copy/tuned.py" \
    "matmul=solutions/matmul/tiled.py,solutions/matmul/grouped_autotuned.py,solutions/matmul/tf32x3.py,tests/solutions/matmul_torch.py,tests/solutions/matmul_zeros.py"
  if [ ! -s "$JUDGE_CACHE_DIR/peaks.json" ]; then  # measure the peaks outside both timed runs
    judge run copy solutions/copy/tuned.py --seed 1 --bench-budget 0.2 --no-history > /dev/null
  fi
}

grade() {  # grade NAME GPUS
  local name=$1 gpus=$2
  rm -rf "$WORK/triton-$name"
  local start end
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # GRADE_ARGS is a list of options
  TRITON_CACHE_DIR="$WORK/triton-$name" timeout -k 30 "${GRADE_LIMIT:-540}" judge grade --manifest "$WORK/grading.yaml" --gpus "$gpus" \
    --seed 1 $ARGS --json "$WORK/$name.json" --junit "$WORK/$name.xml" --summary "$WORK/$name.md" \
    > "$WORK/$name.log" 2>&1
  local status=$?
  end=$(date +%s.%N)
  python3 -c "print(f'$name (--gpus $gpus): exit $status, wall {float('$end') - float('$start'):.1f} s')" \
    | tee "$WORK/$name.wall"
  tail -25 "$WORK/$name.log"
}

compare() {
  python3 - "$WORK" <<'PY'
import json, sys
from pathlib import Path

work = Path(sys.argv[1])
runs = {n: json.loads((work / f"{n}.json").read_text()) for n in ("serial", "parallel") if (work / f"{n}.json").exists()}
for name in runs:
    print((work / f"{name}.wall").read_text().strip() if (work / f"{name}.wall").exists() else name)
if len(runs) < 2:
    sys.exit("compare needs both the serial and the parallel run")

def outcome(doc):
    return {(r["submission"], r["challenge"]): (r["verdict"], [(t["name"], t["verdict"]) for t in r.get("tests", [])])
            for r in doc["results"]}

serial, parallel = (outcome(runs[n]) for n in ("serial", "parallel"))
differ = [k for k in serial if serial[k] != parallel.get(k)]
print(f"verdicts and per-case verdicts identical: {'yes' if not differ else 'NO: ' + repr(differ)}")
print("GPUs used by the parallel run:", sorted({r.get("gpu") for r in runs["parallel"]["results"]}, key=str))
print(f"{'submission':36} {'verdict':20} {'serial s':>9} {'parallel s':>10} gpu")
by_key = {(r["submission"], r["challenge"]): r for r in runs["parallel"]["results"]}
for r in runs["serial"]["results"]:
    p = by_key[r["submission"], r["challenge"]]
    print(f"{r['submission']:36} {r['verdict']:20} {r.get('wall_s', 0):9.1f} {p.get('wall_s', 0):10.1f} {p.get('gpu')}")
PY
}

copy_out() { cp "$WORK"/*.json "$WORK"/*.xml "$WORK"/*.md "$WORK"/*.log "$WORK"/*.wall "$WORK/grading.yaml" "$OUT"/ 2>/dev/null; }

case "${1:-all}" in
  serial) setup; grade serial 0 ;;
  parallel) setup; grade parallel all ;;
  compare) compare ;;
  all) setup; grade serial 0; grade parallel all; compare ;;
  *) echo "usage: $0 [all|serial|parallel|compare]" >&2; exit 2 ;;
esac
copy_out
