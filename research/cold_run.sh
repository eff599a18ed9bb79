#!/usr/bin/env bash
# Where the first `judge run` on a fresh GPU machine spends its seconds (issue 16): the same
# cold run (empty judge and Triton caches) three ways, each in fresh folders:
#   A  everything fresh, as scripts/judge_overhead.py measures it (twice);
#   B  fresh, but with the bytecode A's first run left (judge/base/bytecode.py): what the
#      bytecode costs a cold run when Python may not write it beside the sources;
#   C  fresh, after `python -m compileall -j 0` of torch and triton into the bytecode
#      folder, timed on its own: what compiling all of it in parallel costs.
#   OUT=/tmp/out bash research/cold_run.sh
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=$(mktemp -d)
export JUDGE_DATA_DIR=$WORK/data NO_COLOR=1 JUDGE_SERVER=0
SOL=solutions/transpose/tuned.py
now() { date +%s.%N; }
PYTHONDONTWRITEBYTECODE=1 python3 -c "import torch, triton"  # the file cache, not the disk
python3 -c "import sys; print('dont_write_bytecode', sys.dont_write_bytecode, 'cpus', __import__('os').cpu_count())"
cold() {  # NAME: one judge run in $WORK/NAME's caches
  local start; start=$(now)
  JUDGE_CACHE_DIR=$WORK/$1/judge TRITON_CACHE_DIR=$WORK/$1/triton \
    python3 -m judge run transpose "$SOL" --seed 1 --json > "$WORK/$1.json"
  echo "$1: exit $?, wall $(python3 -c "print(round($(now) - $start, 2))") s, phases" \
    "$(python3 -c "import json; print({k: round(v, 2) for k, v in json.load(open('$WORK/$1.json'))['phases_s'].items()})")"
}
cold A1
cold A2
mkdir -p "$WORK/B/judge" && cp -r "$WORK/A1/judge/pycache" "$WORK/B/judge/"
cold B
echo "bytecode files left by A1: $(find "$WORK/A1/judge/pycache" -name '*.pyc' | wc -l)"
SITE=$(python3 -c "import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))")
echo "py files: torch $(find "$SITE/torch" -name '*.py' | wc -l), triton $(find "$SITE/triton" -name '*.py' | wc -l)"
mkdir -p "$WORK/C/judge/pycache" && chmod 700 "$WORK/C/judge" "$WORK/C/judge/pycache"
start=$(now)
PYTHONPYCACHEPREFIX=$WORK/C/judge/pycache python3 -m compileall -q -j 0 "$SITE/torch" "$SITE/triton" > /dev/null 2>&1
echo "compileall -j 0 torch triton: exit $?, wall $(python3 -c "print(round($(now) - $start, 2))") s," \
  "$(find "$WORK/C/judge/pycache" -name '*.pyc' | wc -l) files"
cold C
start=$(now)
JUDGE_CACHE_DIR=$WORK/B/judge python3 -c "
import judge.base.bytecode as b, sys; b.keep_bytecode(); import torch, triton" ; echo "import torch, triton with B's bytecode: $(python3 -c "print(round($(now) - $start, 2))") s"
start=$(now)
PYTHONDONTWRITEBYTECODE=1 python3 -c "import torch, triton"; echo "import torch, triton without bytecode: $(python3 -c "print(round($(now) - $start, 2))") s"
