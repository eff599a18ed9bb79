#!/usr/bin/env bash
# Quick GPU smoke check on the device: install, one judged run with benchmarks, the GPU tests.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
/usr/bin/time -v judge run transpose solutions/transpose/tuned.py --seed 1 2> "$OUT/time_tuned.txt" | tee "$OUT/run_tuned.txt"
grep -E "Elapsed|Maximum resident" "$OUT/time_tuned.txt"
judge run transpose solutions/transpose/tuned.py --seed 1 --json > "$OUT/run_tuned.json"; echo "json exit $?"
python3 -m pytest -m gpu tests/test_gpu.py -q -x --timeout 300 -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
