#!/usr/bin/env bash
# The GPU check of issue 38 (a worker that owns nothing outside itself), in parts that each fit one device
# call; several parts in one call: bash scripts/sealed38_gpu.sh probe new cost.  Needs the sandbox's wheels in
# .whl (landlockpy, pyseccomp: pip download --no-deps landlockpy==0.2.0 pyseccomp==0.1.2 -d .whl).
#   probe   what this machine gives a worker (namespaces, Landlock, seccomp), one CPU-mode run's sandbox
#           line, and the CPU-mode red-team tests that do not need a GPU but do need this kernel
#   new     tests/test_redteam_sealing_gpu.py: sealed GPU workers (Triton, nvcc), the red team's classes
#   tests   the GPU sealed/isolation suites: test_gpu_sealed.py, test_gpu_isolation.py, test_cuda_redteam_gpu.py
#   cost    judge run transpose solutions/transpose/tiled.py --seed 1: 5 served warm runs and 5 alone
#           (wall seconds, medians; the served warm run must stay <= 3 s), and the sandbox line of each kind
set -u
source scripts/gpu_setup.sh

part_probe() {
  id; uname -r
  cat /proc/sys/user/max_user_namespaces /proc/sys/kernel/apparmor_restrict_unprivileged_userns 2>/dev/null
  python3 -c "from judge.worker import sandbox; print(sandbox.available(namespaces=True))"
  python3 -m judge run tests/specs/tiny_transpose.yaml tests/solutions/transpose_ok.py --interpret --seed 1 --json \
      --no-history 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['verdict'], 'sealed', d['sealed'], d['sandbox'])"
  timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_redteam_sealing.py \
      -k "later_run or root_in_the_worker or own_red_team or helper_left" 2>&1 | tail -15
}

part_new() {
  timeout 170 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_redteam_sealing_gpu.py 2>&1 | tail -25
}

part_tests() {
  timeout 580 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu_sealed.py tests/test_gpu_isolation.py \
      tests/test_cuda_redteam_gpu.py 2>&1 | tail -25
}

part_cost() {
  local args=(run transpose solutions/transpose/tiled.py --seed 1 --no-history)
  unset JUDGE_SERVER CI
  python3 -m judge server stop >/dev/null 2>&1
  python3 -m judge "${args[@]}" --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print('alone:', d['verdict'], 'sealed', d['sealed'], d['sandbox'])"
  sleep 20  # the server the run started imports torch and triton
  python3 -m judge server status | head -3
  local served=() alone=()
  for i in 1 2 3 4 5; do
    local t0=$(date +%s.%N); python3 -m judge "${args[@]}" > "$OUT/served_$i.txt" 2>&1; local t1=$(date +%s.%N)
    served+=("$(python3 -c "print(round($t1 - $t0, 3))")")
  done
  python3 -m judge "${args[@]}" --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print('served:', d['verdict'], 'sealed', d['sealed'], d['sandbox'])"
  python3 -m judge server stop >/dev/null 2>&1
  for i in 1 2 3 4 5; do
    local t0=$(date +%s.%N); JUDGE_SERVER=0 python3 -m judge "${args[@]}" > "$OUT/alone_$i.txt" 2>&1; local t1=$(date +%s.%N)
    alone+=("$(python3 -c "print(round($t1 - $t0, 3))")")
  done
  tail -1 "$OUT/served_5.txt"; tail -1 "$OUT/alone_5.txt"
  python3 -c "
import statistics, sys
served, alone = [float(x) for x in '${served[*]}'.split()], [float(x) for x in '${alone[*]}'.split()]
print('served warm (s):', served, 'median', statistics.median(served))
print('alone (s):      ', alone, 'median', statistics.median(alone))"
}

for part in "${@:-probe}"; do
  echo "== $part"
  SECONDS=0
  "part_$part" 2>&1 | tee "$OUT/sealed38_$part.log"
  echo "== $part: ${SECONDS} s"
done
