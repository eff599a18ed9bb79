#!/usr/bin/env bash
# Reproduces: docs/benchmarks.md, "The CuTe transposes and judge profile" and docs/cuda.md, "CuTe and CUTLASS" (bench:
# 8192² and 32768²), docs/profile.md, "How ncu profiles a sandboxed worker" (probe), docs/profiles/*.txt and
# tests/data/profile/*.json (profiles, raw samples kept); its cute, tests and profile parts are also gpu_check.sh's
# cute, tests and profile.
# The GPU check of issue 41: CuTe transposes (CUTLASS headers for .cu solutions) and `judge profile`.
# Needs nvcc, the sandbox's wheels and the nvidia-cutlass wheel in .whl (or CUTLASS_PATH), and for the ncu
# parts Nsight Compute. Each part writes under $OUT/i41 (packed into $OUT/i41.tgz after each part: the device
# tool returns at most 8 files). The lead's final GPU session: bash scripts/cute_profile_gpu.sh probe cute profiles tests bench
#   bash scripts/cute_profile_gpu.sh probe     ncu and CUPTI as the judge uses them: fds through ncu, versions,
#                                              judge profile of tiled.py in the sandbox with ncu (else without)
#   bash scripts/cute_profile_gpu.sh cute      judge run of the three CuTe transposes (functional tests)
#   bash scripts/cute_profile_gpu.sh tests     tests/test_profile_gpu.py and the CuTe compile test
#   bash scripts/cute_profile_gpu.sh profile-tests   only the judge profile tests of tests/test_profile_gpu.py
#   bash scripts/cute_profile_gpu.sh profiles  judge profile of a Triton and a CUDA solution (text, JSON, raw samples)
#   bash scripts/cute_profile_gpu.sh bench     judge run of the CuTe, CUDA and Triton transposes at 8192^2 and 32768^2
set -u
export JUDGE_SERVER=0
source scripts/gpu_setup.sh
RES=$OUT/i41; mkdir -p "$RES"
python3 -c "from judge.worker.cuda_build import find_cutlass, find_nvcc; from judge.worker.tool_wrap import find_tool; print('nvcc:', find_nvcc()); print('cutlass:', find_cutlass()); print('ncu:', find_tool('ncu'))"

