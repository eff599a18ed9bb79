#!/usr/bin/env bash
# Reproduces: docs/grading.md, "Measured" (serial, pool, Dask local and scheduler, the rehearsal) and "Where the time
# went".
# judge grade on Dask, on the 2-GPU machine: 16 submissions (those of
# scripts/grade_gpu.sh but for matmul/tf32x3.py, a second ~50 s autotuning that
# would take the whole script past 9 minutes, and with tests/solutions/
# transpose_wrong_edge.py: the example solutions and some of tests/solutions,
# correct, wrong and crashing), graded three ways with the same seed:
#
#   serial      judge grade --gpus 0                          one GPU, the thread-pool path
#   local       judge grade --cluster local                   a Dask cluster started by judge, one worker per GPU
#   scheduler   judge grade --cluster tcp://127.0.0.1:8786    a `dask scheduler` and two `dask worker
#                                                             --resources GPU=1 --preload judge.grading.preload`
#                                                             started by hand, each pinned to one GPU (the
#                                                             multi-host path, on one host)
#
# then compares the verdicts (and every case's), prints wall times and speedups,
# and where each run's time went (scripts/grade_timeline.py): when the grading
# process was ready, when the first task started, per worker its busy and idle
# time, the gaps between its tasks, its first task's overhead against serial,
# and the median slowdown of the later tasks against serial.
#
#   bash scripts/grade_cluster_gpu.sh all       setup serial cluster compare, in one call (about 7 minutes)
#   bash scripts/grade_cluster_gpu.sh PART...   the parts named, in order (the machine keeps $GRADE_WORK
#                                               between calls while warm): setup, serial, pool (the
#                                               thread pool on GPUs 0 and 1, --gpus 0,1: the speed the
#                                               cluster should match), local, scheduler, cluster (local
#                                               then scheduler), rehearsal, compare
#
# rehearsal: several hosts on one.  A scheduler and two `judge worker` processes, each pinned to one GPU
# and in its own session; KILL_AFTER seconds (25) into the grade the second "host" is killed whole
# (kill -9 of its session: the judge worker, its nanny's Dask worker, the judge's worker processes).
# Its running task must run again on the other worker: every submission exactly once in the JSON and
# the JUnit, verdicts and per-case verdicts identical to the serial run's (scripts/grade_rehearsal_check.py).
#
# While each grade runs, vmstat (the host's CPU) and nvidia-smi dmon (each GPU's use, power and
# clocks) write every 2 s to $OUT/cluster_NAME.vmstat|dmon.
#
# Dask is not in the GPU image: the wheels in .whl/ (carried from the checkout)
# are installed into /tmp/site first.  Each run gets an empty Triton cache and
# an empty torch-baseline cache (each run times the three challenges' baselines,
# the parallel ones sharing them through the cache's lock); the device's peaks
# are measured once, before all.  The manifest lists the long autotuned matmul
# (~50 s) first, so that a parallel grade does not end on it alone.  Results:
# $OUT/cluster_*.json|log|wall, $OUT/cluster_summary.json, $OUT/cluster_timeline.json.
#
# GRADE_CPU=1 runs the same on a machine without a GPU, in CPU mode (six
# tiny_transpose submissions, two CPU workers): a check of this script, not a
# measurement of speed.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=${GRADE_WORK:-/tmp/judge-grade-cluster}; mkdir -p "$WORK"
ARGS=${GRADE_ARGS:---bench-budget 0.5}
LIMIT=${GRADE_LIMIT:-300}  # seconds per run; judge grade then stops (SIGTERM) and keeps what it graded
PORT=${DASK_PORT:-8786}
export JUDGE_CACHE_DIR="$WORK/judge-cache" JUDGE_DATA_DIR="$WORK/judge-data"
export DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1  # as --cluster local: one retry when a worker dies
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}  # the Dask wheels (setup installs them there)
CPU=${GRADE_CPU:-0}
if [ "$CPU" = 1 ]; then
  MODE=(--interpret); SERIAL=(--interpret); LOCAL=(--jobs 2); POOL=(--interpret --jobs 2); WORKER_GPUS="cpu0 cpu1"
  export JUDGE_CHALLENGES_PATH=$PWD/tests/specs
else
  MODE=(); SERIAL=(--gpus 0); LOCAL=(); POOL=(--gpus 0,1); WORKER_GPUS="0 1"
fi

