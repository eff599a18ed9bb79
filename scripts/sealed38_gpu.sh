#!/usr/bin/env bash
# The GPU check of issue 38 (a worker that owns nothing outside itself), in parts that each fit one device
# call; several parts in one call: bash scripts/sealed38_gpu.sh probe new cost.  Needs the sandbox's wheels in
# .whl (landlockpy, pyseccomp: pip download --no-deps landlockpy==0.2.0 pyseccomp==0.1.2 -d .whl).
#   probe   what this machine gives a worker (namespaces, Landlock, seccomp), one CPU-mode run's sandbox
#           line, and the CPU-mode red-team tests that do not need a GPU but do need this kernel
#   new     tests/test_redteam_sealing_gpu.py: sealed GPU workers (Triton, nvcc), the red team's classes
#   tests   the GPU sealed/isolation suites: test_gpu_sealed.py, test_gpu_isolation.py, test_cuda_redteam_gpu.py
#   cost    judge run transpose solutions/transpose/tiled.py --seed 1: 5 served warm runs and 5 alone
#           (wall seconds, medians; the served warm run must stay <= 3 s), and the sandbox line; the same for
#           .old/main when it is there (the tree before, for a same-machine comparison)
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

cost_of() {  # cost_of TREE: 5 served warm runs and 5 alone of that tree (".": this one), alternating nothing else
  local tree=$1 args=(run transpose solutions/transpose/tiled.py --seed 1 --no-history) served=() alone=()
  local judge=(python3 -m judge)
  [ "$tree" != . ] && judge=(env PYTHONPATH="$PWD/$tree:${PYTHONPATH:-}" python3 -m judge)
  (cd "$tree" && unset JUDGE_SERVER CI && "${judge[@]}" server stop >/dev/null 2>&1
   "${judge[@]}" "${args[@]}" --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print('$tree alone:', d['verdict'], 'sealed', d.get('sealed'), d.get('sandbox'))"
   sleep 20  # the server the run started imports torch and triton
   for i in 1 2 3 4 5; do
     t0=$(date +%s.%N); "${judge[@]}" "${args[@]}" > "$OUT/served.txt" 2>&1; t1=$(date +%s.%N)
     served+=("$(python3 -c "print(round($t1 - $t0, 3))")")
   done
   "${judge[@]}" server stop >/dev/null 2>&1
   for i in 1 2 3 4 5; do
     t0=$(date +%s.%N); JUDGE_SERVER=0 "${judge[@]}" "${args[@]}" > "$OUT/alone.txt" 2>&1; t1=$(date +%s.%N)
     alone+=("$(python3 -c "print(round($t1 - $t0, 3))")")
   done
   tail -1 "$OUT/served.txt"; tail -1 "$OUT/alone.txt"
   python3 -c "
import statistics
served, alone = [float(x) for x in '${served[*]}'.split()], [float(x) for x in '${alone[*]}'.split()]
print('$tree served warm (s):', served, 'median', statistics.median(served))
print('$tree alone (s):      ', alone, 'median', statistics.median(alone))")
}

part_cost() {  # this tree, and the tree before when carried as .old/main (git archive main | tar -x -C .old/main)
  cost_of .
  [ -d .old/main ] && cost_of .old/main
  return 0
}

for part in "${@:-probe}"; do
  echo "== $part"
  SECONDS=0
  "part_$part" 2>&1 | tee "$OUT/sealed38_$part.log"
  echo "== $part: ${SECONDS} s"
done
