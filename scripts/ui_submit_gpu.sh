#!/usr/bin/env bash
# judge ui on a GPU (issue 42): its GPU tests (Submit through the warm server, Stop of a hang, the text on
# screen submitted in CUDA and Triton), then scripts/ui_submit_gpu.py: the page's Submit of a CUDA and a Triton
# draft (through the page with Chromium there, else through its requests) and a screenshot of each verdict.
#   OUT=/tmp/out bash scripts/ui_submit_gpu.sh
# Without a browser on the GPU machine, draw its results here afterwards:
#   python scripts/ui_submit_gpu.py --draw $OUT/ui_submit.json --out docs/img/ui
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=$(mktemp -d)
export JUDGE_CACHE_DIR=$WORK/cache JUDGE_DATA_DIR=$WORK/data NO_COLOR=1
python3 -m pytest -m gpu tests/test_ui_gpu.py -q -p no:cacheprovider -s 2>&1 |
  grep -E "ui gpu|passed|failed|Error" | cut -c1-300 | tee "$OUT/ui_gpu_tests.log"
python3 scripts/ui_submit_gpu.py --out "$OUT" 2>&1 | tail -20 | tee "$OUT/ui_submit.log"
