#!/usr/bin/env bash
# Reproduces: docs/leetgpu.md, "On a GPU" (the four examples, smoke); `gpu_check.sh reduction` covers
# medium/4_reduction only.
# LeetGPU challenge folders on the GPU (docs/leetgpu.md). Needs a copy of a
# checkout's challenges/ folder of github.com/AlphaGPU/leetgpu-challenges at
# .leetgpu/challenges (ignored by git; never committed: CC BY-NC-ND).
#
#   bash scripts/leetgpu_gpu.sh          list, the four example solutions (tests + benchmark), GPU tests
#   bash scripts/leetgpu_gpu.sh smoke    also every challenge's tests, performance test and reference on the GPU
#
# One JSON document per run in $OUT/leetgpu__<challenge>.json. Exit status 0 when
# every run is accepted and the tests pass.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
C=.leetgpu/challenges
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
if [ ! -d "$C" ]; then echo "no $C: carry a copy of leetgpu-challenges/challenges there"; exit 2; fi
status=0
judge list "$C" > "$OUT/leetgpu_list.txt" || status=1
tail -1 "$OUT/leetgpu_list.txt"
grep "cannot run" "$OUT/leetgpu_list.txt" | cut -c1-220
for run in easy/1_vector_add:1_vector_add medium/22_gemm:22_gemm hard/15_sorting:15_sorting \
           easy/41_simple_inference:41_simple_inference; do
  folder=${run%%:*}; solution=solutions/leetgpu/${run##*:}.py; name=$(basename "$folder")
  judge run "$C/$folder" "$solution" --seed 1 --bench-budget 1 --json > "$OUT/leetgpu__$name.json"
  code=$?; [ $code -eq 0 ] || status=1
  python3 - "$OUT/leetgpu__$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = (d["benchmarks"] or [{}])[0]
print(f'{d["challenge"]}: {d["verdict"]} ({len(d["tests"])} tests) perf {b.get("params")} '
      f'median {b.get("median_ms")} ms, {b.get("gbps") or 0:.0f} GB/s, torch {b.get("torch_median_ms")} ms, '
      f'{b.get("vs_torch")}, verified {b.get("verified_calls")}, trusted {b.get("timer_trusted")}')
PY
done
python3 -m pytest -q -m gpu tests/test_leetgpu_gpu.py > "$OUT/leetgpu_pytest.txt" 2>&1 || status=1
tail -5 "$OUT/leetgpu_pytest.txt"
if [ "${1:-}" = smoke ]; then
  python3 scripts/leetgpu_smoke.py "$C" > "$OUT/leetgpu_smoke.txt" 2>&1 || status=1
  grep -v " ok (" "$OUT/leetgpu_smoke.txt"
fi
exit $status
