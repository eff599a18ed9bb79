#!/usr/bin/env bash
# One device call of this session's GPU checks; results packed into $OUT/<part>.tar.gz
# (the device returns at most 8 files).
#   bash research/gpu_session.sh check     GPU tests, new challenges, copy and matmul sweeps
#   bash research/gpu_session.sh results   rank progressions (docs/results.md), rank demo, README run, grade
#   bash research/gpu_session.sh verify    launch-bound timing probe, every GPU test, challenges part 2
#   bash research/gpu_session.sh diag      launch-bound diagnosis with SM clocks (twice), every GPU test
#   bash research/gpu_session.sh fix       launch exposure probe, tiny diag, transfer probe, timing proof, tiny run
#   bash research/gpu_session.sh final     overhead of one judge run (fresh cache, per-case phases), every GPU test
#   bash research/gpu_session.sh proof     timing proof (fidelity, CUPTI, overhead), a launch-bound case end to end
#   bash research/gpu_session.sh area      transfer probe, then as early
#   bash research/gpu_session.sh early     overhead three times (fresh cache, then cached twice), every GPU test
#   bash research/gpu_session.sh shadow    guard-shadow cheat probe, every GPU test, quick timing proof (with overhead)
#   bash research/gpu_session.sh cover     the guard kernel's probe (does it hold every SM?), every GPU test
#   bash research/gpu_session.sh guard     the guard kernel's probe, guard-shadow cheats, every GPU test
#   bash research/gpu_session.sh barrier   the guard kernel's probe, guard-shadow cheats, a few GPU tests (short of time)
#   bash research/gpu_session.sh proof2    the guard kernel's probe, guard-shadow cheats, quick timing proof
#   bash research/gpu_session.sh startup   the judge's own overhead (judge_overhead.py), the deadline and baseline GPU tests
#   bash research/gpu_session.sh served    a served run's time marks (served_trace.sh), the server's and judge ui's GPU tests, ui Submits
#   bash research/gpu_session.sh warm29    the warm run of this tree and of one carried as .old/before29, alternating; ui Submits; served runs
#   bash research/gpu_session.sh tests29   the server's, judge ui's and the worker isolation GPU tests
#   bash research/gpu_session.sh ui        judge ui's Submit eight times through the warm server (scripts/ui_gpu.py)
#   bash research/gpu_session.sh poison    inputs poisoned during the guard's spin: the red team's cheat, four honest
#                                          solutions and the quick timing proof, before (.old/prepoison) and after
# The parts from served on need the extras' wheels carried in .whl (flask, nh3, the sandbox's: scripts/gpu_setup.sh).
set -u
export PYTHONUNBUFFERED=1
FINAL_OUT=${OUT:-/tmp/out}
export OUT=/tmp/session-out; rm -rf "$OUT"; mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
part() {  # part NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  echo "=== $name (limit ${limit} s)"
  SECONDS=0
  timeout -k 10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "--- $name exit $? in ${SECONDS} s"
  tail -${TAIL:-12} "$OUT/$name.log"
  (cd "$OUT" && tar czf "$FINAL_OUT/$PART.tar.gz" --exclude='*.db' .)  # after every part: a cut-off call keeps what ran
}
wheels() {  # the wheels carried in .whl, installed as the GPU check scripts install them
  source scripts/gpu_setup.sh > /dev/null 2>&1
  export PYTHONPATH=$PWD:/tmp/site
}
ui_runs() {  # scripts/ui_gpu.py's lines (one JSON document per Submit) as wall, worker, verdict, medians, flags
  python3 -c "
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    print(r['wall_s'], r['worker'], r['verdict'], [round(m, 4) for m in r['medians_ms']], r['flags'], r['phases_s'].get('start_worker'))" "$1"
}
PART=${1:-check}
case "${1:-check}" in
check)
  part matmul_sweep 200 python3 research/matmul_sweep.py --budget 185
  part copy_sweep 45 python3 research/copy_sweep.py
  part gpu_tests 200 python3 -m pytest -m gpu tests -q -p no:cacheprovider -k "not examples_are_accepted"
  CHALLENGE_ARGS="--seed 1 --bench-budget 0.5" part challenges 120 bash scripts/challenges_gpu.sh
  ;;
