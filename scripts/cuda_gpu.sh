#!/usr/bin/env bash
# Reproduces: docs/cuda.md, "Measured" (starters, bench) and "cudaDeviceSynchronize() in solve()" (sync),
# docs/benchmarks.md, "CUDA C++ examples beside the Triton ones" (bench); its tests and redteam parts also run in
# `gpu_check.sh tests`.
# The GPU check of CUDA C++ solutions (issue 27), in parts that each fit one 10-minute device call.
# Needs nvcc (CUDA_HOME, PATH or /usr/local/cuda), the sandbox's wheels in .whl, and for "starters"
# a LeetGPU checkout at .leetgpu/challenges.
#   bash scripts/cuda_gpu.sh tests      tests/test_cuda_gpu.py (compile, judge, errors, cache, sandbox)
#   bash scripts/cuda_gpu.sh starters   scripts/leetgpu_cuda_starters.py: every LeetGPU CUDA starter
#   bash scripts/cuda_gpu.sh bench      judge rank of the CUDA examples beside the Triton ones
#   bash scripts/cuda_gpu.sh redteam    tests/test_cuda_redteam_gpu.py: the red team's attacks, secure answers
#   bash scripts/cuda_gpu.sh published  .published/run_cuda.sh: published LeetGPU CUDA solutions (if carried)
#   bash scripts/cuda_gpu.sh sync       cudaDeviceSynchronize() in solve(): what it costs
#   bash scripts/cuda_gpu.sh flow       judge grade --dir with .cu submissions; judge watch of a .cu saved twice
set -u
export JUDGE_SERVER=0
source scripts/gpu_setup.sh
python3 -c "from judge.worker.cuda_build import find_nvcc; print('nvcc:', find_nvcc())"
"$(python3 -c 'from judge.worker.cuda_build import find_nvcc; print(find_nvcc())')" --version | tail -2

for part in "$@"; do
  case $part in
    tests)
      python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda_gpu.py -x 2>&1 | tail -40 ;;
    redteam)  # the red team's GPU tests (tests/test_cuda_redteam_gpu.py): each asserts the secure answer
      python3 -m pytest -q -p no:cacheprovider -m gpu -rA tests/test_cuda_redteam_gpu.py 2>&1 | grep -v "^PASSED" | tail -40 ;;
    published)  # solutions people published for LeetGPU in CUDA C++ (.published/, git-ignored; carry it)
      [ -d .published ] && bash .published/run_cuda.sh 2>&1 | tail -40 ;;
    starters)
      python3 scripts/leetgpu_cuda_starters.py --jobs 8 --json "$OUT/starters.json" 2>&1 | tail -40 ;;
    bench)
      for c in transpose copy matmul; do
        case $c in
          transpose) files="solutions/transpose/naive.cu solutions/transpose/tiled.cu solutions/transpose/tiled.py solutions/transpose/tuned.py" ;;
          copy) files="solutions/copy/vectorized.cu solutions/copy/naive.py solutions/copy/tuned.py" ;;
          matmul) files="solutions/matmul/tiled.cu solutions/matmul/tiled.py solutions/matmul/bf16x6.py" ;;
        esac
        python3 -m judge rank $c $files --seed 1 --json > "$OUT/rank_$c.json" 2> "$OUT/rank_$c.err"
        python3 - "$OUT/rank_$c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["ranking"]:
    print(f"{d['challenge']:10s} {p['solution'].split('solutions/')[-1]:28s} {p['verdict']:14s} "
          f"{(p['score_ms'] or 0):9.4f} ms  {p.get('vs_best') or ''}")
PY
      done ;;
    sync)  # what cudaDeviceSynchronize() at the end of solve() costs: the same tiled kernel with and without it
      for f in solutions/transpose/tiled.cu tests/solutions/transpose_cuda_sync.cu solutions/transpose/tiled.cu tests/solutions/transpose_cuda_sync.cu; do
        python3 -m judge run transpose $f --seed 1 --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('$f'.split('/')[-1], d['verdict'], '; '.join(f\"{b['name']}: {b['median_ms']:.4f} ms, exposed kept {b.get('exposed_kept')}, dropped {b.get('exposed_dropped')}, guard {b.get('launch_guard_us')} us\" for b in d['benchmarks']))"
      done ;;
    flow)  # judge grade --dir with .cu and .py submissions, and judge watch of a .cu file saved twice
      rm -rf /tmp/flow && mkdir -p /tmp/flow/subs/ann /tmp/flow/subs/ben /tmp/flow/subs/cat
      cp solutions/transpose/tiled.cu /tmp/flow/subs/ann/transpose.cu
      cp solutions/copy/vectorized.cu /tmp/flow/subs/ann/copy.cu
      cp solutions/transpose/tiled.py /tmp/flow/subs/ben/transpose.py
      printf 'extern "C" void solve(const float* a, float* b, int rows, int cols) { oops }\n' > /tmp/flow/subs/cat/transpose.cu
      python3 -m judge grade --dir /tmp/flow/subs --seed 1 --bench-budget 0.3 --json "$OUT/flow_grade.json" 2>&1 | tail -12
      echo "grade exit ${PIPESTATUS[0]}"
      cp solutions/transpose/tiled.cu /tmp/flow/watched.cu
      python3 -m judge watch transpose /tmp/flow/watched.cu --seed 1 --no-bench > "$OUT/flow_watch.log" 2>&1 &
      watcher=$!
      sleep 20; echo '// saved again' >> /tmp/flow/watched.cu
      sleep 15; printf 'extern "C" void solve(const float* a, float* b, int r, int c) { broken }\n' > /tmp/flow/watched.cu
      sleep 15; kill -INT $watcher; wait $watcher; echo "watch exit $?"
      tail -40 "$OUT/flow_watch.log" ;;
    *) echo "unknown part $part" ;;
  esac
done
