#!/usr/bin/env bash
# Reproduces: docs/accuracy.md ("Re-running it" lists the stages): the recorded sanitizer reports in tests/sanitizer
# (probe), the 20 seeds (stability), the audit (audit); its tests and cupti stages are also gpu_check.sh's tests and
# fidelity.
# Issue 39 on a GPU, in one go: exact references, stable verdicts, races named, times anchored to CUPTI.
#
#   bash scripts/exact39_gpu.sh LEETGPU_CHALLENGES [STAGE ...]
#
# LEETGPU_CHALLENGES: a checkout's challenges/ folder (github.com/AlphaGPU/leetgpu-challenges; never committed
# here).  STAGES (default: all, in this order):
#   probe      compute-sanitizer and torch's switches on this machine; `judge run --sanitize` on the racy and
#              out-of-bounds test solutions, their raw reports kept (tests/sanitizer/recorded_* come from here)
#   tests      pytest -m gpu tests/test_exact_gpu.py (exact conv accepted, --sanitize, CUPTI on the same calls)
#   cupti      scripts/cupti_anchor.py: the shipped examples, CUPTI vs the judge vs do_bench
#   stability  scripts/stability_gpu.py: honest blocked fp32 solutions over $SEEDS (20) seeds ($RUNS, 3, judged end
#              to end), on LeetGPU's challenges and tests/leetgpu/precision's tree-ordered scan
#   audit      scripts/reference_audit.py: every LeetGPU challenge and built-in spec, default/exact/float64
# Results go to $OUT (default ./exact39-out): run.log (everything printed), the scripts' .md and .json files,
# sanitizer_raw.txt.
set -u
L=${1:?usage: bash scripts/exact39_gpu.sh LEETGPU_CHALLENGES [STAGE ...]}
shift
STAGES=${*:-probe tests cupti stability audit}
OUT=${OUT:-./exact39-out}
. scripts/gpu_setup.sh > "$OUT.setup.log" 2>&1  # the judge installed editable, the sandbox's wheels from .whl
mkdir -p "$OUT"
mv "$OUT.setup.log" "$OUT/run.log"
export JUDGE_SERVER=0
PY=${PYTHON:-python3}
LOG="$OUT/run.log"

stage() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }

for s in $STAGES; do
  case $s in
    probe)
      stage probe
      { command -v compute-sanitizer; compute-sanitizer --version; command -v nvcc; nvidia-smi -L
        $PY -c "import torch, triton; print(torch.__version__, triton.__version__, torch.cuda.get_device_name(),
              'cudnn.allow_tf32', torch.backends.cudnn.allow_tf32, 'matmul.allow_tf32', torch.backends.cuda.matmul.allow_tf32,
              'precision', torch.get_float32_matmul_precision())"
      } >> "$LOG" 2>&1
      export JUDGE_SANITIZER_KEEP="$OUT/raw"
      for job in "matmul tests/solutions/matmul_racy.cu racecheck memcheck" \
                 "copy tests/solutions/copy_reads_past.cu memcheck initcheck" \
                 "vector_add tests/solutions/vector_add_unmasked.py memcheck synccheck"; do
        set -- $job
        echo "--- judge run $1 $2 --sanitize-tool $3 --sanitize-tool $4" >> "$LOG"
        timeout 150 $PY -m judge run "$1" "$2" --sanitize-tool "$3" --sanitize-tool "$4" --no-bench --seed 1 \
          --no-history >> "$LOG" 2>&1
        echo "exit $?" >> "$LOG"
      done
      unset JUDGE_SANITIZER_KEEP
      for f in "$OUT"/raw/*.txt; do [ -e "$f" ] && { echo "##### $(basename "$f")"; cat "$f"; }; done > "$OUT/sanitizer_raw.txt"
      rm -rf "$OUT/raw" ;;
    tests)
      stage tests
      timeout 400 $PY -m pytest -m gpu -q -p no:cacheprovider tests/test_exact_gpu.py >> "$LOG" 2>&1; echo "exit $?" >> "$LOG" ;;
    cupti)
      stage cupti
      timeout 400 $PY scripts/cupti_anchor.py --out "$OUT" ${CUPTI_ARGS:-} >> "$LOG" 2>&1; echo "exit $?" >> "$LOG" ;;
    stability)
      stage stability
      timeout 500 $PY scripts/stability_gpu.py "$L" tests/leetgpu/precision --seeds ${SEEDS:-20} --runs ${RUNS:-3} \
        --out "$OUT" >> "$LOG" 2>&1; echo "exit $?" >> "$LOG" ;;
    audit)
      stage audit
      timeout 500 $PY scripts/reference_audit.py "$L" --out "$OUT" >> "$LOG" 2>&1; echo "exit $?" >> "$LOG" ;;
    *) echo "unknown stage $s" | tee -a "$LOG" ;;
  esac
done
stage done
tail -c 4000 "$LOG"