results)
  export JUDGE_DATA_DIR="$OUT/judge-data"
  part results 300 bash scripts/results.sh
  part readme_run 45 env NO_COLOR=1 judge run transpose solutions/transpose/tuned.py --seed 1
  part readme_run_cached 45 judge run transpose solutions/transpose/tuned.py --seed 2 --json
  part sweep 70 judge sweep transpose solutions/transpose/tiled.py solutions/transpose/tuned.py \
    --sizes 512,1024,2048,4096,8192 --budget 6 --seed 1 --plot "$OUT/sweep.png"
  part leaderboard 20 judge leaderboard transpose
  CHALLENGE_ARGS="--seed 1 --bench-budget 0.5" part challenges2 100 bash scripts/challenges_gpu.sh part2
  ;;
verify)
  part probe 90 python3 research/launch_bound_probe.py --out "$OUT"
  part gpu_tests 330 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  CHALLENGE_ARGS="--seed 1 --bench-budget 0.5" part challenges2 150 bash scripts/challenges_gpu.sh part2
  ;;
diag)
  nvidia-smi -q -d PERFORMANCE,CLOCK > "$OUT/smi_before.txt" 2>&1
  part tiny_diag 150 bash -c 'python3 research/tiny_diag.py && python3 research/tiny_diag.py'
  nvidia-smi -q -d PERFORMANCE,CLOCK > "$OUT/smi_after.txt" 2>&1
  part gpu_tests 400 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  ;;
final)
  JUDGE_CACHE_DIR="$OUT/judge-cache" part overhead 80 python3 scripts/timing_proof.py --overhead-only
  part gpu_tests 420 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  ;;
area)
  part transfer 60 python3 research/transfer_probe.py
  ;&
early)
  export JUDGE_CACHE_DIR="$OUT/judge-cache"
  part overhead 80 python3 scripts/timing_proof.py --overhead-only
  part overhead_cached 60 python3 scripts/timing_proof.py --overhead-only
  part overhead_cached2 60 python3 scripts/timing_proof.py --overhead-only
  part gpu_tests 380 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  ;;
cover)
  part cover_probe 120 python3 research/cover_probe.py
  part gpu_tests 360 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  ;;
guard)
  export JUDGE_CACHE_DIR="$OUT/judge-cache"
  part cover_probe 60 python3 research/cover_probe.py
  part shadow_probe 120 python3 research/guard_shadow_probe.py
  part gpu_tests 380 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  ;;
barrier)
  export JUDGE_CACHE_DIR="$OUT/judge-cache"
  part cover_probe 30 python3 research/cover_probe.py
  part shadow_probe 70 python3 research/guard_shadow_probe.py
  part gpu_tests 120 python3 -m pytest -m gpu tests -q -p no:cacheprovider -k "benchmark_reports or unjoined or wrong_result_while_timed"
  ;;
proof2)
  export JUDGE_CACHE_DIR="$OUT/judge-cache"
  part cover_probe 60 python3 research/cover_probe.py
  part shadow_probe 120 python3 research/guard_shadow_probe.py
  part timing_proof 240 python3 scripts/timing_proof.py --quick --out "$OUT"
  ;;
shadow)
  export JUDGE_CACHE_DIR="$OUT/judge-cache"
  part shadow_probe 70 python3 research/guard_shadow_probe.py
  part gpu_tests 330 python3 -m pytest -m gpu tests -q -p no:cacheprovider
  part timing_proof 150 python3 scripts/timing_proof.py --quick --out "$OUT"
  ;;
fix)
  part lead_probe 70 python3 research/lead_probe.py --rounds 4 --calls 3000
  part tiny_diag 60 python3 research/tiny_diag.py
  part transfer 40 python3 research/transfer_probe.py
  ;&
proof)
  export JUDGE_CACHE_DIR="$OUT/judge-cache"  # a fresh cache: the peaks (and timer floor) are measured
  part timing_proof 330 python3 scripts/timing_proof.py --out "$OUT"
  # transpose with one launch-bound benchmark case, to see its report end to end
  python3 -c "import sys; sys.path.insert(0, 'research'); from tiny_diag import spec_text
