#!/usr/bin/env bash
# Reproduces: docs/kernelbench.md, "Seen on a GPU" and "Numbers beside the paper's"; its judged runs are also
# `gpu_check.sh kernelbench`, the baselines only here.
# KernelBench on a GPU, in one go (docs/kernelbench.md): the GPU tests, a handful of level-1 problems judged with
# the Triton and CUDA (load_inline) solutions of solutions/kernelbench (timed, with torch eager's baseline), and
# the torch-eager baseline of every level-1 problem beside KernelBench's published H100 times.
#
#   JUDGE_KERNELBENCH=path/to/KernelBench-checkout bash scripts/kernelbench_gpu.sh
#
# Knobs: OUT (the results' folder), KB_PROBLEMS (the judged problems), KB_ONLY (a regular expression: the
# baselines' problems; empty: all of the level), KB_LEVEL (1), KB_TESTS=0 (skip pytest), KB_COMPILE=1 (also time
# torch.compile for the judged problems), KB_PYTEST_K (pytest's -k), KB_BUDGET and KB_TRIALS (the baselines'
# --budget and --kb-trials).  Writes at most 6 files into OUT.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kernelbench-gpu}
KB=${JUDGE_KERNELBENCH:-.kernelbench}
LEVEL=${KB_LEVEL:-1}
PROBLEMS=${KB_PROBLEMS-"19_ReLU 1_Square_matrix_multiplication_ 88_MinGPTNewGelu 95_CrossEntropyLoss"}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export JUDGE_SERVER=0 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" JUDGE_KERNELBENCH="$KB"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  $PY -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
  command -v nvcc ninja; nvcc --version | tail -2
} > "$OUT/environment.txt" 2>&1

if [ "${KB_TESTS:-1}" != 0 ]; then
  $PY -m pytest -q -m gpu tests/test_kernelbench_gpu.py -p no:cacheprovider ${KB_PYTEST_K:+-k "$KB_PYTEST_K"} \
    > "$OUT/pytest.log" 2>&1
  echo "pytest exit $?" >> "$OUT/pytest.log"
fi

: > "$OUT/runs.jsonl"
for problem in $PROBLEMS; do
  for language in triton cuda; do
    solution=solutions/kernelbench/${problem}_${language}.py
    [ -f "$solution" ] || continue
    started=$(date +%s.%N)
    extra=""; [ "${KB_COMPILE:-0}" = 1 ] && extra="--torch-compile"
    $PY -m judge run "$KB/KernelBench/level$LEVEL/$problem.py" "$solution" --seed 1 --json --no-history $extra \
      > "$OUT/run.json" 2> "$OUT/run.err"
    code=$?
    $PY - "$OUT/run.json" "$OUT/run.err" "$problem" "$language" "$code" "$started" >> "$OUT/runs.jsonl" <<'PY'
import json, sys, time
path, err, problem, language, code, started = sys.argv[1:]
try:
    doc = json.load(open(path))
except ValueError:
    doc = {"verdict": "no JSON", "message": open(err).read()[-2000:]}
bench = (doc.get("benchmarks") or [{}])[0]
keep = {k: bench.get(k) for k in ("median_ms", "ci_low_ms", "ci_high_ms", "calls", "verified_calls", "disagreeing_calls",
                                  "torch_median_ms", "speedup_vs_torch", "torch_compile_median_ms",
                                  "speedup_vs_torch_compile", "gbps", "pct_of_peak")}
print(json.dumps({"problem": problem, "language": language, "exit": int(code), "verdict": doc.get("verdict"),
                  "message": (doc.get("message") or "")[:300], "wall_s": round(time.time() - float(started), 1),
                  "phases_s": doc.get("phases_s"), "notes": doc.get("notes"), **keep}))
PY
  done
done
rm -f "$OUT/run.json" "$OUT/run.err"

$PY scripts/kernelbench_baselines.py "$KB" --level "$LEVEL" ${KB_ONLY:+--only "$KB_ONLY"} \
  --budget "${KB_BUDGET:-1.0}" --kb-trials "${KB_TRIALS:-20}" \
  --json "$OUT/baselines.json" --markdown "$OUT/baselines.md" > "$OUT/baselines.log" 2>&1
echo "baselines exit $?" >> "$OUT/baselines.log"
