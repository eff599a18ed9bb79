#!/usr/bin/env bash
# Reproduces: docs/benchmarks.md, "The served run's last tenths" (the user of JUDGE_TRACE, judge/base/trace.py;
# docs/server.md).
# Where a served warm run's seconds go outside judging (issue 29), on a GPU machine: judge_overhead's
# warm-run table, then five served and two plain runs of the tuned transpose with time marks
# (JUDGE_TRACE, judge/base/trace.py) from the client, the server, the forked command and worker.
#   OUT=/tmp/out bash scripts/served_trace.sh
set -u
source scripts/gpu_setup.sh
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
unset JUDGE_TRACE
python3 scripts/judge_overhead.py --mode gpu --only warm-run --repeat 5 --out $OUT/overhead.json > $OUT/overhead.md 2>&1
tail -12 $OUT/overhead.md
W=$(mktemp -d); export JUDGE_CACHE_DIR=$W/cache JUDGE_DATA_DIR=$W/data TRITON_CACHE_DIR=$W/triton NO_COLOR=1
python3 -m judge run transpose solutions/transpose/tuned.py --seed 1 --json > /dev/null 2>&1  # cold; starts a server
sleep 8
export JUDGE_TRACE=$OUT/marks
run() {  # label, then the environment's additions
  local label=$1; shift
  s=$(date +%s.%N); echo "---- $s start $label" >> $JUDGE_TRACE
  env "$@" python3 -m judge run transpose solutions/transpose/tuned.py --seed 1 --json > $W/run.json 2>>$OUT/trace.err
  e=$(date +%s.%N); echo "---- $e end $label" >> $JUDGE_TRACE
  python3 -c "import json; d=json.load(open('$W/run.json')); print('$label', d['verdict'], d['phases_s'])" >> $OUT/phases.txt
}
for i in 1 2 3 4 5; do run served$i; done
for i in 1 2; do run alone$i JUDGE_SERVER=0; done
python3 -m judge server stop --all > /dev/null 2>&1
python3 scripts/marks_summary.py $JUDGE_TRACE | tee $OUT/marks.txt
cat $OUT/phases.txt
