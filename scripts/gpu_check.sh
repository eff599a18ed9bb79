#!/usr/bin/env bash
# The GPU check, run on the device in one or two calls (each part fits 10 minutes):
#   bash scripts/gpu_check.sh tests      GPU tests + every example judged with benchmarks
#   bash scripts/gpu_check.sh proof      timing fidelity and overhead (scripts/timing_proof.py)
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
case "${1:-tests}" in
tests)
  python3 -m pytest -m gpu tests/ -q -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
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
  judge run transpose solutions/transpose/tiled.py --seed 1 --json > "$OUT/tiled.json"
  python3 -c "import json; d=json.load(open('$OUT/tiled.json')); print(d['phases_s']); [print(b['name'], b['phases_s'], b['calls']) for b in d['benchmarks']]"
  python3 scripts/timing_proof.py --out "$OUT" 2>&1 | tail -30
  ;;
esac
