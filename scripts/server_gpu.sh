#!/usr/bin/env bash
# The judge server on a GPU (issue 16): its GPU tests, then the same solutions judged with and
# without it, alternating, to show that a forked worker times what a spawned one does.
#   OUT=/tmp/out bash scripts/server_gpu.sh
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
WORK=$(mktemp -d)
export JUDGE_CACHE_DIR=$WORK/cache JUDGE_DATA_DIR=$WORK/data NO_COLOR=1
python3 -m pytest -m gpu tests/test_server_gpu.py -q -p no:cacheprovider -s 2>&1 | grep -E "served gpu run|passed|failed|Error" | cut -c1-300
judge server start
for round in 1 2; do
  for s in transpose/tuned copy/tuned matmul/tf32x3; do
    c=${s%%/*}; n=$(echo "$s" | tr / _)
    JUDGE_SERVER=0 judge run "$c" "solutions/$s.py" --seed 1 --json > "$WORK/${n}_plain_$round.json"
    judge run "$c" "solutions/$s.py" --seed 1 --json > "$WORK/${n}_served_$round.json"
  done
done
judge server status; judge server stop
python3 - "$WORK" <<'PY' | tee "$OUT/server_fidelity.md"
import json, sys
from pathlib import Path
work = Path(sys.argv[1])
print("| solution | case | plain run 1 (ms) | served run 1 | plain run 2 | served run 2 | served vs plain (medians of 2) |")
print("|---|---|---|---|---|---|---|")
for s in ["transpose_tuned", "copy_tuned", "matmul_tf32x3"]:
    docs = {k: json.loads((work / f"{s}_{k}.json").read_text()) for k in
            ["plain_1", "served_1", "plain_2", "served_2"]}
    for i, bench in enumerate(docs["plain_1"]["benchmarks"]):
        ms = {k: d["benchmarks"][i]["median_ms"] for k, d in docs.items()}
        plain, served = (ms["plain_1"] + ms["plain_2"]) / 2, (ms["served_1"] + ms["served_2"]) / 2
        print(f"| {s} | {bench['name']} | {ms['plain_1']:.4f} | {ms['served_1']:.4f} | {ms['plain_2']:.4f} | "
              f"{ms['served_2']:.4f} | {100 * (served / plain - 1):+.2f} % |")
PY