setup() {
  if ! python3 -c "import distributed" 2>/dev/null; then  # once per machine
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
      2>&1 | grep -v WARNING | tail -3
  fi
  python3 -c "import dask, distributed, torch; print('dask', dask.__version__, '· distributed', distributed.__version__, '· torch', torch.__version__, '· GPUs', torch.cuda.device_count())" || exit 3
  if [ "$CPU" != 1 ]; then
    python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING | tail -2
    nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
  fi
  if [ "$CPU" = 1 ]; then  # the manifest, the long matmuls first (scripts/grade_manifest.py)
    python3 scripts/grade_manifest.py "$WORK" "tiny_transpose=tests/solutions/transpose_ok.py,tests/solutions/transpose_wrong_value.py,tests/solutions/transpose_crash.py,tests/solutions/transpose_autotuned.py,tests/solutions/transpose_wrong_edge.py,solutions/transpose/tiled.py"
  else
    python3 scripts/grade_manifest.py "$WORK" \
      "matmul=solutions/matmul/grouped_autotuned.py,solutions/matmul/tiled.py,tests/solutions/matmul_torch.py,tests/solutions/matmul_zeros.py" \
      "transpose=solutions/transpose/naive_1d.py,solutions/transpose/naive_2d.py,solutions/transpose/tiled.py,solutions/transpose/tuned.py,tests/solutions/transpose_ok.py,tests/solutions/transpose_autotuned.py,tests/solutions/transpose_wrong_value.py,tests/solutions/transpose_wrong_edge.py,tests/solutions/transpose_crash.py,tests/solutions/transpose_illegal_address.py" \
      "copy=solutions/copy/naive.py,solutions/copy/tuned.py"
  fi
  if [ "$CPU" != 1 ] && [ ! -s "$JUDGE_CACHE_DIR/peaks.json" ]; then  # measure the peaks outside the timed runs
    judge run copy solutions/copy/tuned.py --seed 1 --bench-budget 0.2 --no-history > /dev/null
  fi
}

grade() {  # grade NAME OPTIONS...: one timed judge grade of the manifest, each output line timestamped
  local name=$1; shift
  rm -rf "$WORK/triton-$name"
  rm -f "$JUDGE_CACHE_DIR/baselines.json"  # each run times the torch baselines, as a fresh host would
  local start end status
  monitor_start "$name"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # GRADE_ARGS is a list of options
  TRITON_CACHE_DIR="$WORK/triton-$name" timeout -k 30 "$LIMIT" judge grade --manifest "$WORK/grading.yaml" "$@" \
    --seed 1 $ARGS --json "$WORK/cluster_$name.json" 2>&1 \
    | python3 -u scripts/grade_timeline.py stamp "$start" > "$WORK/cluster_$name.log"
  status=${PIPESTATUS[0]}
  end=$(date +%s.%N)
  monitor_stop
  python3 -c "import sys; print(f'{sys.argv[1]}: exit {sys.argv[2]}, wall {float(sys.argv[4]) - float(sys.argv[3]):.1f} s')" \
    "$name ($*)" "$status" "$start" "$end" | tee "$WORK/cluster_$name.wall"
  tail -1 "$WORK/cluster_$name.log"
}

monitor_start() {  # the host's CPU (vmstat) and, on GPUs, each GPU's use, power and clocks every 2 s
  vmstat -n -t 2 > "$WORK/cluster_$1.vmstat" 2>&1 &
  echo $! > "$WORK/monitor.pids"
  if [ "$CPU" != 1 ] && command -v nvidia-smi > /dev/null; then
    nvidia-smi dmon -s pucm -d 2 -o T > "$WORK/cluster_$1.dmon" 2>&1 &
    echo $! >> "$WORK/monitor.pids"
  fi
}

monitor_stop() {
  [ -f "$WORK/monitor.pids" ] && kill $(cat "$WORK/monitor.pids") 2>/dev/null
  rm -f "$WORK/monitor.pids"
}

start_scheduler() {  # a Dask scheduler on the loopback, as on a scheduler host
  python3 -m distributed.cli.dask_scheduler --host 127.0.0.1 --port "$PORT" --no-dashboard \
    > "$WORK/dask_scheduler.log" 2>&1 &
  echo $! > "$WORK/dask_scheduler.pid"
}

wait_for_two() {  # wait_for_two LABEL: until two workers joined the scheduler, then print their names
  python3 -c "
import sys
from distributed import Client
with Client('tcp://127.0.0.1:$PORT', timeout=60) as client:
    client.wait_for_workers(2, timeout=180)
    print(sys.argv[1], sorted(w['name'] for w in client.scheduler_info()['workers'].values()))
" "$1"
}