open(sys.argv[1], 'w').write(spec_text(8192))" "$OUT/transpose_tiny.yaml"
  part tiny_run 60 env NO_COLOR=1 COLUMNS=120 judge run "$OUT/transpose_tiny.yaml" solutions/transpose/tuned.py --seed 1
  ;;
startup)
  part overhead 480 python3 scripts/judge_overhead.py --out "$OUT/overhead.json"
  part startup_tests 200 python3 -m pytest -m gpu tests/test_gpu.py -q -p no:cacheprovider \
    -k "baseline or hang_in_the_first_call or slow_compile"
  ;;
served)  # issues 29 and 30, 2026-11-26
  wheels
  part served_trace 300 bash research/served_trace.sh
  part ui_server_tests 240 python3 -m pytest -q -m gpu tests/test_ui_gpu.py tests/test_server_gpu.py -p no:randomly -s
  part ui_submits 120 python3 scripts/ui_gpu.py --out "$OUT/ui_gpu.json"
  ;;
warm29)  # issue 29's warm run before (28d079f, carried as .old/before29) and after, alternating on one machine
  wheels
  for round in 1 2; do
    for tree in before after; do
      repo=$PWD; [ $tree = before ] && repo=$PWD/.old/before29
      part overhead_${tree}_$round 150 python3 scripts/judge_overhead.py --repo "$repo" --mode gpu --only warm-run \
        --repeat 3 --out "$OUT/overhead_${tree}_$round.json"
    done
  done
  part ui_submits 200 python3 scripts/ui_gpu.py --repeat 8 --out "$OUT/ui_gpu.json"
  ui_runs "$OUT/ui_submits.log"
  # served judge runs with each benchmark's notes (a host-clock flag on a correct kernel was seen once in judge ui)
  W=$(mktemp -d)  # not under $OUT: the server's socket and caches are not results
  part served_runs 200 env JUDGE_CACHE_DIR="$W/cache" JUDGE_DATA_DIR="$W/data" NO_COLOR=1 bash -c '
    for i in 1 2 3 4 5 6 7 8; do
      python3 -m judge run transpose solutions/transpose/tuned.py --json 2>/dev/null | python3 -c "
import json, sys; d = json.load(sys.stdin)
print(\"served run\", d[\"verdict\"], [(b[\"name\"], round(b[\"median_ms\"], 4), bool(b[\"notes\"])) for b in d[\"benchmarks\"]])"
    done
    python3 -m judge server stop --all'
  ;;
tests29)  # the forked worker changed (a frozen heap): the worker isolation tests beside the server's and judge ui's
  wheels
  part gpu_tests 420 python3 -m pytest -q -m gpu tests/test_server_gpu.py tests/test_ui_gpu.py tests/test_gpu_isolation.py \
    -p no:randomly -s
  ;;
ui)
  wheels
  part ui_submits 250 python3 scripts/ui_gpu.py --repeat 8 --out "$OUT/ui_gpu.json"
  ui_runs "$OUT/ui_submits.log"
  ;;
poison)  # the tree before the change carried as .old/prepoison (git archive OLD | tar -x -C .old/prepoison)
  wheels
  export JUDGE_SERVER=0 NO_COLOR=1
  part guard_tests 200 python3 -m pytest -q -m gpu tests/test_gpu.py -p no:randomly -s -rA \
    -k "host_work_and_copies or shadow or two_phase"
  for round in 1 2; do
    for tree in .old/prepoison .; do
      for job in "softmax softmax/split.py" "vector_add vector_add/blocked.py" "reduce_sum reduce_sum/two_pass.py" \
                 "matvec matvec/row_blocks.py"; do
        set -- $job
        (cd $tree && PYTHONPATH=$PWD:/tmp/site python3 -m judge run $1 $OLDPWD/solutions/$2 --seed 1 --json 2>/dev/null) |
          python3 -c "
import json, sys; d = json.load(sys.stdin)
print('$tree'.ljust(16), '$1'.ljust(11), d['verdict'], [(b['name'], round(b['median_ms'], 5), b['calls']) for b in d['benchmarks']])"
      done
    done
  done
  part proof 300 bash research/proof_two_trees.sh .old/prepoison . 1
  ;;
esac
ls -la "$FINAL_OUT"
