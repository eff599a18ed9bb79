#!/usr/bin/env bash
# Reproduces: docs/grading.md, "A grade cut by SIGTERM and resumed".
# A grade under load, interrupted and resumed (issue 18): N submissions (right, wrong,
# crashing, hanging, faulting) graded once without interruption, then again killed
# with SIGTERM half-way (by the first grade's wall time) and finished with --resume.
# scripts/grade_once_check.py then checks that every submission is graded exactly
# once in the final JSON and JUnit, none lost, none twice, with the verdicts of the
# uninterrupted grade.
#   OUT=/tmp/out bash scripts/grade_under_load.sh              GPU: --gpus all, 40 submissions
#   OUT=/tmp/out MODE=cpu N=12 bash scripts/grade_under_load.sh  CPU mode: --interpret --jobs 2
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
MODE=${MODE:-gpu}; N=${N:-40}
WORK=$(mktemp -d); SUBS="$WORK/subs"
export JUDGE_DATA_DIR="$WORK/judge-data"
S=tests/solutions; E=solutions/transpose
KINDS=("$E/tuned.py" "$E/tiled.py" "$S/transpose_wrong_value.py" "$S/transpose_crash.py"
       "$S/transpose_hang.py" "$S/transpose_segfault.py" "$S/transpose_wrong_edge.py" "$S/transpose_ok.py")
[ "$MODE" = gpu ] && KINDS+=("$S/transpose_illegal_address.py" "$S/hostile_device_loop.py")
for i in $(seq -w 1 "$N"); do
  mkdir -p "$SUBS/s$i"; cp "${KINDS[$(( 10#$i % ${#KINDS[@]} ))]}" "$SUBS/s$i/transpose.py"
done
if [ "$MODE" = gpu ]; then PAR=(--gpus all --bench-budget 0.3); else PAR=(--interpret --jobs 2); fi
COMMON=(--dir "$SUBS" --seed 7 --timeout 5 "${PAR[@]}")

SECONDS=0
judge grade "${COMMON[@]}" --json "$OUT/load_full.json" --junit "$OUT/load_full.xml" > "$OUT/load_full.log" 2>&1
FULL_EXIT=$?; FULL=$SECONDS; echo "uninterrupted: ${FULL} s, exit $FULL_EXIT"

HALF=$(( FULL / 2 > 1 ? FULL / 2 : 1 ))
SECONDS=0
judge grade "${COMMON[@]}" --json "$OUT/load_cut.json" --junit "$OUT/load_cut.xml" > "$OUT/load_cut.log" 2>&1 &
PID=$!; sleep "$HALF"; kill -TERM "$PID"; wait "$PID"; CUT_EXIT=$?
echo "interrupted after ${HALF} s (SIGTERM), exit $CUT_EXIT, stopped after ${SECONDS} s"
python3 -c "import json,sys; d=json.load(open('$OUT/load_cut.json')); print('graded before the cut:', sum(r['verdict'] != 'pending' for r in d['results']), 'of', len(d['results']))"
SECONDS=0
judge grade "${COMMON[@]}" --resume --json "$OUT/load_cut.json" --junit "$OUT/load_cut.xml" > "$OUT/load_resume.log" 2>&1
RESUME_EXIT=$?; echo "resumed: ${SECONDS} s, exit $RESUME_EXIT"
python3 scripts/grade_once_check.py "$OUT/load_full.json" "$OUT/load_full.xml" "$OUT/load_cut.json" "$OUT/load_cut.xml"