start_dask() {  # a scheduler and one worker per GPU, as on remote hosts; the workers get their own Triton cache
  rm -rf "$WORK/triton-scheduler"
  start_scheduler
  local gpu pinned options
  for gpu in $WORKER_GPUS; do
    if [ "$CPU" = 1 ]; then
      pinned=(); options=(--name "$gpu")
    else
      pinned=(CUDA_VISIBLE_DEVICES="$gpu"); options=(--resources GPU=1 --name "gpu$gpu")
    fi
    env "${pinned[@]}" TRITON_CACHE_DIR="$WORK/triton-scheduler" python3 -m distributed.cli.dask_worker \
      "tcp://127.0.0.1:$PORT" --nthreads 1 "${options[@]}" --preload judge.grading.preload --no-dashboard \
      > "$WORK/dask_worker_$gpu.log" 2>&1 &
    echo $! > "$WORK/dask_worker_$gpu.pid"
  done
  wait_for_two "dask workers up:" || { stop_dask; exit 3; }
  grep -h "judge preload" "$WORK"/dask_worker_*.log | sed 's/^.* - INFO - /  /'
}

stop_dask() {  # only the processes started above, by their ids
  for f in "$WORK"/dask_worker_*.pid "$WORK/dask_scheduler.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    rm -f "$f"
  done
  sleep 3
}

compare() {
  python3 - "$WORK" "$OUT/cluster_summary.json" <<'PY'
import json, sys
from pathlib import Path

work, summary_path = Path(sys.argv[1]), Path(sys.argv[2])
names = [n for n in ("serial", "pool", "local", "scheduler") if (work / f"cluster_{n}.json").exists()]
runs = {n: json.loads((work / f"cluster_{n}.json").read_text()) for n in names}
walls = {}
for n in names:
    line = (work / f"cluster_{n}.wall").read_text().strip()
    walls[n] = float(line.rsplit("wall ", 1)[1].split()[0])
    print(line)

def outcome(doc):
    return {(r["submission"], r["challenge"]): (r["verdict"], [(t["name"], t["verdict"]) for t in r.get("tests", [])])
            for r in doc["results"]}

summary = {"wall_s": walls, "submissions": {n: runs[n]["summary"]["total"] for n in names},
           "accepted": {n: runs[n]["summary"]["accepted"] for n in names},
           "complete": {n: runs[n]["complete"] for n in names}, "speedup": {}, "identical_to_serial": {}}
if "serial" in runs:
    serial = outcome(runs["serial"])
    for n in names[1:]:
        other = outcome(runs[n])
        differ = sorted(k for k in serial if serial[k] != other.get(k))
        summary["speedup"][n] = round(walls["serial"] / walls[n], 3)
        summary["identical_to_serial"][n] = not differ
        print(f"{n}: {summary['speedup'][n]:.2f}x the serial grade; verdicts and per-case verdicts identical: "
              f"{'yes' if not differ else 'NO: ' + repr(differ)}")
by = {n: {(r["submission"], r["challenge"]): r for r in runs[n]["results"]} for n in names}
print(f"{'submission':36} {'verdict':20} " + " ".join(f"{n + ' s':>11}" for n in names) + "  where (cluster runs)")
for key, r in by[names[0]].items():
    where = " ".join(f"{by[n][key].get('worker') or '-'}/GPU{'-' if by[n][key].get('gpu') is None else by[n][key]['gpu']}"
                     for n in names[1:])
    print(f"{key[0]:36} {r['verdict']:20} " + " ".join(f"{by[n][key].get('wall_s', 0):11.1f}" for n in names)
          + f"  {where}")
summary_path.write_text(json.dumps(summary, indent=2) + "\n")
print("summary:", json.dumps(summary))
PY
  echo "where the time went (scripts/grade_timeline.py; times in s from each run's start):"
  python3 scripts/grade_timeline.py report "$WORK" "$OUT/cluster_timeline.json" serial pool local scheduler rehearsal
}

copy_out() {  # one archive: the device tool brings back only a few files
  tar -C "$WORK" -czf "$OUT/cluster_results.tgz" $(cd "$WORK" && ls cluster_* dask_*.log judge_worker_*.log grading.yaml 2>/dev/null)
}

