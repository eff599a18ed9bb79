#!/usr/bin/env bash
# The GPU check of issues 24 and 25 (a sealed judge, times you can trust), in parts that each fit
# one 10-minute device call.  Needs the sandbox's wheels in .whl (landlockpy, pyseccomp) and, for
# "measure", the trees to compare in .old/<name> (git archive <commit> | tar -x -C .old/<name>).
#   bash scripts/sealed_gpu.sh sandbox   scripts/sandbox_report.py --gpu: the policy and what it stops
#   bash scripts/sealed_gpu.sh tests     tests/test_gpu_sealed.py, test_gpu.py, test_gpu_isolation.py
#   bash scripts/sealed_gpu.sh cheats    issue 25's cheats judged by .old/main and by this tree
#   bash scripts/sealed_gpu.sh cost      judge run of the tuned transpose, 5 alternating rounds per tree
#                                        (.old/main, .old/t24, this tree): wall time and medians
#   bash scripts/sealed_gpu.sh fidelity  research/fidelity_clocks.py --rounds 3 (judge against do_bench)
#   bash scripts/sealed_gpu.sh audit     the host-clock audit's calibration: honest solutions (how many calls
#                                        disagree) and the timed-path cheats, then their GPU tests
set -u
source scripts/gpu_setup.sh
ROOT=$PWD

judge_in() {  # judge_in TREE ARGS...: `judge` of that tree (this one: ".")
  local tree=$1; shift
  if [ "$tree" = "." ]; then python3 -m judge "$@"; else (cd "$ROOT/.old/$tree" && PYTHONPATH="$ROOT/.old/$tree:${PYTHONPATH:-}" python3 -m judge "$@"); fi
}

SUMMARY_PY=$(cat <<'PY'
import json, sys
try:
    d = json.loads(sys.stdin.read())
except ValueError:
    print("no JSON (the judge died?)")
    sys.exit()
bench = "; ".join(f"{x['name']}: {x.get('median_ms') or 0:.4f} ms {x.get('verdict')}" for x in d.get("benchmarks", []))
print(d["verdict"], "|", bench, "|", (d.get("message") or "")[:200].replace("\n", " "))
PY
)
summary() { python3 -c "$SUMMARY_PY"; }  # one line from a --json document on stdin

case "${1:-tests}" in
sandbox)
  python3 scripts/sandbox_report.py --gpu 2>&1 | tail -40
  ;;
tests)
  SECONDS=0
  python3 -m pytest -m gpu tests/test_gpu_sealed.py tests/test_gpu.py tests/test_gpu_isolation.py -q \
      -p no:cacheprovider -s 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "passed|failed|FAILED|ERROR|protections" | cut -c1-300
  echo "GPU tests: ${SECONDS} s"
  ;;
cheats)
  for cheat in "copy cheat_private_stream_copy" "matmul cheat_audit_aware_matmul" \
               "transpose cheat_flush_aware_transpose" "matmul cheat_precompute_timed_inputs" \
               "copy cheat_deferred_launch_thread" "transpose cheat_patch_worker_protocol" "copy cheat_repoint_copy" \
               "transpose abuse_lift_memory_fraction"; do
    set -- $cheat
    for tree in main .; do
      out=$(judge_in "$tree" run "$ROOT/challenges/$1.yaml" "$ROOT/tests/solutions/$2.py" --seed 1 --json --no-history \
            --bench-budget 1 2>"$OUT/$2-$([ "$tree" = . ] && echo new || echo main).err")
      echo "$2 [$([ "$tree" = . ] && echo now || echo main)] exit $?: $(echo "$out" | summary)"
    done
  done
  ;;
cost)
  for tree in main t24 .; do judge_in "$tree" run "$ROOT/challenges/transpose.yaml" "$ROOT/solutions/transpose/tuned.py" \
      --seed 1 --json --no-history >/dev/null 2>&1; done  # peaks, baselines, caches: once per tree
  for round in 1 2 3 4 5; do
    for tree in main t24 .; do
      start=$(date +%s.%N)
      out=$(judge_in "$tree" run "$ROOT/challenges/transpose.yaml" "$ROOT/solutions/transpose/tuned.py" --seed 1 --json \
            --no-history 2>/dev/null)
      end=$(date +%s.%N)
      echo "{\"round\": $round, \"tree\": \"$tree\", \"wall_s\": $(awk "BEGIN{print $end - $start}"), \"doc\": $out}" >> "$OUT/cost.jsonl"
    done
  done
  python3 - "$OUT/cost.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
for tree in ("main", "t24", "."):
    mine = [r for r in rows if r["tree"] == tree]
    walls = sorted(r["wall_s"] for r in mine)
    medians = {b["name"]: statistics.median(x["doc"]["benchmarks"][i]["median_ms"] for x in mine)
               for i, b in enumerate(mine[0]["doc"]["benchmarks"])}
    print(f"{tree}: wall median {statistics.median(walls):.2f} s (min {walls[0]:.2f}) | medians "
          + ", ".join(f"{k} {v:.4f} ms" for k, v in medians.items()))
PY
  ;;
audit)
  for run in "transpose transpose/tuned" "transpose transpose/tiled" "transpose transpose/naive_2d" "copy copy/tuned" \
             "copy copy/naive" "matmul matmul/tiled" "matmul matmul/grouped_autotuned" "reduce_sum reduce_sum/two_pass" \
             "softmax softmax/split" "vector_add vector_add/blocked" \
             "transpose ../tests/solutions/cheat_flush_aware_transpose" "copy ../tests/solutions/cheat_private_stream_copy"; do
    set -- $run
    python3 -m judge run "challenges/$1.yaml" "solutions/$2.py" --seed 1 --json --no-history --bench-budget 1 \
        2>/dev/null > "$OUT/audit.json"
    python3 - "$2" "$OUT/audit.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[2]))
except ValueError:
    sys.exit(print(sys.argv[1], "no JSON"))
peaks = d.get("environment", {}).get("peaks", {})
print(sys.argv[1], d["verdict"], "| host", peaks.get("host_overhead_us"), "seen", peaks.get("seen_overhead_us"), "|",
      "; ".join(f"{b['name']}: {b.get('median_ms') or 0:.4f} ms {b.get('verdict')} flagged "
                f"{b.get('disagreeing_calls')}/{b.get('calls', len(b.get('samples_ms') or []))}"
                for b in d.get("benchmarks", [])), "|", (d.get("message") or "")[:160].replace("\n", " "))
PY
  done
  python3 -m pytest -m gpu tests/test_gpu_sealed.py tests/test_gpu.py -q -p no:cacheprovider \
      -k "dishonest or private or thread or unjoined or shadow or two_phase or patched_cuda or benchmark_reports" \
      2>&1 | tee "$OUT/audit_tests.log" | grep -E "passed|failed|FAILED|Error" | cut -c1-300
  ;;
fidelity)
  python3 research/fidelity_clocks.py --rounds 3 2>&1 | tee "$OUT/fidelity.log" | tail -14
  ;;
esac