for part in "$@"; do
  echo "=== $part $(date +%T)"
  case $part in
    probe)
      ncu=$(python3 -c "from judge.worker.tool_wrap import find_tool; print(find_tool('ncu') or '')")
      [ -n "$ncu" ] && "$ncu" --version | tail -2
      # Does ncu pass the worker's pipes on to the program it starts? (client.Worker relies on it)
      exec 7</etc/hostname
      timeout 120 "$ncu" --target-processes application-only --profile-from-start off python3 -c \
        "import os; print('fd 7 through ncu:', os.read(7, 64))" 2>&1 | tail -4
      exec 7<&-
      # The sandboxed worker under ncu: measured? If not, the same without the sandbox says whether it is the cause.
      for sandbox in 1 0; do
        JUDGE_SANDBOX=$sandbox JUDGE_NAMESPACES=$sandbox timeout 300 python3 -m judge profile transpose solutions/transpose/tiled.py --case square-8192 \
          --seed 1 --json --keep-raw --ncu-report /tmp/probe.ncu-rep > "$RES/probe_sandbox$sandbox.json" 2> "$RES/probe_sandbox$sandbox.err"
        echo "JUDGE_SANDBOX=$sandbox JUDGE_NAMESPACES=$sandbox: exit $?"; tail -5 "$RES/probe_sandbox$sandbox.err"
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('ncu:', d['ncu'].get('status'), str(d['ncu'].get('problem'))[:1500]); print('cupti kernels:', [(k['short_name'], k['time_us']) for k in d['cupti']['kernels']])" "$RES/probe_sandbox$sandbox.json"
        ls -la /tmp/nvidia/nsight_compute
        if grep -q '"status": "measured"' "$RES/probe_sandbox$sandbox.json"; then
          python3 -c "import json, sys; from judge.report.console import make_console; from judge.report.profile_view import render_profile; render_profile(make_console(plain=True), json.load(open(sys.argv[1])))" "$RES/probe_sandbox$sandbox.json"
          break
        fi
      done ;;
    profile-tests)  # the profile half of tests/test_profile_gpu.py (the CuTe verdicts are the cute part's)
      timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu -rA tests/test_profile_gpu.py -k profile 2>&1 | tee "$RES/profile_tests.log" | grep -v "^PASSED" | tail -30 ;;
    cute)  # the three CuTe transposes' verdicts (functional tests)
      for f in solutions/transpose/cute_naive.cu solutions/transpose/cute_smem.cu solutions/transpose/cute_swizzle.cu; do
        timeout 200 python3 -m judge run transpose "$f" --seed 1 --no-bench > "$RES/cute_$(basename $f .cu).txt" 2>&1
        echo "$f exit $?"; tail -6 "$RES/cute_$(basename $f .cu).txt"
      done ;;
    tests)
      timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu -rA tests/test_profile_gpu.py 2>&1 | tee "$RES/tests.log" | grep -v "^PASSED" | tail -40
      timeout 200 python3 -m pytest -q -p no:cacheprovider -rA tests/test_cutlass.py 2>&1 | tail -4 ;;
    profiles)  # one Triton and one CUDA solution, with ncu; the raw records kept as the CPU tests' samples
      for f in solutions/transpose/tiled.py solutions/transpose/cute_swizzle.cu solutions/matmul/tiled.py; do
        c=transpose; [[ $f == *matmul* ]] && c=matmul
        n=${c}_$(basename "$f" | tr . _)
        timeout 400 python3 -m judge profile $c "$f" --seed 1 --json --keep-raw --ncu-report "/tmp/$n.ncu-rep" > "$RES/profile_$n.json" 2> "$RES/profile_$n.err"
        echo "$f exit $?"; tail -3 "$RES/profile_$n.err"
        python3 - "$RES/profile_$n.json" <<'PY' > "$RES/profile_$n.txt" 2>&1
import json, sys
from judge.report.console import make_console
from judge.report.profile_view import render_profile
report = json.load(open(sys.argv[1]))
render_profile(make_console(plain=True), report)
PY
        cat "$RES/profile_$n.txt"; ls -la /tmp/$n.ncu-rep 2>/dev/null
      done ;;
    bench)  # the CuTe transposes beside the CUDA and Triton examples, 8192^2 and 32768^2 (scripts/specs)
      for f in solutions/transpose/cute_naive.cu solutions/transpose/cute_smem.cu solutions/transpose/cute_swizzle.cu \
               solutions/transpose/naive.cu solutions/transpose/tiled.cu solutions/transpose/tiled.py solutions/transpose/tuned.py; do
        n=$(basename "$f" | tr . _)
        timeout 120 python3 -m judge run scripts/specs/transpose_32k.yaml "$f" --seed 1 --bench-budget 1 --json > "$RES/run_$n.json" 2> "$RES/run_$n.err"
        python3 - "$RES/run_$n.json" "$f" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print(sys.argv[2], "no JSON"); raise SystemExit
cases = "; ".join(f"{b['name']}: {b.get('median_ms', 0):.4f} ms {b.get('gbps') or 0:.0f} GB/s "
                  f"{b.get('pct_of_peak') or 0:.1f}% torch {b.get('torch_median_ms') or 0:.4f} ms"
                  for b in d["benchmarks"])
print(f"{sys.argv[2]:40s} {d['verdict']:14s} {cases}  copy peak {d['environment'].get('peaks', {}).get('copy_gbps', 0):.0f} GB/s")
if d["verdict"] != "accepted":
    print("   ", d["message"][:600])
PY
      done ;;
    *) echo "unknown part $part" ;;
  esac
  tar czf "$OUT/i41.tgz" -C "$OUT" i41  # after every part: what was done comes back if a later part runs out of time
done
rm -rf "$RES"
