#!/usr/bin/env bash
# The GPU check, in parts that each fit one 10-minute device call:
#   bash scripts/gpu_check.sh tests      every GPU test (pytest -m gpu)
#   bash scripts/gpu_check.sh examples   every example judged with benchmarks
#   bash scripts/gpu_check.sh proof      timing fidelity (scripts/timing_proof.py --quick), then
#                                        judge run vs judge rank of three matmuls (research/rank_vs_run.sh)
#   bash scripts/gpu_check.sh inner      the judge's own overhead (scripts/judge_overhead.py, GPU mode)
#                                        and LeetGPU folders (scripts/leetgpu_gpu.sh; needs .leetgpu/challenges)
#   bash scripts/gpu_check.sh grade      (2 GPUs) judge grade --cluster (scripts/grade_cluster_gpu.sh;
#                                        needs the Dask wheels in .whl) and a grade cut by SIGTERM
#                                        and resumed (scripts/grade_under_load.sh)
#   bash scripts/gpu_check.sh cluster    (2 GPUs) the first of those alone (about 7 minutes), then the
#                                        cluster's GPU test (the workers' CUDA warm-up)
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
case "${1:-tests}" in
tests)
  SECONDS=0
  python3 -m pytest -m gpu tests/ -q -p no:cacheprovider -s > "$OUT/gpu_tests.log" 2>&1
  grep -E "^(isolation|device-loop):|passed|failed|FAILED|ERROR" "$OUT/gpu_tests.log" | cut -c1-400
  echo "GPU tests: ${SECONDS} s"
  ;;
examples)
  for s in transpose/naive_1d transpose/naive_2d transpose/tiled transpose/tuned copy/naive copy/tuned \
           matmul/tiled matmul/grouped_autotuned matmul/tf32x3; do
    c=${s%%/*}; n=$(echo "$s" | tr / _)
    judge run "$c" "solutions/$s.py" --seed 1 --json > "$OUT/$n.json"
    python3 - "$OUT/$n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bench = "; ".join(f"{b['name']}: {b.get('median_ms', 0):.4f} ms, {b.get('pct_of_peak') or 0:.1f}% of peak, "
                  f"{b.get('vs_torch', '-')}" for b in d["benchmarks"])
print(f"{d['solution']}: {d['verdict']} ({len(d['tests'])} tests) | {bench} | phases {d['phases_s']}")
PY
  done
  ;;
proof)
  SECONDS=0
  python3 scripts/timing_proof.py --quick --out "$OUT" 2>&1 | tail -30
  echo "timing proof: ${SECONDS} s"; SECONDS=0
  bash research/rank_vs_run.sh 2>&1 | tail -14
  echo "rank vs run: ${SECONDS} s"
  ;;
inner)
  SECONDS=0
  python3 scripts/judge_overhead.py --mode gpu --out "$OUT/overhead.json" 2>&1 | tail -25
  echo "overhead: ${SECONDS} s"; SECONDS=0
  bash scripts/leetgpu_gpu.sh 2>&1 | tail -14
  echo "leetgpu: ${SECONDS} s"
  ;;
cluster)
  SECONDS=0
  bash scripts/grade_cluster_gpu.sh all 2>&1 | tail -45
  echo "cluster: ${SECONDS} s"
  PYTHONPATH=/tmp/site python3 -m pytest -m gpu tests/test_cluster.py -q -p no:cacheprovider 2>&1 | tail -2
  ;;
grade)
  SECONDS=0
  bash scripts/grade_cluster_gpu.sh all 2>&1 | tail -45
  echo "cluster: ${SECONDS} s"; SECONDS=0
  bash scripts/grade_under_load.sh 2>&1 | tail -10
  echo "under load: ${SECONDS} s"
  ;;
esac