run_cluster() {
  grade local --cluster local "${MODE[@]}" "${LOCAL[@]}"
  start_dask
  grade scheduler --cluster "tcp://127.0.0.1:$PORT" "${MODE[@]}"
  stop_dask
}

rehearse() {  # several hosts on one: a scheduler, two `judge worker` processes (one GPU each), one killed mid-grade
  local kill_after=${KILL_AFTER:-25} name=rehearsal host options start end status
  rm -rf "$WORK/triton-$name" "$WORK"/judge_worker_*.log
  rm -f "$JUDGE_CACHE_DIR/baselines.json"
  start_scheduler
  for host in a b; do  # each in its own session: one kill takes the whole "host" (nanny, worker, judge's workers)
    if [ "$CPU" = 1 ]; then options=(--interpret --jobs 1); else options=(--gpus "$([ $host = a ] && echo 0 || echo 1)"); fi
    TRITON_CACHE_DIR="$WORK/triton-$name" setsid judge worker "tcp://127.0.0.1:$PORT" "${options[@]}" --name "host-$host" \
      > "$WORK/judge_worker_$host.log" 2>&1 &
    echo $! > "$WORK/judge_worker_$host.pid"
  done
  wait_for_two "judge workers up:" || { stop_rehearsal; exit 3; }
  monitor_start "$name"
  start=$(date +%s.%N)
  ( sleep "$kill_after"; victim=$(cat "$WORK/judge_worker_b.pid")
    kill -9 -- "-$victim"
    python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):8.3f} KILLED host-b: kill -9 of its session (judge worker {sys.argv[2]}, its Dask worker, the judge worker processes)')" "$start" "$victim"
  ) > "$WORK/cluster_$name.kill" &
  local killer=$!
  # shellcheck disable=SC2086  # GRADE_ARGS is a list of options
  TRITON_CACHE_DIR="$WORK/triton-$name" timeout -k 30 "$LIMIT" judge grade --manifest "$WORK/grading.yaml" \
    --cluster "tcp://127.0.0.1:$PORT" "${MODE[@]}" --seed 1 $ARGS --json "$WORK/cluster_$name.json" \
    --junit "$WORK/cluster_$name.xml" 2>&1 | python3 -u scripts/grade_timeline.py stamp "$start" > "$WORK/cluster_$name.log"
  status=${PIPESTATUS[0]}
  end=$(date +%s.%N)
  monitor_stop
  wait "$killer"
  python3 -c "import sys; print(f'{sys.argv[1]}: exit {sys.argv[2]}, wall {float(sys.argv[4]) - float(sys.argv[3]):.1f} s')" \
    "$name (scheduler + 2 judge workers, one killed after ${kill_after} s)" "$status" "$start" "$end" \
    | tee "$WORK/cluster_$name.wall"
  cat "$WORK/cluster_$name.kill"
  grep -E "left the cluster|joined \(" "$WORK/cluster_$name.log"
  stop_rehearsal
  python3 scripts/grade_rehearsal_check.py "$WORK"
}

stop_rehearsal() {  # only the processes started above: each judge worker's session, then the scheduler
  local f
  for f in "$WORK"/judge_worker_*.pid; do
    [ -f "$f" ] && kill -- "-$(cat "$f")" 2>/dev/null
    rm -f "$f"
  done
  [ -f "$WORK/dask_scheduler.pid" ] && kill "$(cat "$WORK/dask_scheduler.pid")" 2>/dev/null
  rm -f "$WORK/dask_scheduler.pid"
  sleep 3
}

run_scheduler() {
  start_dask
  grade scheduler --cluster "tcp://127.0.0.1:$PORT" "${MODE[@]}"
  stop_dask
}

[ $# -eq 0 ] && set -- all
for part in "$@"; do
  case $part in
    setup) setup ;;
    serial) grade serial "${SERIAL[@]}" ;;
    pool) grade pool "${POOL[@]}" ;;  # the thread pool on both GPUs: the speed a cluster should match
    local) grade local --cluster local "${MODE[@]}" "${LOCAL[@]}" ;;
    scheduler) run_scheduler ;;
    cluster) run_cluster ;;
    rehearsal) rehearse ;;  # a scheduler and two judge workers, one killed mid-grade (KILL_AFTER s, default 25)
    compare) compare ;;
    all) setup; grade serial "${SERIAL[@]}"; run_cluster; compare ;;
    *) echo "usage: $0 [all | PART...], PART: setup serial pool local scheduler cluster rehearsal compare" >&2; exit 2 ;;
  esac
done
copy_out
