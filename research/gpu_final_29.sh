#!/usr/bin/env bash
# Issue 29's warm run, before (this session's start, 28d079f, carried as .old/before29) and after (this tree),
# alternating on one machine; then judge ui's Submit and served judge runs, each benchmark's notes kept
# (a host-clock flag on a correct kernel was seen once in judge ui's fourth Submit).
set -u
source scripts/gpu_setup.sh > /dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site
for round in 1 2; do
  for tree in before after; do
    repo=$PWD; [ $tree = before ] && repo=$PWD/.old/before29
    python3 scripts/judge_overhead.py --repo $repo --mode gpu --only warm-run --repeat 3 --out $OUT/overhead_${tree}_$round.json > /dev/null 2>&1
    echo "== $tree round $round"; python3 -c "import json; print(json.load(open('$OUT/overhead_${tree}_$round.json'))['table'])" | grep -E "run warm|first"
  done
done
timeout 200 python3 scripts/ui_gpu.py --repeat 8 --out $OUT/ui_gpu.json 2>&1 | grep -v "^127.0.0.1\|started a judge" | cut -c1-160
python3 -c "
import json; d = json.load(open('$OUT/ui_gpu.json'))
print('ui notes per run:', [r.get('flags') for r in d['runs']])"
W=$(mktemp -d); export JUDGE_CACHE_DIR=$W/cache JUDGE_DATA_DIR=$W/data NO_COLOR=1
for i in 1 2 3 4 5 6 7 8; do
  python3 -m judge run transpose solutions/transpose/tuned.py --json 2>/dev/null > $W/r.json
  python3 -c "
import json; d = json.load(open('$W/r.json'))
print('served run $i', d['verdict'], [(b['name'], round(b['median_ms'], 4), bool(b['notes'])) for b in d['benchmarks']])"
done
python3 -m judge server stop --all > /dev/null 2>&1
